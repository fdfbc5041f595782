/**
 * What the control plane shows of a secret: a few of its first characters and an ellipsis —
 * enough to tell two tokens apart, never enough to use one. One module for every place that
 * shows traffic (the journal, its stream, the delivery log, the inspector's state view for a
 * page of another origin), so a credential is recognised the same way everywhere, whatever its
 * form: a header (Authorization with any scheme or none, Cookie, X-Api-Key…), a JSON or form body
 * (a token endpoint's `accessToken`, a channel's `secret` and custom header values, a carrier
 * setting named `password`), a query string or the userinfo of a URL.
 */

/** The mark a shortened secret ends with. */
export const REDACTED_MARK = '…';
/** Characters of a secret kept at most, and never more than a quarter of it. */
const KEPT = 6;

/**
 * Names (of headers, JSON members, form and query parameters) whose values are credentials,
 * compared in lower case without separators: `client_secret`, `clientSecret` and `Client-Secret`
 * are one name. Usage `tokens` (a count) and `tokenType` are not; `accessToken`, `X-Auth-Token` are.
 */
const SECRET_WORDS = /(secret|passw|passphrase|apikey|accesskey|privatekey|signingkey|adminkey|authorization|credential|session|cookie|signature)/;
const SECRET_ENDINGS = /(token|auth|pwd|pin|otp)$/;
/** Members whose value is a map of header names to values: a channel's custom headers are write-only (contract: webhook.headers). */
const HEADER_MAPS = new Set(['headers']);

/** Authorization schemes kept in front of the shortened credential (IANA HTTP Authentication Schemes, and common ones). */
const AUTH_SCHEME = /^(basic|bearer|concealed|digest|dpop|gnap|hoba|mutual|negotiate|ntlm|oauth|privatetoken|scram-sha-1|scram-sha-256|vapid|token|apikey|aws4-hmac-sha256) +/i;
/** An absolute URL, or a path with a query (a problem's `instance`): either may carry a token in its query. */
const URL_LIKE = /^([a-z][a-z0-9+.-]*:\/\/|\/)/i;

/** A query that could hold a secret name (separators left out, as names are compared), anything percent-encoded or a URL: looked at parameter by parameter. */
const MAYBE_SECRET_QUERY = /secret|signature|passw|passphrase|api|access|private|signing|admin|auth|credential|session|cookie|token|pwd|pin|otp|%|:\/|=\//i;

const normalized = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Any word that makes a name secret (SECRET_WORDS, and SECRET_ENDINGS anywhere), or a header map:
 * looked for in a whole text, normalized as names are (so a word split by separators is found too).
 */
const CANDIDATE_WORDS = [SECRET_WORDS.source, SECRET_ENDINGS.source.replace(/\$$/, ''), ...HEADER_MAPS].flatMap((words) => words.replace(/[()]/g, '').split('|'));
const SECRET_CANDIDATE = new RegExp(CANDIDATE_WORDS.join('|'));

/** Letters and digits, the symbols names are compared by: '0'–'9' are 0–9, 'a'–'z' (either case) 10–35, anything else -1 (a separator). */
function symbolOf(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  return lower >= 97 && lower <= 122 ? lower - 87 : -1;
}

/**
 * The words of CANDIDATE_WORDS as one automaton over letters and digits (Aho–Corasick, its
 * failure links folded into a full transition table): fed a text's letters and digits in order,
 * it is in an accepting state exactly when the normalized text so far ends with one of the words.
 */
