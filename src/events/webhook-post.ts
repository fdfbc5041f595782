import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { canonicalAddress } from './local-addresses.js';

/** What one attempt came to: an HTTP status, or an error code (TIMEOUT, ECONNREFUSED, …). */
export interface PostOutcome {
  statusCode?: number;
  errorCode?: string;
  error?: string;
  /** Real elapsed time; the virtual clock may stand still while a receiver answers. */
  latencyMs: number;
  /** The receiver's answer headers, when it answered. */
  responseHeaders?: Record<string, string>;
}

/**
 * Judges each address the target's host stands for before a connection is made: an IP literal
 * as written, a name as DNS answers it at this attempt (DNS can change after the channel was
 * checked). A refusal is the attempt's outcome ({ errorCode, error }); nothing is sent.
 */
export type AddressScreen = (address: string) => { errorCode: string; error: string } | undefined;

export interface WebhookTransport {
  post(url: string, headers: Record<string, string>, body: string, screen?: AddressScreen): Promise<PostOutcome>;
  /** Aborts requests in flight and closes every socket. */
  close(): void;
}

/**
 * Real HTTP(S) POSTs with a total time limit per attempt (connect, send, and the whole answer).
 * Connections are not kept alive: each attempt opens and closes its own socket, so closing the
 * mock leaves nothing open and a receiver's keep-alive timeout can never fail an attempt.
 *
 * @example const transport = createWebhookTransport({ timeoutMs: 10_000, maxSockets: 64 });
 */
export function createWebhookTransport(options: { timeoutMs: number; maxSockets: number; userAgent?: string }): WebhookTransport {
  const agents = {
    'http:': new http.Agent({ keepAlive: false, maxSockets: options.maxSockets }),
    'https:': new https.Agent({ keepAlive: false, maxSockets: options.maxSockets }),
  };
  const inFlight = new Map<http.ClientRequest, (outcome: Omit<PostOutcome, 'latencyMs'>) => void>();
  let closed = false;

  function post(url: string, headers: Record<string, string>, body: string, screen?: AddressScreen): Promise<PostOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome: Omit<PostOutcome, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        inFlight.delete(request);
        resolve({ ...outcome, latencyMs: latency() });
      };
      let request: http.ClientRequest;
      try {
        const target = new URL(url);
        const transport = target.protocol === 'https:' ? https : http;
        const agent = target.protocol === 'https:' ? agents['https:'] : agents['http:'];
        // An IP literal is never looked up, so it is judged here; a name in `lookup`, per answer.
        const literal = canonicalAddress(target.hostname);
        const refused = screen && literal ? screen(literal) : undefined;
        if (refused) {
          resolve({ ...refused, latencyMs: latency() });
          return;
        }
        request = transport.request(target, {
          method: 'POST',
          agent,
          ...(screen && !literal ? { lookup: screenedLookup(screen) } : {}),
          headers: {
            ...headers,
            'Content-Length': String(Buffer.byteLength(body)),
            'User-Agent': options.userAgent ?? 'shipmock-webhooks/1',
            Connection: 'close',
          },
        });
      } catch (error) {
        // Bad header values or URLs surface here synchronously; they are a failed attempt, not a crash.
        resolve({ errorCode: errorCodeOf(error), error: (error as Error).message, latencyMs: latency() });
        return;
      }
      if (closed) {
        request.destroy();
        resolve({ errorCode: 'SHUTDOWN', error: 'the mock is shutting down', latencyMs: 0 });
        return;
      }
      inFlight.set(request, settle);
      const timer = setTimeout(() => {
        settle({ errorCode: 'TIMEOUT', error: `no complete answer within ${options.timeoutMs} ms` });
        request.destroy();
      }, options.timeoutMs);
      request.on('response', (response) => {
        // The answer body is ignored (any 2xx acknowledges) but read to the end, so the timeout
        // covers a receiver that sends headers and then stalls.
        response.resume();
        const responseHeaders = headerValues(response.headers);
        response.on('end', () => settle({ statusCode: response.statusCode, responseHeaders }));
        response.on('error', (error) => settle({ errorCode: errorCodeOf(error), error: error.message }));
      });
      request.on('error', (error) => settle({ errorCode: errorCodeOf(error), error: error.message }));
      // A connection cut mid-answer may end without an 'error'; never leave an attempt hanging.
      request.on('close', () => setImmediate(() => settle({ errorCode: 'ECONNRESET', error: 'connection closed before a complete answer' })));
      request.end(body);
    });
  }

  return {
    post,
    close() {
      closed = true;
      for (const [request, settle] of inFlight) {
        settle({ errorCode: 'SHUTDOWN', error: 'the mock shut down during the attempt' });
        request.destroy();
      }
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

/**
 * dns.lookup with every address it answers judged by `screen` first: one refused address fails
 * the lookup (with the screen's code), so no connection is tried to any of them (Node may race
 * several addresses of one name, RFC 8305).
 */
function screenedLookup(screen: AddressScreen): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, answers: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      for (const answer of answers) {
        const refused = screen(answer.address);
        if (refused) return callback(Object.assign(new Error(refused.error), { code: refused.errorCode }), '', 0);
      }
      if (lookupOptions.all) return callback(null, answers);
      if (!answers.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, answers[0].address, answers[0].family);
    });
  };
}

/** Up to 30 headers, each value at most 256 characters: the log keeps what a person reads, not a receiver's whole answer. */
function headerValues(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers).slice(0, 30)) {
    if (value !== undefined) out[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, 256);
  }
  return out;
}

function errorCodeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  return typeof code === 'string' && code ? code : 'ERROR';
}
