import { describe, expect, it } from 'vitest';
import { createHostAllowlist, parseHostEntry } from './host-allowlist.js';

describe('--webhook-hosts allowlist', () => {
  const allow = createHostAllowlist(['hooks.example.com', '*.ngrok.app', 'localhost:9000', '127.0.0.1', '[::1]:8080', 'Tunnel.Test.']);

  it.each([
    ['https://hooks.example.com/x', true],
    ['http://hooks.example.com:8443/x', true],
    ['https://HOOKS.example.com./x', true],
    ['https://example.com/x', false],
    ['https://evil-hooks.example.com/x', false],
    ['https://ab12.ngrok.app/hook', true],
    ['https://a.b.ngrok.app/hook', true],
    ['https://ngrok.app/hook', false],
    ['https://ngrok.app.evil.test/hook', false],
    ['http://localhost:9000/h', true],
    ['http://localhost:9001/h', false],
    ['http://localhost/h', false],
    ['http://127.0.0.1:1234/h', true],
    ['http://[::1]:8080/h', true],
    ['http://[::1]:8081/h', false],
    ['http://tunnel.test/h', true],
  ])('%s → allowed %s', (url, allowed) => {
    const refused = allow.check(url);
    if (allowed) expect(refused).toBeUndefined();
    else expect(refused).toMatch(/is not in --webhook-hosts/);
  });

  it('compares the scheme default port when an entry has a port', () => {
    const https = createHostAllowlist(['*.example.com:443']);
    expect(https.check('https://a.example.com/x')).toBeUndefined();
    expect(https.check('http://a.example.com/x')).toContain('a.example.com:80');
  });

  it('allows every host without a list', () => {
    expect(createHostAllowlist(undefined).check('http://anything.test:1/x')).toBeUndefined();
  });

  it.each(['', '*', 'http://x.test', 'x.test/path', 'x.test:0', 'x.test:70000', '*.', 'a b'])('refuses the entry %j', (entry) => {
    expect(() => parseHostEntry(entry)).toThrow(RangeError);
  });
});
