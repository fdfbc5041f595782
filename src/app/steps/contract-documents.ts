import { createHash } from 'node:crypto';
import type { OpenApiDocument } from '../../contract/load-contract.js';
import { ProblemError } from '../../errors/problem.js';
import { requestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';
import { lazyModule } from '../../util/lazy-module.js';
import type { Responder } from '../respond.js';

const yaml = lazyModule<typeof import('yaml')>('yaml');

interface ServedDocument {
  contentType: string;
  body: string;
  etag: string;
}

/**
 * GET /openapi.yaml and GET /openapi.json: the contract this mock runs, for tools and readers
 * (any origin may read it, like the API). Rendered on first request and kept, with a strong ETag
 * (304 on If-None-Match). Not an operation of the contract, and not journaled: it describes the
 * API rather than being part of it (contract/DECISIONS.md, "The served contract").
 */
export function contractDocuments(options: { document: OpenApiDocument; responder: Responder }) {
  const rendered = new Map<string, ServedDocument>();
  const render = (path: string): ServedDocument => {
    let served = rendered.get(path);
    if (!served) {
      const json = path === '/openapi.json';
      const body = json ? JSON.stringify(options.document, null, 2) : yaml().stringify(options.document, { lineWidth: 0 });
      served = { contentType: json ? 'application/json' : 'application/yaml', body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
      rendered.set(path, served);
    }
    return served;
  };
  return function contractDocumentsStep(req: ApiRequest, res: ApiResponse, next: Next) {
    const state = requestState(req);
    if (!isContractDocument(state.pathname)) return next();
    if (state.method !== 'GET' && state.method !== 'HEAD') {
      throw new ProblemError('method-not-allowed', { detail: `${state.method} is not allowed for ${state.pathname}; allowed: GET, HEAD`, headers: { Allow: 'GET, HEAD' } });
    }
    const served = render(state.pathname);
    const headers = { ETag: served.etag, 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*' };
    if (req.headers['if-none-match'] === served.etag) return options.responder.send(req, res, { status: 304, headers });
    options.responder.send(req, res, { status: 200, contentType: served.contentType, payload: served.body, headers }); // node leaves the body off a HEAD answer
  };
}

/** The paths the contract is served under. */
export function isContractDocument(pathname: string): boolean {
  return pathname === '/openapi.yaml' || pathname === '/openapi.json';
}
