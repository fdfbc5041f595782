import type { OutgoingHttpHeaders } from 'node:http';
import { mediaTypeOf } from '../contract/gate.js';
import type { Violation } from '../errors/problem.js';
import { redactBody, redactHeader } from '../util/redact.js';

/** Bytes of each body the journal keeps: enough to read an answer, small enough to keep thousands. */
export const EXCHANGE_BODY_LIMIT = 16 * 1024;

/** What the inspector shows of one side of an exchange: headers and the start of the body. */
export interface JournalMessage {
  headers: Record<string, string>;
  /** UTF-8 text of the body, cut at EXCHANGE_BODY_LIMIT bytes; absent for binary or empty bodies. */
  body?: string;
  bodyBytes: number;
  /** The body was longer than the journal keeps. */
  bodyTruncated?: boolean;
  /** Media type of a body that is not text (a PDF, a PNG): not kept. */
  binary?: string;
}

/** A request and its answer, and every contract violation of either. */
export interface JournalExchange {
  request: JournalMessage;
  response?: JournalMessage;
  violations: { request: Violation[]; response: Violation[] };
}

/** What the pipeline hands over: references only; the ring copies what it keeps. */
export interface ExchangeInput {
  /** The request's headers as received: name, value, name, value… (IncomingMessage#rawHeaders). */
  requestHeaders: string[];
  requestBody?: Buffer;
  /**
   * The answer's header block as written ("HTTP/1.1 200 OK\r\nName: value\r\n…"), or its headers;
   * undefined when no answer was written (the connection went first).
   */
  responseHeaders?: string | OutgoingHttpHeaders;
  responseBody?: Buffer | string;
  /** Content-Type of the request and of the answer, as sent (parameters allowed). */
  requestType?: string;
  responseType?: string;
  requestViolations?: Violation[];
  responseViolations?: Violation[];
}

const TEXT_TYPE = /^(text\/|application\/([\w.+-]*\+)?(json|yaml|xml|x-zpl|x-www-form-urlencoded)\b)/i;
// Separators that cannot occur in header names or values (Node refuses control characters in both).
const FIELD = '\u0001';
/** Fixed part of a record: total length, three head lengths, two copied body lengths, two body sizes, flags. */
const FIXED = 4 * 8 + 1;
const REQUEST_TRUNCATED = 1;
const RESPONSE_TRUNCATED = 2;
const HAS_RESPONSE = 4;

/** A response's headers as a header block, when they did not come as one. */
function responseHeaderText(headers: string | OutgoingHttpHeaders): string {
  if (typeof headers === 'string') return headers;
  let out = 'HTTP/1.1\r\n';
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out += `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}\r\n`;
  return out;
}

