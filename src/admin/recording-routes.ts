import { Router, type Request, type Response } from 'express';
import { exchangeToHarEntry, harDocumentParts } from '../recording/har.js';
import { journalExchange } from '../recording/journal-exchange.js';
import { openCheckedStream } from './admin-contract.js';
import type { ControlPlane } from './control-plane.js';
import { journalFilterOf } from './journal-routes.js';

/**
 *  GET /journal.har    the journal as a HAR 1.2 document, streamed entry by entry
 */
export function recordingRoutes(control: ControlPlane): Router {
  const router = Router();
  router.get('/journal.har', async (req: Request, res: Response) => {
    const filter = journalFilterOf(res, Math.max(1, control.journal.capacity));
    // References to entries the journal holds anyway; each is turned into HAR text only when written.
    const entries = control.journal.find(filter);
    const origin = `${(req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
    const stamp = control.clock.now().now.replace(/[:.]/g, '-');
    const { head, tail, envelope } = harDocumentParts(`The shipmock journal: ${entries.length} of the last ${control.journal.capacity} requests to the API, secrets shortened`);
    const stream = openCheckedStream(res, 200, 'application/json', envelope, {
      'Content-Disposition': `attachment; filename="shipmock-journal-${stamp}.har"`,
      'Cache-Control': 'no-store',
    });
    await stream.write(head);
    let first = true;
    for (const { seq } of entries) {
      if (res.destroyed) return;
      const item = control.journal.get(seq);
      if (!item) continue;
      // Entries of the API's own origin: the journal keeps paths; the Host the client used, when it kept the headers.
      const host = item.exchange?.request.headers.host;
      const { exchange, incomplete } = journalExchange(item, host && /^[\w.:[\]-]+$/.test(host) ? `${origin.split('://')[0]}://${host}` : origin);
      const entry = exchangeToHarEntry(exchange, incomplete ? { incomplete } : {});
      // Each entry is held to admin.yaml as the document it is part of (HarDocument, of one entry).
      if (!stream.conforms({ log: { ...envelope.log, entries: [entry] } })) continue;
      await stream.write(`${first ? '' : ','}${JSON.stringify(entry)}`);
      first = false;
    }
    await stream.write(tail);
    stream.end();
  });
  return router;
}
