import type { IncomingMessage } from 'node:http';
import { jsonShapeProblem } from '../contract/bounds.js';
import { ProblemError } from '../errors/problem.js';

// Reading a request's query and body, shared by the API pipeline and the control plane.

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

/** Reads the whole body, refusing early (Content-Length) or midway (streamed) past `limit` (413). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
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

/**
 * Parses a JSON body: 400 `malformed-json` when it is not JSON, 400 `validation-error` when it
 * nests deeper than MAX_JSON_DEPTH or has an object with more than MAX_JSON_KEYS keys (checked
 * on the bytes first: such bodies hold the event loop in JSON.parse itself; contract/bounds.ts).
 */
export function parseJsonBody(raw: Buffer, limits?: Parameters<typeof jsonShapeProblem>[1]): unknown {
  const shape = jsonShapeProblem(raw, limits);
  if (shape) throw new ProblemError('validation-error', { detail: `The body ${shape}`, violations: [{ field: 'body', message: shape }] });
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new ProblemError('malformed-json', {
      detail: `The body is not valid JSON: ${(error as Error).message}`,
      violations: [{ field: 'body', message: 'is not valid JSON' }],
    });
  }
}
