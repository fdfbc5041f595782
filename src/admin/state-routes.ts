import { Router, type Request, type Response } from 'express';
import { ProblemError } from '../errors/problem.js';
import { adminInput, reply, replyEmpty } from './admin-contract.js';
import type { ControlPlane } from './control-plane.js';
import { stateJsonChunks, type MockState } from './state.js';

/** Longest stretch an export writes before letting other requests run. */
const SLICE_MS = 8;

/**
 *  POST /reset   everything, or one account ({accountId})
 *  GET  /state   export the whole state
 *  PUT  /state   import an exported state (all or nothing)
 */
export function stateRoutes(control: ControlPlane): Router {
  const router = Router();
  router.post('/reset', (_req: Request, res: Response) => {
    const body = adminInput(res).body as { accountId?: string } | undefined;
    control.reset(body?.accountId);
    replyEmpty(res, 204);
  });
  router.get('/state', (_req: Request, res: Response) => {
    // Streamed in pieces with a turn for other clients between them: an export of 100k objects
    // must not stall every other request for its whole length. The snapshot is taken at once
    // (stored objects are replaced on update, never changed in place), so it is consistent.
    const pieces = stateJsonChunks(control.state.export());
    res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
    const pump = () => {
      const started = performance.now();
      while (!res.destroyed) {
        const piece = pieces.next();
        if (piece.done) return void res.end();
        // 'drain' can come in a nextTick right after a fast write: resuming there would never
        // give the event loop back, so the next slice always waits for setImmediate.
        // Encoded here, inside the slice: a piece is a rope of many small strings, and the
        // socket would otherwise flatten and encode all queued pieces in one go after the slice.
        if (!res.write(Buffer.from(piece.value, 'utf8'))) return void res.once('drain', () => setImmediate(pump));
        if (performance.now() - started > SLICE_MS) return void setImmediate(pump);
      }
    };
    // The first slice waits its turn too: requests that arrived with the export's are answered
    // before it (measured: the one call a client made right after asking for a 100k-item export
    // was the slowest of the export in 5 of 6 runs, behind the snapshot and the first slice).
    setImmediate(pump);
  });
  router.put('/state', (_req: Request, res: Response) => {
    try {
      control.state.import(adminInput(res).body as MockState);
    } catch (error) {
      throw new ProblemError('validation-error', {
        detail: `The state cannot be imported: ${(error as Error).message}`,
        violations: [{ field: 'body', message: (error as Error).message }],
      });
    }
    replyEmpty(res, 204);
  });
  return router;
}
