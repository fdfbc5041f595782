/**
 * `shipmock verify` talks to two servers it does not start: the provider under test and,
 * optionally, a Pact Broker. Either one down (a typo, a stopped server, no network) used to end
 * in a minute of retries and an uncaught ENOTFOUND with a thousand lines of stack traces; an
 * unreachable broker was even reported as a missing webhook. Both are checked once before the
 * verifier starts, and a network error while it runs is told the same way: one line, naming
 * the URL and the cause.
 */
export class UnreachableError extends Error {
  constructor(
    readonly role: string,
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach the ${role} at ${url}: ${reason}`);
    this.name = 'UnreachableError';
  }
}

/** Network error codes and what they mean, in the words of someone checking a URL. */
const CAUSES: Record<string, string> = {
  ENOTFOUND: 'the host name does not resolve (ENOTFOUND)',
  EAI_AGAIN: 'the host name could not be resolved now (EAI_AGAIN)',
  ECONNREFUSED: 'nothing listens on that port (ECONNREFUSED)',
  ECONNRESET: 'the connection was reset (ECONNRESET)',
  EHOSTUNREACH: 'no route to the host (EHOSTUNREACH)',
  ENETUNREACH: 'the network is unreachable (ENETUNREACH)',
  ETIMEDOUT: 'the connection timed out (ETIMEDOUT)',
  EPIPE: 'the connection was closed (EPIPE)',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection was closed',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed and not trusted (set NODE_EXTRA_CA_CERTS)',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is not trusted (set NODE_EXTRA_CA_CERTS)',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate is not trusted (set NODE_EXTRA_CA_CERTS)',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host name',
  EPROTO: 'it does not speak TLS there (EPROTO)',
};

/**
 * The network cause of an error (fetch's TypeError wraps it in `cause`), in words; undefined
 * when the error is not a network failure.
 * @example networkCause(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })) // 'nothing listens on that port (ECONNREFUSED)'
 */
export function networkCause(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown; name?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.name === 'TimeoutError') return 'no answer within the time limit';
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && CAUSES[code]) return CAUSES[code];
    if (code && /^(E[A-Z]+|UND_ERR_[A-Z_]+|ERR_TLS_[A-Z_]+|[A-Z_]*CERT[A-Z_]*)$/.test(code)) return code;
  }
  return undefined;
}

/**
 * Any HTTP answer (even a 404) means the server is there; a network error or no answer within
 * `timeoutMs` throws an UnreachableError. `refuse` turns some statuses into one too (a broker
 * that refuses the token).
 *
 * @example await checkReachable('http://unreachable.invalid', 'provider') // throws: cannot reach the provider at http://unreachable.invalid: the host name does not resolve (ENOTFOUND)
 */
export async function checkReachable(
  url: string,
  role: string,
  options: { timeoutMs?: number; headers?: Record<string, string>; refuse?: Record<number, string> } = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  let response: Response;
  try {
    response = await fetch(url, { headers: options.headers, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = networkCause(error);
    throw new UnreachableError(role, url, cause === 'no answer within the time limit' ? `no answer within ${timeoutMs / 1000} s` : (cause ?? (error as Error).message));
  }
  await response.body?.cancel();
  const refused = options.refuse?.[response.status];
  if (refused) throw new UnreachableError(role, url, `${refused} (${response.status})`);
}
