import { Agent, request } from 'node:http';

/** One request exactly as it goes on the wire: the path is sent verbatim (odd characters included). */
export interface WireRequest {
  method: string;
  /** Path and query, already encoded as the fuzzer wants them sent. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON when the media type says JSON and the text parses; undefined otherwise. */
  json?: unknown;
  mediaType?: string;
}

/** A reset of a reused keep-alive socket before any answer (see send). */
class StaleSocketError extends Error {
  constructor(cause: NodeJS.ErrnoException) {
    super(cause.message, { cause });
    this.name = 'StaleSocketError';
  }
}

/**
 * A keep-alive HTTP client on node:http (not fetch: fetch normalises paths such as `/a/../b`
 * and refuses some headers, and the fuzzer must send what it generated).
 */
export function createWire(baseUrl: string, options: { timeoutMs?: number; maxSockets?: number } = {}) {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 8 });
  const timeoutMs = options.timeoutMs ?? 30_000;

  /**
   * A keep-alive socket the server closed as idle (its Keep-Alive timeout) at the moment the
   * agent reused it: the request meets the closed socket and is reset before the server read
   * any of it. Sent once more, as Node's documentation of request.reusedSocket advises; a reset
   * on a new connection, or a second one, is still the server's and reported.
   */
  async function send(req: WireRequest): Promise<WireResponse> {
    try {
      return await sendOnce(req);
    } catch (error) {
      if (!(error instanceof StaleSocketError)) throw error;
      return sendOnce(req);
    }
  }

  function sendOnce(req: WireRequest): Promise<WireResponse> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...req.headers };
      if (req.body) headers['content-length'] = req.body.length;
      const outgoing = request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const mediaType = String(res.headers['content-type'] ?? '').split(';')[0].trim() || undefined;
          let json: unknown;
          if (mediaType?.endsWith('json') && text) {
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, mediaType });
        });
      });
      outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      let answered = false;
      outgoing.on('response', () => (answered = true));
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        const stale = outgoing.reusedSocket && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        reject(stale ? new StaleSocketError(error) : error);
      });
      outgoing.end(req.body);
    });
  }

  return { send, close: () => agent.destroy() };
}

export type Wire = ReturnType<typeof createWire>;

/** A shell command that sends the same request (for reports). */
export function toCurl(baseUrl: string, req: WireRequest): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const parts = ['curl -sS -i --path-as-is', '-X', req.method];
  for (const [name, value] of Object.entries(req.headers)) parts.push('-H', quote(`${name}: ${value}`));
  if (req.body) {
    const text = req.body.toString('utf8');
    const short = text.length > 600 ? `${text.slice(0, 300)}…(${text.length} bytes)…${text.slice(-100)}` : text;
    parts.push('--data-binary', quote(short));
  }
  parts.push(quote(`${baseUrl}${req.path}`));
  return parts.join(' ');
}