const CANDIDATES = (() => {
  const SYMBOLS = 36;
  const trie: number[][] = [[]];
  const accepting: boolean[] = [false];
  for (const word of CANDIDATE_WORDS) {
    let state = 0;
    for (const c of word) {
      const symbol = symbolOf(c.charCodeAt(0));
      if (trie[state][symbol] === undefined) {
        trie[state][symbol] = trie.length;
        trie.push([]);
        accepting.push(false);
      }
      state = trie[state][symbol];
    }
    accepting[state] = true;
  }
  const next = new Int32Array(trie.length * SYMBOLS);
  const fail = new Int32Array(trie.length);
  const queue: number[] = [];
  for (let symbol = 0; symbol < SYMBOLS; symbol++) {
    const child = trie[0][symbol];
    if (child !== undefined) {
      next[symbol] = child;
      queue.push(child);
    }
  }
  // Breadth first: a state's failure state is shallower, so its row and its accepting are final.
  for (let at = 0; at < queue.length; at++) {
    const state = queue[at];
    accepting[state] ||= accepting[fail[state]];
    for (let symbol = 0; symbol < SYMBOLS; symbol++) {
      const child = trie[state][symbol];
      if (child === undefined) next[state * SYMBOLS + symbol] = next[fail[state] * SYMBOLS + symbol];
      else {
        fail[child] = next[fail[state] * SYMBOLS + symbol];
        next[state * SYMBOLS + symbol] = child;
        queue.push(child);
      }
    }
  }
  return { next, accepting: Uint8Array.from(accepting, Number), SYMBOLS };
})();

/**
 * Whether a text holds a word of a secret name or a header map once lower-cased and stripped to
 * letters and digits (as names are compared: `Client-Se_cret` holds `secret`). One pass over an
 * ASCII text, no copy of it; beyond ASCII, lower-casing may turn a character into letters
 * (`K` → `k`), so such a text is normalized first.
 *
 * @example holdsSecretWord('{"api-KEY":1}') // true
 * @example holdsSecretWord('{"name":"Erika"}') // false
 */
export function holdsSecretWord(text: string): boolean {
  const { next, accepting, SYMBOLS } = CANDIDATES;
  let state = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return SECRET_CANDIDATE.test(normalized(text));
    const symbol = symbolOf(code);
    if (symbol < 0) continue;
    state = next[state * SYMBOLS + symbol];
    // Whatever follows, a word among the ASCII characters so far is a word of the normalized text.
    if (accepting[state]) return true;
  }
  return false;
}

/**
 * Whether redactBody could change a text; false only when it surely returns it as it is: no
 * escape (a name may be spelled `"\u0074oken"`), no query and no password of a URL (the secrets a
 * URL holds), and no word of a secret name or header map anywhere in the text once lower-cased
 * and stripped to letters and digits. A text holding none of these has no member, setting,
 * pair or URL that redactBody shortens, so it is not scanned token by token.
 */
function mayHoldSecret(text: string): boolean {
  if (text.includes('\\') || text.includes('?') || (text.includes('@') && text.includes('://'))) return true;
  return holdsSecretWord(text);
}

/**
 * Whether a header, member or parameter of this name holds a credential.
 *
 * @example isSecretName('X-Api-Key') // true
 * @example isSecretName('tokens') // false (usage tokens are a count)
 */
export function isSecretName(name: string): boolean {
  const plain = normalized(name);
  return SECRET_WORDS.test(plain) || SECRET_ENDINGS.test(plain);
}

/**
 * A secret shortened to at most six of its first characters and never more than a quarter of
 * it, so a short one shows nothing. A value already shortened stays as it is (entries are
 * shortened again when they go round a shared store's feed).
 *
 * @example shortenSecret('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30.c2ln') // 'eyJhbG…'
 * @example shortenSecret('key-1234') // 'ke…'
 */
export function shortenSecret(value: string): string {
  if (isShortened(value)) return value;
  const characters = [...value];
  return `${characters.slice(0, Math.min(KEPT, Math.floor(characters.length / 4))).join('')}${REDACTED_MARK}`;
}

/** A value shortenSecret made: at most KEPT characters and the mark. */
function isShortened(value: string): boolean {
  return value.endsWith(REDACTED_MARK) && [...value].length <= KEPT + 1;
}

/**
 * An Authorization value: a known scheme is kept, the credential shortened. Anything else — no
 * scheme, or a token followed by a word (`<token> Bearer`) — is shortened whole.
 *
 * @example redactCredential('Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig') // 'Bearer eyJhbG…'
 * @example redactCredential('eyJhbGciOiJIUzI1NiJ9.e30.sig Bearer') // 'eyJhbG…'
 */
