import type { Response } from 'express';

/** What to do with an answer the mock has finished composing. */
export type TapDecision =
  /** Write it (possibly changed). */
  | { kind: 'write'; status: number; body?: Buffer }
  /** Send the headers and part of the body, then close the connection. */
  | { kind: 'truncate'; status: number; body: Buffer }
  /** Close the connection without a byte of answer. */
  | { kind: 'destroy' };

/**
 * Holds back an answer until it is complete, so a scenario can damage it (truncate, corrupt,
 * drop) or add headers computed from it. The pipeline writes answers with writeHead + end
 * (src/app/respond.ts); writes in between are buffered too, so streamed answers work as well.
 *
 * @example tapResponse(res, (status, body) => ({ kind: 'write', status, body }))
 */
export function tapResponse(res: Response, decide: (status: number, body: Buffer | undefined) => TapDecision): void {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end };
  const chunks: Buffer[] = [];
  let status: number | undefined;

  const toBuffer = (chunk: unknown, encoding?: unknown): Buffer =>
    Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');

  res.writeHead = function tappedWriteHead(code: number, ...rest: unknown[]) {
    status = code;
    // writeHead(status, headers) or writeHead(status, reason, headers): keep the headers on res.
    const headers = rest.find((r) => r && typeof r === 'object') as Record<string, string | number | string[]> | undefined;
    if (headers && !Array.isArray(headers)) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    return res;
  } as Response['writeHead'];

  res.write = function tappedWrite(chunk: unknown, encoding?: unknown, callback?: unknown) {
    if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, encoding));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return true;
  } as Response['write'];

  res.end = function tappedEnd(chunk?: unknown, encoding?: unknown, callback?: unknown) {
    res.writeHead = original.writeHead;
    res.write = original.write;
    res.end = original.end;
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(toBuffer(chunk, encoding));
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const decision = decide(status ?? res.statusCode, body);
    if (decision.kind === 'destroy') {
      res.destroy();
      return res;
    }
    if (decision.kind === 'truncate') {
      res.setHeader('Content-Length', String(decision.body.length));
      res.writeHead(decision.status);
      // Half of the promised bytes, then the connection goes: the client sees a cut-off body.
      const half = decision.body.subarray(0, Math.floor(decision.body.length / 2));
      res.write(half, () => res.destroy());
      return res;
    }
    if (decision.body !== undefined) res.setHeader('Content-Length', String(decision.body.length));
    res.writeHead(decision.status);
    const done = [chunk, encoding, callback].find((a) => typeof a === 'function') as (() => void) | undefined;
    return decision.body === undefined ? res.end(done) : res.end(decision.body, done);
  } as Response['end'];
}
