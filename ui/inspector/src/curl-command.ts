// A request as a shell command the user can paste: whatever bytes a journaled request holds (any
// client, or any web page — the API is CORS-open — can send them), pasting the command runs
// nothing but curl, with exactly those bytes. Pure: no DOM, so a property test can run what it
// builds through bash (test/api/curl-command.test.ts).

/** The parts of a request the command sends. */
export interface CurlRequest {
  method: string;
  url: string;
  /** Name and value, in order; repeated names allowed. */
  headers: [string, string][];
  body?: string;
}

export interface CurlCommand {
  command: string;
  /**
   * The request held NUL characters (a body can): no program argument can carry one (argv
   * strings end at NUL), so they were left out of the command and the user is told so.
   */
  droppedNul: boolean;
}

/**
 * Characters that are never written raw: C0 controls and DEL (a newline or carriage return
 * ends a pasted line; outside bracketed paste, readline treats Ctrl-A, ESC sequences and others
 * as editing keys that could move the cursor out of the quotes), C1 controls (8-bit CSI and the
 * like, which some terminals obey) and the Unicode line separators and bidirectional overrides
 * (they make the command read differently from what runs). They are spelled as bytes in ANSI-C
 * quoting, `$'\xHH'` (bash, zsh, ksh, POSIX.1-2024 sh), which means the same in every locale.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/gu;

/** Header names the command leaves to curl (it sets them itself, right for the command it runs). */
const LEFT_TO_CURL = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'user-agent', 'transfer-encoding']);

/** Schemes of an Authorization value kept before the placeholder (IANA HTTP Authentication Schemes, and common ones). */
const AUTH_SCHEMES = /^(basic|bearer|concealed|digest|dpop|gnap|hoba|mutual|negotiate|ntlm|oauth|privatetoken|scram-sha-1|scram-sha-256|vapid|token|apikey|aws4-hmac-sha256) /i;

/** Words bash reads as themselves unquoted (a method such as POST): left bare to read easily. */
const BARE = /^[A-Za-z0-9_-]+$/;

/**
 * One shell word that stands for exactly `text`: single quotes (in which bash reads every byte as
 * itself, `$`, backticks, `\`, `!` and `"` included), a quote as `'\''`, and unprintable runs as
 * `$'\xHH…'`. NUL cannot be passed and is left out: callers check for it first.
 *
 * @example shellWord("it's $(id)") // 'it'\''s $(id)'
 */
export function shellWord(text: string): string {
  if (BARE.test(text)) return text;
  let out = '';
  let quoted = '';
  const flush = () => {
    if (quoted) out += `'${quoted.replace(/'/g, `'\\''`)}'`;
    quoted = '';
  };
  let last = 0;
  for (const match of text.matchAll(UNPRINTABLE)) {
    quoted += text.slice(last, match.index);
    flush();
    const bytes = [...new TextEncoder().encode(match[0].replace(/\u0000/g, ''))];
    if (bytes.length) out += `$'${bytes.map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')}'`;
    last = match.index + match[0].length;
  }
  quoted += text.slice(last);
  flush();
  return out || `''`;
}

const hasNul = (text: string) => text.includes('\u0000');

/**
 * The request as a curl command. Authorization is never in the journal whole (it is shortened
 * there), so the command sends `$TOKEN` in its place — the only text outside single quotes is
 * the fixed `"$TOKEN"`, never a byte of the request — after the scheme when it is a known one.
 *
 * @example
 * curlCommand({ method: 'GET', url: 'http://127.0.0.1:4010/v1/addresses', headers: [['authorization', 'Bearer eyJhbG…']] }).command
 * // curl -i -X GET 'http://127.0.0.1:4010/v1/addresses' --globoff -H 'authorization: Bearer '"$TOKEN"
 */
export function curlCommand(request: CurlRequest): CurlCommand {
  let droppedNul = false;
  const word = (text: string) => {
    if (hasNul(text)) droppedNul = true;
    return shellWord(text.replace(/\u0000/g, ''));
  };
  // --globoff: curl would read [1-9] and {a,b} in a URL as patterns and send several requests.
  const parts = ['curl', '-i', '-X', word(request.method), word(request.url), '--globoff'];
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    if (LEFT_TO_CURL.has(lower) || lower.startsWith('sec-')) continue;
    if (lower === 'authorization') {
      const scheme = AUTH_SCHEMES.exec(value)?.[0] ?? '';
      parts.push('-H', `${word(`${name}: ${scheme}`)}"$TOKEN"`);
    } else {
      parts.push('-H', word(`${name}: ${value}`));
    }
  }
  if (request.body !== undefined && request.body !== '') parts.push('--data-raw', word(request.body));
  return { command: parts.join(' '), droppedNul };
}
