import { describe, expect, it } from 'vitest';
import { createAjv } from './compiled-contract.js';
import { WEBHOOK_URL, EMAIL } from './formats.js';

describe('format webhook-url', () => {
  it.each([
    'http://127.0.0.1:9000/hooks',
    'https://hooks.example.com/shipping?x=1#f',
    'http://localhost',
    'http://my_service:3000/hook',
    'https://user:pass@hooks.example.com/x',
    'http://[::1]:8080/x',
    'HTTPS://Hooks.Example.com:65535/',
  ])('accepts %s (and new URL does too)', (url) => {
    expect(WEBHOOK_URL.test(url)).toBe(true);
    expect(() => new URL(url)).not.toThrow();
  });

  it.each([
    'https://',
    'http://127.0.0.1:99999/x',
    'http://localhost:0/x',
    'http://localhost:08/x',
    'ftp://files.example.com/x',
    'http://999.1.1.1/',
    'http://1.2.3.4.5/',
    'http://0x10/',
    'http://exa mple.com/',
    'http://a..b/',
    '/relative/path',
    'http://x.test/a\r\nb',
    'http://x.test/é',
  ])('refuses %j', (url) => {
    expect(WEBHOOK_URL.test(url)).toBe(false);
  });

  it('is known to the contract Ajv, in compiled and in standalone form', async () => {
    const ajv = createAjv(false);
    const validate = ajv.compile({ type: 'string', format: 'webhook-url' });
    expect(validate('http://127.0.0.1:99999/x')).toBe(false);
    expect(validate('http://127.0.0.1:9999/x')).toBe(true);
    const standalone = (await import('ajv/dist/standalone/index.js')).default as unknown as (ajv: unknown, fn: unknown) => string;
    const code = standalone(ajv, validate);
    // The expression itself is in the generated code (no reference to a module that could be missing).
    expect(code).toContain(String(WEBHOOK_URL));
    const module = { exports: {} as { default: (v: unknown) => boolean } };
    new Function('module', 'exports', 'require', code)(module, module.exports, () => ({}));
    expect(module.exports.default('http://127.0.0.1:99999/x')).toBe(false);
    expect(module.exports.default('http://127.0.0.1:9999/x')).toBe(true);
  });
});

describe('email (RFC 5321 Mailbox, as format: email means)', () => {
  it.each(['erika@example.com', 'a@com', 'first.last+tag@sub.example.co.uk', '"john doe"@example.com', 'x@[192.0.2.1]'])('accepts %s', (email) => {
    expect(EMAIL.test(email)).toBe(true);
  });
  it.each(['not-an-email', 'a@', '@example.com', 'a b@example.com', 'a..b@example.com', '.a@example.com', 'a@-b.com', 'a@b..com'])('refuses %s', (email) => {
    expect(EMAIL.test(email)).toBe(false);
  });
});
