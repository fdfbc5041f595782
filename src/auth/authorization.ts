/**
 * What an Authorization header says, parsed in ONE place for every step that needs it (the
 * caller's identity for rate limits and scenarios, authentication, the journal). Parsing is not
 * trusting: a bearer token here is just a string until the token service verifies it.
 */
export type Authorization =
  | { scheme: 'none' }
  /** `Bearer <token>`; `token` is '' when nothing follows the scheme. */
  | { scheme: 'bearer'; token: string }
  /** `Basic <base64 id:secret>`; `credentials` undefined when it does not decode to a non-empty id and a colon. */
  | { scheme: 'basic'; credentials?: { clientId: string; clientSecret: string } }
  /** Any other scheme (the name lower-cased), or a header that is only a scheme name. */
  | { scheme: 'other'; name: string };

/**
 * @example parseAuthorization('Bearer abc') // { scheme: 'bearer', token: 'abc' }
 * @example parseAuthorization('Basic ' + btoa('id:secret')) // { scheme: 'basic', credentials: { clientId: 'id', clientSecret: 'secret' } }
 */
export function parseAuthorization(header: string | undefined): Authorization {
  if (!header) return { scheme: 'none' };
  const space = header.indexOf(' ');
  const name = (space === -1 ? header : header.slice(0, space)).toLowerCase();
  const value = space === -1 ? '' : header.slice(space + 1).trim();
  if (name === 'bearer') return { scheme: 'bearer', token: value };
  if (name === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon > 0 ? { scheme: 'basic', credentials: { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) } } : { scheme: 'basic' };
  }
  return { scheme: 'other', name };
}
