import type { Entry, Har, Header } from 'har-format';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { toViolations } from '../contract/validators.js';
import type { Violation } from '../errors/problem.js';
import { lazyModule } from '../util/lazy-module.js';
import { headerOf, redactExchange, type Exchange } from './exchange.js';

const ajvModule = lazyModule<typeof import('ajv/dist/2020.js')>('ajv/dist/2020.js');

/** A HAR document that cannot be read: each violation names its field (`har/log/entries/3/request/url`). */
export class HarError extends Error {
  constructor(
    message: string,
    readonly violations: Violation[],
  ) {
    super(violations.length ? `${message}: ${violations.map((v) => `${v.field} ${v.message}`).join('; ')}` : message);
    this.name = 'HarError';
  }
}

/** An entry left out of a conversion, and why (an aborted request, a body the HAR does not hold). */
export interface SkippedEntry {
  entry: number;
  reason: string;
}

/** Entries of one HAR at most (a recorded scenario holds at most 100,000 distinct requests). */
export const MAX_HAR_ENTRIES = 200_000;

/**
 * The part of HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) that a conversion reads,
 * as a JSON Schema: what a browser's devtools, Chromium's recordHar, other tools and
 * GET /__admin/journal.har write. Members it does not read (timings, cache, cookies, custom
 * `_fields`) may be anything, so HARs of every producer import; what it reads must have its
 * HAR type. har-validator, the usual checker, is unmaintained ("no longer supported").
 */