export function redactCredential(value: string): string {
  const scheme = AUTH_SCHEME.exec(value)?.[0];
  return scheme ? `${scheme}${shortenSecret(value.slice(scheme.length))}` : shortenSecret(value);
}

/**
 * A header's value as the control plane shows it.
 *
 * @example redactHeader('authorization', 'Basic c2hpcG1vY2s6c2VjcmV0') // 'Basic c2hpcG…'
 * @example redactHeader('cookie', 'sid=abcdefgh; theme=dark') // 'sid=ab…; theme=da…'
 * @example redactHeader('content-type', 'application/json') // unchanged
 */
export function redactHeader(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization') return redactCredential(value);
  // Each cookie's value; of a Set-Cookie only the first pair (Path, Expires and the rest are attributes).
  const cookie = (_all: string, head: string, v: string) => head + shortenSecret(v);
  if (lower === 'cookie') return value.replace(/([^=;\s]+=)([^;]*)/g, cookie);
  if (lower === 'set-cookie') return value.replace(/^(\s*[^=;\s]+=)([^;]*)/, cookie);
  if (isSecretName(lower)) return redactCredential(value);
  return URL_LIKE.test(value) ? redactUrl(value) : value;
}

/** What redactHeader does with a header name: the name is judged once per redactor, not per message. */
type HeaderKind = 'credential' | 'cookie' | 'set-cookie' | 'plain';

/**
 * redactHeader, remembering what it learned: a name's kind is judged once, and the last value of
 * each credential header with its shortened form (a client sends the same token with every
 * request, and a recorder meets it in every exchange). The same results as redactHeader.
 *
 * @example const redact = createHeaderRedactor(); redact('Authorization', 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig') // 'Bearer eyJhbG…'
 */
export function createHeaderRedactor(): (name: string, value: string) => string {
  const known = new Map<string, { kind: HeaderKind; value?: string; shown?: string }>();
  return (name, value) => {
    let header = known.get(name);
    if (!header) {
      // Bounded: names come from the traffic.
      if (known.size >= 1000) known.clear();
      const lower = name.toLowerCase();
      const kind: HeaderKind = lower === 'cookie' ? 'cookie' : lower === 'set-cookie' ? 'set-cookie' : lower === 'authorization' || lower === 'proxy-authorization' || isSecretName(lower) ? 'credential' : 'plain';
      known.set(name, (header = { kind }));
    }
    if (header.kind === 'plain') return URL_LIKE.test(value) ? redactUrl(value) : value;
    if (header.value !== value) {
      header.shown = redactHeader(name, value);
      header.value = value;
    }
    return header.shown!;
  };
}

/** Every header of a message, shortened where it is a credential. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = redactHeader(name, value);
  return out;
}

/**
 * A query string (or form body): the values of secret-named parameters shortened, the rest as sent.
 *
 * @example redactQuery('page=2&access_token=eyJhbGciOiJIUzI1NiJ9') // 'page=2&access_token=eyJhbG…'
 */
export function redactQuery(query: string): string {
  // The journal calls this for every request with a query: most hold no name worth a closer look.
  if (!query || !MAYBE_SECRET_QUERY.test(query.replace(/[-_.+]/g, ''))) return query;
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      const name = pair.slice(0, equals);
      const value = pair.slice(equals + 1);
      // Judged decoded: a value shortened before is percent-encoded once it is in a URL
      // (`ab%E2%80%A6`), and shortening it again would change a recording's key on every pass.
      if (isSecretName(decodeLoosely(name))) return isShortened(decodeLoosely(value)) ? pair : `${name}=${shortenSecret(value)}`;
      const decoded = decodeLoosely(value);
      return URL_LIKE.test(decoded) && redactUrl(decoded) !== decoded ? `${name}=${encodeURIComponent(redactUrl(decoded))}` : pair;
    })
    .join('&');
}

