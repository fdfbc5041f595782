import type { HostAllowlist } from './host-allowlist.js';
import { canonicalAddress, isPrivateAddress, isThisHostAddress, isThisHostName } from './local-addresses.js';
import type { MockEndpoints } from './mock-endpoints.js';

/** Why a webhook target cannot be posted to: the attempt's errorCode and a readable error. */
export interface TargetProblem {
  errorCode: 'INVALID_URL' | 'HOST_NOT_ALLOWED' | 'INVALID_HEADER' | 'TARGET_IS_MOCK' | 'PRIVATE_TARGET_REFUSED';
  error: string;
}

/** What, beyond the URL and --webhook-hosts, decides whether a target may be posted to. */
export interface TargetGuards {
  /** The ports the mock is reached on: this machine on one of them is the mock itself. */
  self?: MockEndpoints;
  /**
   * The origin of the web page (one --cors-origin does not vouch for) whose request created the
   * channel: its webhook may not reach this machine or a private network unless --webhook-hosts
   * names the host (src/app/steps/cors.ts).
   */
  foreignPage?: string;
}

/** RFC 9110 §5.6.2 token; values as Node's http accepts them (no CR, LF or other controls). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Header values go on the wire verbatim: control characters would break (or split) the request. */
export const SAFE_HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The port a URL connects to (its own, or the scheme's default). */
export function portOf(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/**
 * The one judgement of a webhook target, made when a channel is created or replaced (its
 * service turns a problem into a 400) and again before every delivery attempt (state imported
 * from an older mock, or before --webhook-hosts was set, is never trusted): an absolute
 * http(s) URL that `new URL()` accepts, with a host on the allowlist, that is not the mock
 * itself (nor, for a channel a foreign web page made, a private address), and headers that can
 * go on the wire. Host names are judged here as far as they can be without DNS; the addresses
 * they resolve to are judged by `destinationProblem` at each attempt (webhook-post.ts).
 *
 * @example webhookTargetProblem('https://', {}, allowlist)?.errorCode // 'INVALID_URL'
 */
export function webhookTargetProblem(url: string, headers: Record<string, unknown>, allowlist: HostAllowlist, guards: TargetGuards = {}): TargetProblem | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { errorCode: 'INVALID_URL', error: `${JSON.stringify(url)} is not an absolute URL` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { errorCode: 'INVALID_URL', error: `${JSON.stringify(url)} is not an http:// or https:// URL` };
  }
  if (!parsed.hostname) return { errorCode: 'INVALID_URL', error: `${JSON.stringify(url)} has no host` };
  const notAllowed = allowlist.check(parsed);
  if (notAllowed) return { errorCode: 'HOST_NOT_ALLOWED', error: notAllowed };
  const destination = destinationProblem(parsed.hostname, portOf(parsed), guards, allowlist.entries.length > 0);
  if (destination) return destination;
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name) || typeof value !== 'string' || !SAFE_HEADER_VALUE.test(value)) {
      return { errorCode: 'INVALID_HEADER', error: `extra header ${JSON.stringify(name)} cannot be sent (not a token name, or a value with control characters)` };
    }
  }
  return undefined;
}

/**
 * Why a connection to `host` (an IP address in any spelling, or a name before DNS) on `port`
 * must not be made: it is the mock itself, or a private address a foreign page chose. `listed`:
 * --webhook-hosts is set (and allowed the host), which lets a page's channel reach private hosts.
 *
 * @example destinationProblem('::ffff:127.0.0.1', 4010, { self })?.errorCode // 'TARGET_IS_MOCK' when the mock is on 4010
 */
export function destinationProblem(host: string, port: number, guards: TargetGuards, listed: boolean): TargetProblem | undefined {
  const address = canonicalAddress(host);
  const thisHost = address ? isThisHostAddress(address) : isThisHostName(host);
  const shown = `${address ?? host.toLowerCase()}:${port}`;
  if (thisHost && guards.self?.ports.has(port)) {
    return {
      errorCode: 'TARGET_IS_MOCK',
      error: `${shown} is this mock itself (this machine, port ${port}): the mock never sends a request to itself; point the webhook at your receiver`,
    };
  }
  if (guards.foreignPage !== undefined && !listed && (thisHost || (address !== undefined && isPrivateAddress(address)))) {
    return {
      errorCode: 'PRIVATE_TARGET_REFUSED',
      error: `${shown} is on this machine or a private network, and the channel was made by a web page of ${guards.foreignPage}, an origin --cors-origin does not name; create it from that origin after adding it with --cors-origin, without a browser, or allow the host with --webhook-hosts`,
    };
  }
  return undefined;
}