const nameValue = { type: 'object', required: ['name', 'value'], properties: { name: { type: 'string' }, value: { type: 'string' } } };
const HAR_SCHEMA = {
  type: 'object',
  required: ['log'],
  properties: {
    log: {
      type: 'object',
      required: ['entries'],
      properties: {
        version: { type: 'string' },
        entries: {
          type: 'array',
          maxItems: MAX_HAR_ENTRIES,
          items: {
            type: 'object',
            required: ['request', 'response'],
            properties: {
              startedDateTime: { type: 'string', maxLength: 64 },
              time: { type: 'number' },
              request: {
                type: 'object',
                required: ['method', 'url', 'headers'],
                properties: {
                  method: { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}$" },
                  url: { type: 'string', minLength: 1, maxLength: 65536 },
                  headers: { type: 'array', items: nameValue },
                  postData: {
                    type: 'object',
                    properties: {
                      mimeType: { type: 'string' },
                      text: { type: 'string' },
                      params: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string' } } } },
                    },
                  },
                },
              },
              response: {
                type: 'object',
                required: ['status', 'headers', 'content'],
                properties: {
                  status: { type: 'integer' },
                  statusText: { type: 'string' },
                  headers: { type: 'array', items: nameValue },
                  content: {
                    type: 'object',
                    properties: {
                      size: { type: 'number' },
                      mimeType: { type: 'string' },
                      text: { type: 'string' },
                      encoding: { type: 'string' },
                    },
                  },
                },
              },
              _shipmock: {
                type: 'object',
                properties: {
                  operationId: { type: 'string' },
                  conforms: { type: 'boolean' },
                  violations: { type: 'array', items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } } },
                  incomplete: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

let validator: ValidateFunction | undefined;
function validateHar(value: unknown): Violation[] {
  if (!validator) {
    const { Ajv2020 } = ajvModule();
    validator = new Ajv2020({ allErrors: true, strict: false }).compile(HAR_SCHEMA);
  }
  if (validator(value)) return [];
  // One field per problem, at most 20: a broken HAR of 10,000 entries would otherwise list each.
  const seen = new Set<string>();
  return toViolations(validator.errors, 'har')
    .filter((v) => !seen.has(v.field) && seen.add(v.field))
    .slice(0, 20);
}

/** Whether a parsed document is a HAR (a `log` holding `entries`), as opposed to a scenario. */
export function isHar(value: unknown): boolean {
  const log = (value as { log?: unknown } | null)?.log;
  return typeof value === 'object' && value !== null && typeof log === 'object' && log !== null && 'entries' in log;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The exchanges of a HAR 1.2 document, in the order of its entries, secrets shortened
 * (redactExchange). Entries without an answer (status 0: aborted, blocked), without an http(s)
 * URL, or whose answer body the HAR does not hold are skipped and listed, not guessed.
 * A document that is not a HAR (wrong types, a body that is not base64 though it says so)
 * throws HarError naming each field; nothing is converted then.
 *
 * @example
 * const { exchanges, skipped } = harToExchanges(JSON.parse(readFileSync('session.har', 'utf8')));
 */
export function harToExchanges(har: unknown): { exchanges: Exchange[]; skipped: SkippedEntry[] } {
  const violations = validateHar(har);
  if (violations.length) throw new HarError('not a HAR 1.2 document', violations);
  const entries = (har as Har).log.entries as (Entry & { _shipmock?: ShipmockEntryFields })[];
  const exchanges: Exchange[] = [];
  const skipped: SkippedEntry[] = [];
  const bad: Violation[] = [];
  entries.forEach((entry, i) => {
    const at = `har/log/entries/${i}`;
    const { request, response } = entry;
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      bad.push({ field: `${at}/request/url`, message: 'must be an absolute URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return void skipped.push({ entry: i, reason: `not an HTTP request (${url.protocol})` });
    if (response.status < 100 || response.status > 599) return void skipped.push({ entry: i, reason: `no answer (status ${response.status}: aborted or blocked)` });
    const marks = entry._shipmock ?? {};
    if (marks.incomplete) return void skipped.push({ entry: i, reason: `not an exact recording: ${marks.incomplete.slice(0, 200)}` });
    const content = response.content ?? { size: 0, mimeType: '' };
    let body: string | Buffer | undefined;
    if (content.text !== undefined && content.text.length > 0) {
      if (content.encoding === 'base64') {
        const compact = content.text.replace(/\s+/g, '');
        if (compact.length % 4 !== 0 || !BASE64.test(compact)) {
          bad.push({ field: `${at}/response/content/text`, message: 'is not base64, though encoding says so' });
          return;
        }
        body = Buffer.from(compact, 'base64');
      } else if (content.encoding !== undefined && content.encoding !== '') {
        bad.push({ field: `${at}/response/content/encoding`, message: `is ${content.encoding.slice(0, 40)}; a HAR body is text or base64` });
        return;
      } else body = content.text;
    } else if ((content.size ?? 0) > 0 && response.status !== 304) {
      return void skipped.push({ entry: i, reason: 'the HAR does not hold the answer body (saved without content)' });
    }
    exchanges.push(
      redactExchange({
        request: { method: request.method.toUpperCase(), url: request.url, headers: headerRecord(request.headers), body: requestBody(request.postData) },
        response: { status: response.status, ...(response.statusText ? { statusText: response.statusText } : {}), headers: headerRecord(response.headers), body },
        ...(typeof marks.conforms === 'boolean' ? { verdict: { conforms: marks.conforms, violations: marks.violations ?? [] } } : {}),
        ...(entry.startedDateTime ? { startedAt: entry.startedDateTime } : {}),
        ...(typeof entry.time === 'number' && entry.time >= 0 ? { durationMs: entry.time } : {}),
        ...(marks.operationId ? { operationId: marks.operationId } : {}),
      }),
    );
  });
  if (bad.length) throw new HarError('the HAR holds entries that cannot be read', bad.slice(0, 20));
  return { exchanges, skipped };
}

/** What shipmock adds to the HAR entries it writes (custom fields start with `_`, HAR 1.2). */
export interface ShipmockEntryFields {
  operationId?: string;
  /** The contract's verdict on the exchange. */
  conforms?: boolean;
  violations?: { field: string; message: string }[];
  /** Why the entry is not an exact recording (a body the journal cut at 16 KiB or did not keep); such entries are not converted. */
  incomplete?: string;
}

function headerRecord(headers: Header[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of headers) {
    // HTTP/2 pseudo-headers (:authority, :path) are not headers of the exchange.
    if (name.startsWith(':')) continue;
    const existing = Object.keys(out).find((k) => k.toLowerCase() === name.toLowerCase());
    if (existing === undefined) out[name] = value;
    else out[existing] = `${out[existing]}${name.toLowerCase() === 'set-cookie' ? '\n' : ', '}${value}`;
  }
  return out;
}

function requestBody(postData: Entry['request']['postData']): string | undefined {
  if (!postData) return undefined;
  if (postData.text !== undefined) return postData.text || undefined;
  const params = (postData as { params?: { name: string; value?: string }[] }).params;
  if (!params?.length) return undefined;
  return new URLSearchParams(params.map((p) => [p.name, p.value ?? ''])).toString();
}

/** The creator every HAR shipmock writes names. */
export const HAR_CREATOR = { name: 'shipmock', version: '1' };

/**
 * A HAR 1.2 entry for an exchange, secrets shortened (redactExchange): text bodies as text,
 * bytes as base64. The contract's verdict and the operation go in the custom `_shipmock` field.
 *
 * @example JSON.stringify({ log: { version: '1.2', creator: HAR_CREATOR, entries: exchanges.map((e) => exchangeToHarEntry(e)) } })
 */
export function exchangeToHarEntry(raw: Exchange, marks: Omit<ShipmockEntryFields, 'operationId' | 'conforms' | 'violations'> = {}): Entry & { _shipmock?: ShipmockEntryFields } {
  const exchange = redactExchange(raw);
  const { request, response } = exchange;
  const url = new URL(request.url);
  const requestType = headerOf(request.headers, 'content-type');
  const responseType = headerOf(response.headers, 'content-type') ?? '';
  const responseBytes = response.body === undefined ? 0 : typeof response.body === 'string' ? Buffer.byteLength(response.body) : response.body.length;
  const requestBytes = request.body === undefined ? 0 : typeof request.body === 'string' ? Buffer.byteLength(request.body) : request.body.length;
  // Built member by member (no spreads of throw-away objects): this runs for every exchange a recorder keeps.
  // The members' order is the order they are written in: keep it.
  const shipmock: ShipmockEntryFields = {};
  if (exchange.operationId) shipmock.operationId = exchange.operationId;
  if (exchange.verdict) {
    shipmock.conforms = exchange.verdict.conforms;
    shipmock.violations = exchange.verdict.violations;
  }
  Object.assign(shipmock, marks);
  const harRequest: Partial<Entry['request']> = {
    method: request.method,
    url: url.href,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: headerList(request.headers),
    queryString: url.search ? [...url.searchParams].map(([name, value]) => ({ name, value })) : [],
  };
  if (request.body !== undefined && requestBytes > 0) {
    harRequest.postData = { mimeType: requestType ?? 'application/octet-stream', text: typeof request.body === 'string' ? request.body : request.body.toString('base64') };
  }
  harRequest.headersSize = -1;
  harRequest.bodySize = requestBytes;
  const content: Entry['response']['content'] = { size: responseBytes, mimeType: responseType };
  if (response.body !== undefined && responseBytes > 0) {
    if (typeof response.body === 'string') content.text = response.body;
    else {
      content.text = response.body.toString('base64');
      content.encoding = 'base64';
    }
  }
  const entry: Entry & { _shipmock?: ShipmockEntryFields } = {
    startedDateTime: exchange.startedAt ?? EPOCH,
    time: exchange.durationMs ?? 0,
    request: harRequest as Entry['request'],
    response: {
      status: response.status,
      statusText: response.statusText ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(response.headers),
      content,
      redirectURL: headerOf(response.headers, 'location') ?? '',
      headersSize: -1,
      bodySize: responseBytes,
    },
    cache: {},
    timings: { send: 0, wait: exchange.durationMs ?? 0, receive: 0 },
  };
  if (Object.keys(shipmock).length) entry._shipmock = shipmock;
  return entry;
}

/** An exchange's start when it has none. */
const EPOCH = new Date(0).toISOString();

function headerList(headers: Record<string, string>): Header[] {
  // A plain loop: this runs for both messages of every recorded exchange.
  const list: Header[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (name.length === 10 && name.toLowerCase() === 'set-cookie') for (const v of value.split('\n')) list.push({ name, value: v });
    else list.push({ name, value });
  }
  return list;
}

/**
 * A streamed HAR document: the text it starts with (entries follow, comma-separated), the text
 * it ends with, and the document without entries (what the envelope alone must satisfy).
 */
export function harDocumentParts(comment?: string): { head: string; tail: string; envelope: Har } {
  const envelope: Har = { log: { version: '1.2', creator: HAR_CREATOR, ...(comment ? { comment } : {}), entries: [] } };
  const text = JSON.stringify(envelope);
  const open = text.lastIndexOf('[]');
  return { head: text.slice(0, open + 1), tail: `${text.slice(open + 1)}\n`, envelope };
}