/**
 * A URL (or a path with a query) with its password and secret query parameters shortened.
 *
 * @example redactUrl('https://hook:s3cr3t-pass@example.com/in?token=abcdefgh') // 'https://hook:s3…@example.com/in?token=ab…'
 */
export function redactUrl(url: string): string {
  // Without a query or userinfo there is nothing to shorten (every request a recorder keeps is looked at).
  if (!url.includes('?') && !url.includes('@')) return url;
  const match = /^(?:([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*@)?)?([^?#]*)(\?[^#]*)?(#.*)?$/is.exec(url);
  if (!match) return url;
  const [, scheme = '', userinfo = '', rest, query = '', fragment = ''] = match;
  const colon = userinfo.indexOf(':');
  const user = colon < 0 ? userinfo : `${userinfo.slice(0, colon + 1)}${shortenSecret(userinfo.slice(colon + 1, -1))}@`;
  return `${scheme}${user}${rest}${query && `?${redactQuery(query.slice(1))}`}${fragment}`;
}

/**
 * A body as the control plane shows it. JSON (by media type or by its first character) is
 * scanned as text, not parsed, so the body keeps its layout and a body cut at 16 KiB is
 * redacted too; forms like query strings; other text is searched for `name: value` and
 * `name=value` pairs of secret names.
 *
 * @example redactBody('{"accessToken":"eyJhbGciOiJIUzI1NiJ9.e30.sig","tokenType":"Bearer"}', 'application/json')
 * // '{"accessToken":"eyJhbG…","tokenType":"Bearer"}'
 */
export function redactBody(text: string, mediaType: string | undefined): string {
  const type = (mediaType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return redactQuery(text);
  if (!mayHoldSecret(text)) return text;
  if (/[/+]json$/.test(type) || /^\s*[[{]/.test(text)) return redactJsonText(text);
  return text.replace(/([A-Za-z0-9_.-]+)(["']?[ \t]*[:=][ \t]*["']?)([^\s"'&,;<>]+)/g, (all, name: string, between: string, value: string) =>
    isSecretName(name) ? `${name}${between}${redactCredential(value)}` : all,
  );
}

/**
 * A JSON value with every credential in it shortened: members of secret names (all strings
 * inside them when they hold an object or array), the values of header maps, `{key, value}`
 * settings whose key is a secret name, passwords and secret parameters of URLs.
 *
 * @example redactJson({ webhook: { url: 'https://x.test/in', secret: 'whsec_9f86d081884c7d65', headers: { 'X-Api-Key': 'key-1234' } } })
 * // { webhook: { url: 'https://x.test/in', secret: 'whsec_…', headers: { 'X-Api-Key': 'ke…' } } }
 */
export function redactJson<T>(value: T): T {
  return walk(value, false) as T;
}

function walk(value: unknown, secret: boolean): unknown {
  if (typeof value === 'string') return secret ? shortenSecret(value) : URL_LIKE.test(value) ? redactUrl(value) : value;
  if (secret && (typeof value === 'number' || typeof value === 'boolean')) return shortenSecret(String(value));
  if (Array.isArray(value)) return value.map((item) => walk(item, secret));
  if (!value || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const setting = typeof record.key === 'string' && isSecretName(record.key);
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(record)) {
    const inner = secret || isSecretName(name) || (setting && name === 'value');
    out[name] = HEADER_MAPS.has(normalized(name)) && member && typeof member === 'object' ? walk(member, true) : walk(member, inner);
  }
  return out;
}

interface Frame {
  array: boolean;
  /** Everything inside is a credential (a secret member's object, a header map). */
  secret: boolean;
  /** Objects: the member name last read, and whether a value is expected next. */
  name?: string;
  afterColon?: boolean;
  /** A settings entry: its `key` member, and the span of its `value` member (the order is free). */
  key?: string;
  valueSpan?: [number, number, string];
}

/**
 * JSON text with its credentials shortened, scanned token by token so that layout is kept and a
 * truncated or invalid body is handled as far as it goes. Strings are decoded before their names
 * are judged, so `"access\u0054oken"` is a token too.
 */
function redactJsonText(text: string): string {
  // Member names repeat (a list of 100 objects has 100 `name`s): judged once each.
  const judged = new Map<string, boolean>();
  const secretName = (name: string) => {
    let secret = judged.get(name);
    if (secret === undefined) judged.set(name, (secret = isSecretName(name)));
    return secret;
  };
  const edits: [number, number, string][] = [];
  const stack: Frame[] = [{ array: true, secret: false }];
  const top = () => stack[stack.length - 1];
  const settle = (frame: Frame) => {
    if (frame.valueSpan && frame.key !== undefined && secretName(frame.key)) edits.push([frame.valueSpan[0], frame.valueSpan[1], JSON.stringify(shortenSecret(frame.valueSpan[2]))]);
  };
  /** A scalar value at [start, end) read in the current frame. */
  const scalar = (start: number, end: number, decoded: string, isString: boolean) => {
    const frame = top();
    const name = frame.array ? undefined : frame.name;
    const secret = frame.secret || (name !== undefined && secretName(name));
    if (secret) edits.push([start, end, JSON.stringify(shortenSecret(decoded))]);
    else if (isString && URL_LIKE.test(decoded) && redactUrl(decoded) !== decoded) edits.push([start, end, JSON.stringify(redactUrl(decoded))]);
    if (!frame.array && name === 'key' && isString) frame.key = decoded;
    if (!frame.array && name === 'value' && !secret) frame.valueSpan = [start, end, decoded];
    frame.afterColon = false;
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      const decoded = decodeJsonString(text.slice(i, end));
      const frame = top();
      if (!frame.array && !frame.afterColon) frame.name = decoded;
      else scalar(i, end, decoded, true);
      i = end;
    } else if (c === '{' || c === '[') {
      const frame = top();
      const name = frame.array ? undefined : frame.name;
      const secret = frame.secret || (name !== undefined && (secretName(name) || (c === '{' && HEADER_MAPS.has(normalized(name)))));
      frame.afterColon = false;
      stack.push({ array: c === '[', secret });
      i++;
    } else if (c === '}' || c === ']') {
      if (stack.length > 1) settle(stack.pop()!);
      i++;
    } else if (c === ':') {
      top().afterColon = true;
      i++;
    } else if (c === ',') {
      top().afterColon = false;
      i++;
    } else if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
    } else {
      // A number, true, false, null, or anything else up to the next structural character.
      LITERAL.lastIndex = i;
      LITERAL.test(text);
      const end = Math.max(LITERAL.lastIndex, i + 1);
      scalar(i, end, text.slice(i, end), false);
      i = end;
    }
  }
  // A body cut short: settings entries still open are judged on what arrived.
  while (stack.length > 1) settle(stack.pop()!);
  edits.sort((a, b) => b[0] - a[0]);
  let out = text;
  for (const [start, end, replacement] of edits) out = out.slice(0, start) + replacement + out.slice(end);
  return out;
}

/** Everything up to the next structural character or whitespace (sticky: matched where lastIndex points). */
const LITERAL = /[^\s,:{}[\]"]*/y;
/** A JSON string from its opening quote: escapes skipped, the closing quote optional (a cut text). */
const STRING = /"(?:[^"\\]|\\[\s\S])*\\?"?/y;

/** Index just past the string that opens at `start` (its closing quote, or the end of a cut text). */
function stringEnd(text: string, start: number): number {
  STRING.lastIndex = start;
  STRING.test(text);
  return Math.max(STRING.lastIndex, start + 1);
}

/** The value of a JSON string token; an unterminated or malformed one as its raw characters. */
function decodeJsonString(token: string): string {
  if (!token.includes('\\') && token.length >= 2 && token.endsWith('"')) return token.slice(1, -1);
  try {
    return JSON.parse(token) as string;
  } catch {
    return token.replace(/^"|"$/g, '');
  }
}

function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
