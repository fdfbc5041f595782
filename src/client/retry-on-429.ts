/**
 * Honours 429 Too Many Requests: waits as long as Retry-After says (RFC 9110 §10.2.3: delay in
 * seconds or an HTTP date; spec, Limits: "A 429 response also carries Retry-After (seconds)")
 * and sends the request again, at most `maxRetries` times. A wait longer than `maxWaitMs`, or
 * running out of retries, hands the 429 back to the caller unchanged.
 */
export interface RetryAfterOptions {
  /** Retries after the first 429. Default 3. */
  maxRetries?: number;
  /** Longest single wait the client accepts; a longer Retry-After is returned to the caller. Default 60 s. */
  maxWaitMs?: number;
  /** Waits `ms`; tests inject a fake so nothing sleeps for real. */
  sleep?: (ms: number) => Promise<void>;
  /** Current time in epoch ms (for HTTP-date Retry-After values). Default Date.now. */
  now?: () => number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Milliseconds to wait according to a 429 response; falls back to X-RateLimit-Reset, then 1 s.
 * @example retryDelayMs(new Response(null, { status: 429, headers: { 'Retry-After': '2' } }), Date.now) // 2000
 */
export function retryDelayMs(response: Response, now: () => number): number {
  const header = response.headers.get('retry-after')?.trim();
  if (header) {
    if (/^\d+$/.test(header)) return Number(header) * 1000;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - now());
  }
  const reset = response.headers.get('x-ratelimit-reset')?.trim();
  if (reset && /^\d+$/.test(reset)) return Number(reset) * 1000;
  return 1000;
}

/**
 * Wraps a fetch function with bounded Retry-After handling. The request is cloned per attempt
 * so a body can be sent again.
 * @example const send = withRetryAfter(fetch, { maxRetries: 2 }); await send(new Request(url));
 */
export function withRetryAfter(
  send: (request: Request) => Promise<Response>,
  options: RetryAfterOptions = {},
): (request: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 3;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? Date.now;
  return async function sendHonouringRetryAfter(request) {
    for (let attempt = 0; ; attempt++) {
      const response = await send(attempt < maxRetries ? request.clone() : request);
      if (response.status !== 429 || attempt >= maxRetries) return response;
      const waitMs = retryDelayMs(response, now);
      if (waitMs > maxWaitMs) return response;
      await response.body?.cancel();
      await sleep(waitMs);
    }
  };
}
