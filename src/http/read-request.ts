import type { IncomingMessage } from 'node:http';
import { ProblemError } from '../errors/problem.js';

// Reading a request's query and body off the wire, shared by the API pipeline and the control plane
// (checking what was read is the contract gate's job: src/contract/gate.ts).

/** Query parameters as an object; a repeated key becomes an array (validation then decides). */
export function queryObject(search: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of search) {
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

function tooLarge(limit: number): ProblemError {
  return new ProblemError('payload-too-large', { detail: `The body exceeds the limit of ${limit} bytes` });
}

/**
 * Reads the whole body, refusing early (Content-Length) or midway (streamed) past `limit` (413).
 * `preRead`: the body when something in front of the mock already consumed the stream (an
 * Express body parser before a mounted mock); it is held to the same limit.
 */
export function readBody(req: IncomingMessage, limit: number, preRead?: Buffer): Promise<Buffer> {
  if (preRead) return preRead.length > limit ? Promise.reject(tooLarge(limit)) : Promise.resolve(preRead);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => !failed && resolve(Buffer.concat(chunks)));
    req.on('error', (error) => !failed && reject(error));
  });
}

/** Consumes a body the operation does not take, so the connection stays usable. */
export function drain(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || (!req.headers['content-length'] && !req.headers['transfer-encoding'])) return Promise.resolve();
  return new Promise((resolve) => {
    req.on('end', resolve);
    req.on('error', () => resolve());
    req.resume();
  });
}
