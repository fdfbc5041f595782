import { describe, expect, it } from 'vitest';
import { EXCHANGE_BODY_LIMIT, ExchangeRing } from './exchange-ring.js';

const request = ['Host', '127.0.0.1:4010', 'Authorization', 'Bearer eyJhbGciOiJIUzI1NiJ9.payload.signature', 'Content-Type', 'application/json'];
const head = 'HTTP/1.1 201 Created\r\nX-Request-Id: r-1\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n';

describe('ExchangeRing', () => {
  it('gives back headers and bodies, secrets shortened to their scheme and six characters', () => {
    const ring = new ExchangeRing(64 * 1024);
    const at = ring.write({ requestHeaders: request, requestBody: Buffer.from('{"a":"ü"}'), requestType: 'application/json', responseHeaders: head, responseBody: '{"id":"x"}', responseType: 'application/json' });
    expect(ring.read(at)).toEqual({
      request: { headers: { host: '127.0.0.1:4010', authorization: 'Bearer eyJhbG…', 'content-type': 'application/json' }, body: '{"a":"ü"}', bodyBytes: 10 },
      response: { headers: { 'x-request-id': 'r-1', 'content-type': 'application/json', 'content-length': '9' }, body: '{"id":"x"}', bodyBytes: 10 },
      violations: { request: [], response: [] },
    });
  });

  it('keeps violations, names binary bodies without keeping them, and knows an answer that never came', () => {
    const ring = new ExchangeRing(64 * 1024);
    const violation = { field: 'body/name', message: 'must be string' };
    const at = ring.write({ requestHeaders: request, requestBody: Buffer.from([0x25, 0x50, 0xff]), requestType: 'application/pdf; x=1', requestViolations: [violation] });
    expect(ring.read(at)).toEqual({
      request: { headers: expect.any(Object), bodyBytes: 3, binary: 'application/pdf' },
      violations: { request: [violation], response: [] },
    });
  });

  it('cuts long bodies at the limit without breaking a UTF-8 character', () => {
    const ring = new ExchangeRing(1 << 20);
    const long = `"${'é'.repeat(EXCHANGE_BODY_LIMIT)}"`;
    const at = ring.write({ requestHeaders: [], responseHeaders: head, responseBody: long, responseType: 'application/json' });
    const { response } = ring.read(at)!;
    expect(response!.bodyTruncated).toBe(true);
    expect(response!.bodyBytes).toBe(Buffer.byteLength(long));
    expect(Buffer.byteLength(response!.body!)).toBeLessThanOrEqual(EXCHANGE_BODY_LIMIT);
    expect(response!.body!).not.toContain('\uFFFD');
  });

  it('forgets the oldest exchanges once newer ones have gone round the whole block', () => {
    const ring = new ExchangeRing(8 * 1024);
    const positions = Array.from({ length: 40 }, (_, i) => ring.write({ requestHeaders: ['X-N', String(i)], responseHeaders: head, responseBody: 'x'.repeat(300), responseType: 'text/plain' }));
    expect(ring.read(positions[0])).toBeUndefined();
    expect(ring.read(positions[39])?.request.headers['x-n']).toBe('39');
    const kept = positions.filter((p) => ring.read(p) !== undefined);
    // Every one still readable is intact, and they are the newest.
    expect(kept).toEqual(positions.slice(positions.length - kept.length));
    for (const p of kept) expect(ring.read(p)!.response!.body).toBe('x'.repeat(300));
    expect(ring.read(-1)).toBeUndefined();
  });

  it('refuses an exchange larger than a quarter of the block rather than overwrite everything', () => {
    const ring = new ExchangeRing(4 * 1024);
    expect(ring.write({ requestHeaders: ['X-Big', 'y'.repeat(2000)] })).toBe(-1);
  });

  it('shortens secrets with or without a scheme, in headers and in bodies (src/util/redact.ts)', () => {
    const ring = new ExchangeRing(64 * 1024);
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJsdmwiOiJDT01QQU5ZIn0.c2lnbmF0dXJl';
    const at = ring.write({
      requestHeaders: ['Authorization', `${token} Bearer`, 'X-Admin-Key', 'correct-horse-battery', 'Content-Type', 'application/json'],
      requestBody: Buffer.from('{"webhook":{"url":"https://r.test/in","secret":"whsec_9f86d081884c7d65","headers":{"X-Api-Key":"key-1234"}}}'),
      requestType: 'application/json',
      responseHeaders: head.replace('Content-Length: 9', 'Set-Cookie: sid=abcdefghijkl; Path=/'),
      responseBody: `{"accessToken":"${token}","tokenType":"Bearer"}`,
      responseType: 'application/json',
    });
    const { request: sent, response } = ring.read(at)!;
    expect(sent.headers.authorization).toBe('eyJhbG…');
    expect(sent.headers['x-admin-key']).toBe('corre…');
    expect(sent.body).toBe('{"webhook":{"url":"https://r.test/in","secret":"whsec…","headers":{"X-Api-Key":"ke…"}}}');
    expect(response!.headers['set-cookie']).toBe('sid=abc…; Path=/');
    expect(response!.body).toBe('{"accessToken":"eyJhbG…","tokenType":"Bearer"}');
  });
});
