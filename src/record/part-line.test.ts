import { describe, expect, it } from 'vitest';
import { redactExchange, type Exchange } from '../recording/index.js';
import { isPartLine, parsePartLine, partLine } from './part-line.js';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZWNyZXQtYWNjb3VudC0xMjM0NSJ9.c2lnbmF0dXJlLXNlY3JldA';

const exchange = (overrides: Partial<Exchange['request']> = {}): Exchange => ({
  request: { method: 'GET', url: `http://real.invalid/v1/addresses?access_token=${TOKEN}`, headers: { Authorization: `Bearer ${TOKEN}`, Cookie: 'sid=0123456789abcdef; theme=dark' }, ...overrides },
  response: { status: 200, statusText: 'OK', headers: { 'Content-Type': 'application/json' }, body: '{"name":"Erika … Mustermann"}' },
  verdict: { conforms: false, violations: [{ field: 'response/body/name', message: 'must be shorter' }] },
  startedAt: '2026-11-26T08:00:00.000Z',
  durationMs: 0,
  operationId: '',
});

describe('a part-file line', () => {
  it('gives back exactly the exchange it was made of: marks, members present or absent, text and bytes', () => {
    const shortened = redactExchange(exchange());
    const line = partLine(shortened);
    expect(line.endsWith('\n')).toBe(true);
    expect(isPartLine(line)).toBe(true);
    expect(parsePartLine(line)).toEqual(shortened);
    // The marks of the shortened token (headers, URL) are spelled in ASCII: the body's own '…' is its only wide character.
    expect(line.replace('Erika … Mustermann', '')).toMatch(/^[\x20-\x7e\n]*$/);
    const bare: Exchange = { request: { method: 'POST', url: 'http://real.invalid/v1/files', headers: {}, body: Buffer.from([0, 1, 0xff]) }, response: { status: 204, headers: {} } };
    expect(parsePartLine(partLine(bare))).toEqual(bare);
    expect(Object.keys(parsePartLine(partLine(bare)))).toEqual(['request', 'response']);
  });

  it('keeps a header value or URL that holds the line’s own mark character as it is', () => {
    const odd = redactExchange(exchange({ headers: { Authorization: `Bearer ${TOKEN}`, 'X-Odd': 'a\u0001b' } }));
    expect(parsePartLine(partLine(odd))).toEqual(odd);
    const oddUrl = redactExchange(exchange({ url: 'http://real.invalid/v1/x\u0001?token=abcdefghijklmnop' }));
    expect(parsePartLine(partLine(oddUrl))).toEqual(oddUrl);
  });
});
