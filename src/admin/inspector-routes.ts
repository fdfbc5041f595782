import { Router, type Request, type Response } from 'express';
import { ProblemError } from '../errors/problem.js';
import type { JournalEntry } from '../journal/journal.js';
import type { Logger } from '../logging/logger.js';
import { redactJson } from '../util/redact.js';
import { isForeignPage, refuseBrowser } from './admin-access.js';
import { adminInput, openEventStream, reply, replyBytes } from './admin-contract.js';
import type { ControlPlane } from './control-plane.js';
import { isSecretCollection } from './inspection.js';

/**
 * Stored objects and events as a page of another origin (an allowed --admin-origin) may see them:
 * credentials shortened (a carrier setting named password, a legacy channel's header values);
 * the user's terminal, tests and the mock's own inspector see them as stored.
 */
function shownTo<T>(req: Request, value: T): T {
  return isForeignPage(req) ? redactJson(value) : value;
}

/** How often a live journal stream sends what arrived: one write per batch keeps an open inspector cheap for the API. */
const STREAM_BATCH_MS = 500;
/** Entries one batch carries at most; the rest are counted in `skipped` (the page can reload them). */
const STREAM_BATCH_MAX = 100;
const HEARTBEAT_MS = 15_000;
const DAY_MS = 86_400_000;

/**
 * What the inspector (/__admin/ui/) reads (contract/admin.yaml, tag Inspector):
 *  GET /journal/stream                         the journal live (server-sent events, batched)
 *  GET /journal/{seq}                          one entry with its request, answer and violations
 *  GET /clock/due                              timers due next (tracker steps, webhook retries, expiries)
 *  GET /state/overview                         companies → accounts → collection sizes
 *  GET /state/accounts/{id}/collections/{c}    stored objects of one collection (paged)
 *  GET /state/accounts/{id}/collections/{c}/{item-id}
 *  GET /state/accounts/{id}/documents/{document-id}/data   a document's bytes, for previews
 *  GET /events                                 the newest published events (a booking's, an account's)
 *  GET /usage                                  usage per company and account, per day
 */
export function inspectorRoutes(control: ControlPlane, logger: Logger): Router {
  const router = Router();
  router.get('/journal/stream', (req: Request, res: Response) => {
    // A Last-Event-ID that is not a number (another tool's stream) resumes from the start of the journal.
    const after = Number(adminInput(res).params.query.after ?? req.headers['last-event-id'] ?? 0) || 0;
    const stream = openEventStream(res, '#/components/schemas/JournalBatch');
    let pending: JournalEntry[] = [];
    let skipped = 0;
    let flushTimer: NodeJS.Timeout | undefined;
    const flush = () => {
      flushTimer = undefined;
      if (!pending.length && !skipped) return;
      const batch = { entries: pending, skipped };
      pending = [];
      skipped = 0;
      // Runs from a timer: a failure ends this stream (the page reconnects), never the process.
      try {
        stream.send('entries', batch, String(batch.entries.at(-1)?.seq ?? ''));
      } catch (error) {
        logger.error({ err: error }, 'journal stream failed; closing it');
        res.destroy();
      }
    };
    const enqueue = (entry: JournalEntry) => {
      pending.push(entry);
      if (pending.length > STREAM_BATCH_MAX) {
        pending.shift();
        skipped++;
      }
      flushTimer ??= setTimeout(flush, STREAM_BATCH_MS);
    };
    // What the page missed (a reconnect sends Last-Event-ID), then everything new.
    for (const entry of control.journal.find({ limit: STREAM_BATCH_MAX }).filter((e) => e.seq > after)) pending.push(entry);
    flush();
    const unsubscribe = control.journal.subscribe(enqueue);
    const heartbeat = setInterval(() => stream.heartbeat(), HEARTBEAT_MS);
    heartbeat.unref();
    res.on('close', () => {
      unsubscribe();
      clearInterval(heartbeat);
      if (flushTimer) clearTimeout(flushTimer);
    });
  });
  router.get('/journal/:seq', (_req: Request, res: Response) => {
    const seq = adminInput(res).params.path.seq as number;
    const entry = control.journal.get(seq);
    if (!entry) throw new ProblemError('not-found', { detail: `The journal holds no entry ${seq} (it keeps the last ${control.journal.capacity} requests)` });
    reply(res, 200, entry);
  });
  router.get('/clock/due', (_req: Request, res: Response) => {
    const limit = (adminInput(res).params.query.limit as number | undefined) ?? 20;
    reply(res, 200, { now: control.clock.now().now, items: control.inspect.due(limit) });
  });
  router.get('/state/overview', (_req: Request, res: Response) => {
    reply(res, 200, control.inspect.overview());
  });
  router.get('/state/accounts/:"account-id"/collections/:collection', (req: Request, res: Response) => {
    const { params } = adminInput(res);
    const offset = (params.query.offset as number | undefined) ?? 0;
    const limit = (params.query.limit as number | undefined) ?? 50;
    const collection = params.path.collection as string;
    if (isSecretCollection(collection)) refuseBrowser(req, `The collection ${collection}`);
    const found = control.inspect.items(params.path['account-id'] as string, collection, { offset, limit });
    reply(res, 200, { offset, limit, ...found, items: shownTo(req, found.items) });
  });
  router.get('/state/accounts/:"account-id"/collections/:collection/:"item-id"', (req: Request, res: Response) => {
    const { path } = adminInput(res).params;
    if (isSecretCollection(path.collection as string)) refuseBrowser(req, `The collection ${path.collection}`);
    const item = control.inspect.item(path['account-id'] as string, path.collection as string, path['item-id'] as string);
    if (item === undefined) throw new ProblemError('not-found', { detail: `Account ${path['account-id']} has no ${path.collection} item ${path['item-id']}` });
    reply(res, 200, shownTo(req, item));
  });
  router.get('/state/accounts/:"account-id"/documents/:"document-id"/data', (_req: Request, res: Response) => {
    const { path } = adminInput(res).params;
    let document;
    try {
      document = control.inspect.document(path['account-id'] as string, path['document-id'] as string);
    } catch (error) {
      if (error instanceof ProblemError) throw error;
      throw new ProblemError('not-found', { detail: (error as Error).message });
    }
    replyBytes(res, 200, document.mediaType, document.bytes, { 'Content-Disposition': `inline; filename="${document.fileName}"`, 'Cache-Control': 'private, max-age=3600' });
  });
  router.get('/events', (req: Request, res: Response) => {
    const { query } = adminInput(res).params;
    const items = control.inspect.events({ accountId: query.account_id as string | undefined, mentions: query.mentions as string | undefined, limit: (query.limit as number | undefined) ?? 100 });
    reply(res, 200, { items: shownTo(req, items) });
  });
  router.get('/usage', (_req: Request, res: Response) => {
    const { query } = adminInput(res).params;
    const now = Date.parse(control.clock.now().now);
    const to = query.to ? Date.parse(query.to as string) : now + 1;
    const from = query.from ? Date.parse(query.from as string) : to - 30 * DAY_MS;
    if (from >= to) throw new ProblemError('validation-error', { detail: 'from must be before to', violations: [{ field: 'query/from', message: 'must be before to' }] });
    reply(res, 200, control.inspect.usage(from, to));
  });
  return router;
}
