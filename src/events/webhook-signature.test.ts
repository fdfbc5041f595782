import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from './webhook-signature.js';

const secret = 'whsec_0123456789abcdef';
const body = '{"id":"2f4d6b8a-1c3e-4a5b-8d7f-9e0a1b2c3d4e","topic":"ADDRESS"}';

describe('Shipmock-Signature', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>', () => {
    const expected = createHmac('sha256', secret).update(`1767225600.${body}`).digest('hex');
    expect(signatureHeader(secret, 1767225600, body)).toBe(`t=1767225600,v1=${expected}`);
  });

  it('verifies its own signature and rejects tampering', () => {
    const header = signatureHeader(secret, 1767225600, body);
    expect(verifySignature(secret, header, body)).toBe(true);
    expect(verifySignature(secret, header, body.replace('ADDRESS', 'TRACKER'))).toBe(false);
    expect(verifySignature('whsec_another-secret!!', header, body)).toBe(false);
    expect(verifySignature(secret, header.replace('t=1767225600', 't=1767225601'), body)).toBe(false);
    expect(verifySignature(secret, undefined, body)).toBe(false);
    expect(verifySignature(secret, 'v1=abc', body)).toBe(false);
  });

  it('bounds the age of t when asked to', () => {
    const header = signatureHeader(secret, 1000, body);
    expect(verifySignature(secret, header, body, { nowSeconds: 1300 })).toBe(true);
    expect(verifySignature(secret, header, body, { nowSeconds: 1301 })).toBe(false);
    expect(verifySignature(secret, header, body, { nowSeconds: 1010, toleranceSeconds: 5 })).toBe(false);
  });
});
