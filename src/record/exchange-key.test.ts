import { describe, expect, it } from 'vitest';
import { bodySha256 } from '../scenarios/body-digest.js';
import { exchangeKey, requestKey } from './exchange-key.js';

describe('requestKey', () => {
  const bodies: [Buffer | string | undefined, string | undefined][] = [
    ['{"b":1, "a":"Straße…"}', 'application/json'],
    ['{"accessToken":"eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl","tokenType":"Bearer"}', 'application/json; charset=utf-8'],
    ['grant_type=client_credentials&client_secret=cs_live_9f86d081884c7d65', 'application/x-www-form-urlencoded'],
    ['plain text, password=hunter2hunter2', 'text/plain'],
    [Buffer.from([0x25, 0x50, 0x44, 0x46, 0xff, 0x00]), 'application/pdf'],
    [Buffer.from('{"z":[1,2],"a":null}'), undefined],
    [undefined, 'application/json'],
    ['', 'application/json'],
  ];

  it("ends with the body's bodySha256 (what a recorded rule's match.bodySha256 holds), empty for no body", () => {
    for (const [body, contentType] of bodies) {
      expect(requestKey({ method: 'post', path: '/v1/addresses', search: '?b=2&a=1', body, contentType })).toBe(`POST /v1/addresses?a=1&b=2#${bodySha256(body, contentType) ?? ''}`);
    }
  });

  it('exchangeKey gives the same key with the URL parsed already', () => {
    const request = { method: 'GET', url: 'http://real.invalid/v1/a/../documents/d%201?token=tok_a1b2c3d4e5f6a7b8&x=1', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' };
    expect(exchangeKey({ request }, new URL('/v1/a/../documents/d%201?token=tok_a1b2c3d4e5f6a7b8&x=1', 'http://real.invalid'))).toBe(exchangeKey({ request }));
  });
});
