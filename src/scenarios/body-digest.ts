import { createHash } from 'node:crypto';
import { redactBody, redactQuery } from '../util/redact.js';

/** Media types whose bodies are text (the rest are hashed as bytes). */
const TEXT_TYPE = /^(text\/|application\/([\w.+-]*\+)?(json|yaml|xml|x-zpl|x-www-form-urlencoded)\b)/i;
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;

/**
 * The canonical form of a request body that decides a recorded answer (`match.bodySha256`):
 * secrets shortened first by the control plane's one redaction function (so a recording that
 * never held the secret matches the request that carries it), then JSON in RFC 8785 form (key
 * order and spacing do not matter), a form's parameters sorted by name, other text as it is, and
 * bytes as bytes. Undefined for an empty body.
 *
 * @example canonicalBody('{"b":1, "a":"x"}', 'application/json') // '{"a":"x","b":1}'
 */
export function canonicalBody(body: Buffer | string | undefined, contentType: string | undefined): Buffer | string | undefined {
  if (body === undefined || body.length === 0) return undefined;
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const text = typeof body === 'string' ? body : TEXT_TYPE.test(type) || type === '' ? body.toString('utf8') : undefined;
  if (text === undefined) return body;
  return canonicalRedactedText(redactBody(text, type || undefined), type);
}

/**
 * canonicalBody of a text body whose secrets are shortened already (`redacted`: redactBody of the
 * body as sent, as a recording keeps it), for one who has that at hand: the canonical form starts
 * from it. `contentType` as sent, or already lower-cased without parameters.
 *
 * @example canonicalRedactedText(redactBody(text, type), type) === canonicalBody(text, type)
 */
export function canonicalRedactedText(redacted: string, contentType: string | undefined): string {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    const pairs = [...new URLSearchParams(redacted)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return new URLSearchParams(pairs).toString();
  }
  if (JSON_TYPE.test(type) || /^\s*[[{]/.test(redacted)) {
    try {
      return canonicalJson(JSON.parse(redacted));
    } catch {
      return redacted;
    }
  }
  return redacted;
}

const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * The RFC 8785 (JCS) text of a parsed JSON value: members sorted by their names' UTF-16 code
 * units, numbers and strings as ECMAScript's JSON.stringify writes them. The same text as the
 * `canonicalize` package (which a recorded rule's digest was first made with), and it throws where
 * that throws — a string with a lone surrogate, a number JSON cannot hold (`1e400`) — so a body
 * holding one is hashed as its text, as before; without a Set, array and template per value.
 *
 * @example canonicalJson(JSON.parse('{"b":[1,2e0],"a":"x"}')) // '{"a":"x","b":[1,2]}'
 */
export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      if (!isWellFormed(value)) throw new Error('a lone surrogate has no canonical form');
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`${value} has no canonical form`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += `${i ? ',' : ''}${canonicalJson(value[i])}`;
        return `${out}]`;
      }
      const record = value as Record<string, unknown>;
      const names = Object.keys(record).sort();
      let out = '{';
      for (let i = 0; i < names.length; i++) out += `${i ? ',' : ''}${canonicalJson(names[i])}:${canonicalJson(record[names[i]])}`;
      return `${out}}`;
    }
    default:
      throw new Error(`a ${typeof value} is not JSON`);
  }
}

/** SHA-256 (hex) of canonicalBody; undefined for an empty body. */
export function bodySha256(body: Buffer | string | undefined, contentType: string | undefined): string | undefined {
  const canonical = canonicalBody(body, contentType);
  return canonical === undefined ? undefined : createHash('sha256').update(canonical).digest('hex');
}

/**
 * A query as `match.query` compares it: parameter → value (a list when repeated), decoded.
 *
 * @example queryRecord('b=2&a=1&a=3') // { b: '2', a: ['1', '3'] }
 */
export function queryRecord(search: URLSearchParams | string): Record<string, string | string[]> {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search;
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    const existing = out[name];
    out[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/** A query in one spelling whatever the parameters' order (values of a repeated one keep theirs): the index key of `match.query`. */
export function canonicalQuery(query: Record<string, string | string[]>): string {
  return Object.keys(query)
    .sort()
    .map((name) => {
      const value = query[name];
      return (Array.isArray(value) ? value : [value]).map((v) => `${encodeURIComponent(name)}=${encodeURIComponent(v)}`).join('&');
    })
    .join('&');
}

/** A request's query as recorded rules see it: secret parameters shortened (as in a recording), then as queryRecord. */
export function requestQuery(search: URLSearchParams | string): Record<string, string | string[]> {
  return queryRecord(redactQuery(typeof search === 'string' ? search.replace(/^\?/, '') : search.toString()));
}
