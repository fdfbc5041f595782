import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '../../store/store.js';

const OK_BODY = JSON.stringify({ status: 'ok' });

/**
 * A plain container or orchestrator probe, `GET /__admin/health` with nothing else to check:
 * no query, no body, no Origin (nor a Sec-Fetch-Site of another site). Everything else about
 * health — a query, a body, a page's Origin, another method — is the control plane's to refuse.
 */
function isPlainProbe(req: IncomingMessage): boolean {
  if (req.method !== 'GET' || req.url !== '/__admin/health') return false;
  const { headers } = req;
  if (headers.origin !== undefined || headers['transfer-encoding'] !== undefined) return false;
  if (headers['content-length'] !== undefined && headers['content-length'] !== '0') return false;
  const site = headers['sec-fetch-site'];
  return site !== 'cross-site' && site !== 'same-site';
}

/**
 * Answers a plain health probe whose store is usable with 200 `{"status":"ok"}` — the answer the
 * control plane's health route gives (admin-router.ts, contract/admin.yaml), with its Vary — without
 * loading the control plane's Express app: that import is most of a container's first health
 * answer, and the API does not need it (README, Run it as a container: start to healthy).
 * Calls `otherwise` for every other request, and for a store that says why it cannot be used
 * (the control plane answers 503 with the reason).
 */
export function healthAnswer(options: { store: Store }) {
  const { store } = options;
  return function healthAnswerStep(req: IncomingMessage, res: ServerResponse, otherwise: () => void): void {
    if (!isPlainProbe(req)) return otherwise();
    const answer = () => {
      res.writeHead(200, { Vary: 'Origin', 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(OK_BODY) });
      res.end(OK_BODY);
    };
    if (!store.probe) return answer();
    store.probe().then((reason) => (reason === undefined ? answer() : otherwise()), otherwise);
  };
}
