import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

// RFC 9110 §7.6.1: connection-specific headers are not forwarded by a proxy.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

/** An upstream's answer, read whole. */
export interface UpstreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** Header names and values as sent (order and case kept), alternating. */
  raw: string[];
  body: Buffer;
}

export function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** A body as sent, decompressed by its Content-Encoding (gzip, deflate, br). */
export function decodeBody(body: Buffer, encoding: string | string[] | undefined): Buffer {
  switch (String(encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body);
    case 'deflate':
      return inflateSync(body);
    case 'br':
      return brotliDecompressSync(body);
    default:
      return body;
  }
}

/**
 * Sends a request on to the upstream and reads its answer whole; the upstream's path prefix is
 * kept (https://api.example.com/shipping). A hung upstream fails after `timeoutMs`.
 */
export function forward(upstream: URL, timeoutMs: number, req: Pick<IncomingMessage, 'method' | 'headers'>, target: string, body: Buffer): Promise<UpstreamAnswer> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  headers.host = upstream.host;
  if (body.length) headers['content-length'] = String(body.length);
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const basePath = upstream.pathname.replace(/\/+$/, '');
  return new Promise((resolve, reject) => {
    const outgoing = send(
      { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method: req.method, path: basePath + target, headers, timeout: timeoutMs },
      (incoming) => {
        readAll(incoming).then((buffer) => resolve({ status: incoming.statusCode ?? 502, headers: incoming.headers, raw: incoming.rawHeaders, body: buffer }), reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`upstream did not answer within ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * The upstream's headers to pass on, as raw pairs (order and case kept), without hop-by-hop
 * headers; the body was buffered, so it goes out with its exact length instead of chunked.
 */
export function passThroughHeaders(answer: UpstreamAnswer): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < answer.raw.length; i += 2) {
    const name = answer.raw[i].toLowerCase();
    if (!HOP_BY_HOP.has(name) && name !== 'content-length') pairs.push([answer.raw[i], answer.raw[i + 1]]);
  }
  pairs.push(['Content-Length', String(answer.body.length)]);
  return pairs;
}