/** Raw request headers back as an object: names in lower case, repeated ones joined, secrets shortened (src/util/redact.ts). */
function parseRawHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const parts = text ? text.split(FIELD) : [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const name = parts[i].toLowerCase();
    const value = redactHeader(name, parts[i + 1]);
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

function parseHeaderBlock(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  // The first line is the status line.
  for (const line of text.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = redactHeader(name, value);
  }
  return headers;
}

/** The media type of a Content-Type value; a body sent without one counts as bytes. */
const mediaTypeOrBytes = (contentType: string | undefined) => mediaTypeOf(contentType) || 'application/octet-stream';

/**
 * The journal's memory of exchanges: one fixed block of bytes written round and round. A request
 * costs a copy of its headers and the start of its bodies into the block (about 2 µs), and no
 * objects that outlive it — under a load test, objects kept per request would survive the young generation
 * and make every collection dearer (a quarter of the throughput, measured). Old exchanges are
 * overwritten by new ones: `read` of a position the block has moved past answers undefined.
 *
 * @example
 * const ring = new ExchangeRing(4 << 20);
 * const at = ring.write({ requestHeaders: req.headers, requestBody });
 * ring.read(at)?.request.body
 */
export class ExchangeRing {
  private block: Buffer | undefined;
  /** Bytes ever written (with the skips at the end of the block): position `p` lives at `p % capacity`. */
  private written = 0;

  constructor(readonly capacity: number) {}

  /** Keeps an exchange; answers its position, or -1 when it cannot be kept. */
  write(input: ExchangeInput): number {
    // Header text goes in as latin1, byte for byte as it came off the wire (the fastest copy);
    // secrets (in headers and bodies) are shortened when read, so nothing is built per request
    // but one joined string: no read of the ring gives one back whole.
    const requestHead = input.requestHeaders.join(FIELD);
    const requestType = input.requestBody?.length ? mediaTypeOrBytes(input.requestType) : undefined;
    const requestBinary = requestType !== undefined && !TEXT_TYPE.test(requestType);
    const response = input.responseHeaders;
    const responseHead = response === undefined ? '' : responseHeaderText(response);
    const responseType = response && input.responseBody !== undefined && input.responseBody.length ? mediaTypeOrBytes(input.responseType) : undefined;
    const responseBinary = responseType !== undefined && !TEXT_TYPE.test(responseType);
    // Violations and binary media types are rare: only then is there anything to serialise.
    const extra =
      input.requestViolations?.length || input.responseViolations?.length || requestBinary || responseBinary
        ? JSON.stringify([input.requestViolations ?? [], input.responseViolations ?? [], requestBinary ? requestType : '', responseBinary ? responseType : ''])
        : '';
    const requestBody = requestBinary ? undefined : input.requestBody;
    const responseBody = responseBinary ? undefined : input.responseBody;
    // Upper bound of the record: UTF-8 takes at most 3 bytes per UTF-16 unit.
    const room = FIXED + requestHead.length + responseHead.length + extra.length * 3 + Math.min(requestBody?.length ?? 0, EXCHANGE_BODY_LIMIT) + Math.min((responseBody?.length ?? 0) * 3, EXCHANGE_BODY_LIMIT);
    if (room > this.capacity / 4) return -1;
    const block = (this.block ??= Buffer.allocUnsafe(this.capacity));
    let start = this.written % this.capacity;
    if (start + room > this.capacity) {
      this.written += this.capacity - start;
      start = 0;
    }
    let at = start + FIXED;
    const requestHeadBytes = block.write(requestHead, at, 'latin1');
    at += requestHeadBytes;
    const responseHeadBytes = block.write(responseHead, at, 'latin1');
    at += responseHeadBytes;
    const extraBytes = extra ? block.write(extra, at) : 0;
    at += extraBytes;
    const requestCopied = requestBody ? requestBody.copy(block, at, 0, Math.min(requestBody.length, EXCHANGE_BODY_LIMIT)) : 0;
    at += requestCopied;
    // Buffer#write stops before a character that would not fit whole: the text stays valid UTF-8.
    let responseCopied = 0;
    if (typeof responseBody === 'string') responseCopied = block.write(responseBody, at, Math.min(EXCHANGE_BODY_LIMIT, block.length - at));
    else if (responseBody) responseCopied = responseBody.copy(block, at, 0, Math.min(responseBody.length, EXCHANGE_BODY_LIMIT));
    at += responseCopied;
    const requestBytes = input.requestBody?.length ?? 0;
    const responseBytes =
      input.responseBody === undefined ? 0 : typeof input.responseBody !== 'string' ? input.responseBody.length : responseCopied < EXCHANGE_BODY_LIMIT - 3 ? responseCopied : Buffer.byteLength(input.responseBody);
    let flags = response ? HAS_RESPONSE : 0;
    if (requestBody && requestCopied < requestBytes) flags |= REQUEST_TRUNCATED;
    if (responseBody !== undefined && responseCopied < responseBytes) flags |= RESPONSE_TRUNCATED;
    block.writeUInt32LE(at - start, start);
    block.writeUInt32LE(requestHeadBytes, start + 4);
    block.writeUInt32LE(responseHeadBytes, start + 8);
    block.writeUInt32LE(extraBytes, start + 12);
    block.writeUInt32LE(requestCopied, start + 16);
    block.writeUInt32LE(responseCopied, start + 20);
    block.writeUInt32LE(requestBytes, start + 24);
    block.writeUInt32LE(responseBytes, start + 28);
    block[start + 32] = flags;
    const position = this.written;
    this.written += at - start;
    return position;
  }

  /** The exchange kept at `position`, or undefined once newer ones have overwritten it. */
  read(position: number): JournalExchange | undefined {
    // Overwritten once the writer has gone a whole lap past it.
    if (position < 0 || !this.block || position >= this.written || this.written - position > this.capacity) return undefined;
    const block = this.block;
    const start = position % this.capacity;
    const [requestHeadBytes, responseHeadBytes, extraBytes, requestCopied, responseCopied, requestBytes, responseBytes] = [4, 8, 12, 16, 20, 24, 28].map((offset) => block.readUInt32LE(start + offset));
    const flags = block[start + 32];
    let at = start + FIXED;
    const take = (bytes: number, encoding: BufferEncoding) => {
      const text = block.toString(encoding, at, at + bytes);
      at += bytes;
      return text;
    };
    const requestHead = take(requestHeadBytes, 'latin1');
    const responseHead = take(responseHeadBytes, 'latin1');
    const extra = take(extraBytes, 'utf8');
    const requestText = take(requestCopied, 'utf8');
    const responseText = take(responseCopied, 'utf8');
    const [requestViolations, responseViolations, requestBinary, responseBinary] = extra ? (JSON.parse(extra) as [Violation[], Violation[], string, string]) : [[], [], '', ''];
    const message = (headers: Record<string, string>, text: string, bytes: number, binary: string, truncated: boolean): JournalMessage => ({
      headers,
      bodyBytes: bytes,
      ...(binary ? { binary } : bytes > 0 ? { body: redactBody(text, headers['content-type']) } : {}),
      ...(truncated ? { bodyTruncated: true } : {}),
    });
    return {
      request: message(parseRawHeaders(requestHead), requestText, requestBytes, requestBinary, (flags & REQUEST_TRUNCATED) !== 0),
      ...(flags & HAS_RESPONSE ? { response: message(parseHeaderBlock(responseHead), responseText, responseBytes, responseBinary, (flags & RESPONSE_TRUNCATED) !== 0) } : {}),
      violations: { request: requestViolations, response: responseViolations },
    };
  }
}
