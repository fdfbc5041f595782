import { describe, expect, it } from 'vitest';
import { createHostAllowlist } from './host-allowlist.js';
import { createMockEndpoints } from './mock-endpoints.js';
import { destinationProblem, webhookTargetProblem } from './webhook-target.js';

describe('webhookTargetProblem', () => {
  const anyHost = createHostAllowlist(undefined);

  it.each([
    ['https://', 'INVALID_URL'],
    ['http://127.0.0.1:99999/x', 'INVALID_URL'],
    ['ftp://hooks.example.com/x', 'INVALID_URL'],
  ])('refuses the URL %j as %s', (url, errorCode) => {
    expect(webhookTargetProblem(url, {}, anyHost)?.errorCode).toBe(errorCode);
  });

  it('holds the host to the allowlist', () => {
    const allowlist = createHostAllowlist(['hooks.example.com']);
    expect(webhookTargetProblem('https://hooks.example.com/x', {}, allowlist)).toBeUndefined();
    expect(webhookTargetProblem('https://evil.example/x', {}, allowlist)?.errorCode).toBe('HOST_NOT_ALLOWED');
  });

  it('refuses headers that cannot go on the wire', () => {
    expect(webhookTargetProblem('https://hooks.example.com/x', { 'X-Key': 'a\r\nInjected: 1' }, anyHost)?.errorCode).toBe('INVALID_HEADER');
    expect(webhookTargetProblem('https://hooks.example.com/x', { 'Bad Name': 'v' }, anyHost)?.errorCode).toBe('INVALID_HEADER');
    expect(webhookTargetProblem('https://hooks.example.com/x', { 'X-Key': 'v' }, anyHost)).toBeUndefined();
  });

  describe('the mock itself (on port 4010)', () => {
    const self = createMockEndpoints();
    self.note(4010);

    it.each([
      'http://127.0.0.1:4010/__admin/tokens',
      'http://2130706433:4010/x',
      'http://0x7f.1:4010/x',
      'http://0177.0.0.1:4010/x',
      'http://127.1:4010/x',
      'http://0x7f000001:4010/x',
      'http://localhost.:4010/x',
      'http://a.b.localhost:4010/x',
      'http://0.0.0.0:4010/x',
      'http://[::]:4010/x',
      'http://[::1]:4010/x',
      'http://[::ffff:127.0.0.1]:4010/x',
      'http://[::ffff:0.0.0.0]:4010/x',
      'https://127.0.0.1:4010/x',
    ])('refuses %s', (url) => {
      expect(webhookTargetProblem(url, {}, anyHost, { self })?.errorCode).toBe('TARGET_IS_MOCK');
    });

    it.each(['http://127.0.0.1:4011/x', 'http://localhost:9000/x', 'http://127.0.0.1/x', 'https://hooks.example.com:4010/x', 'http://8.8.8.8:4010/x'])('lets %s through', (url) => {
      expect(webhookTargetProblem(url, {}, anyHost, { self })).toBeUndefined();
    });

    it('uses the scheme default port when the URL has none', () => {
      const on80 = createMockEndpoints();
      on80.note(80);
      expect(webhookTargetProblem('http://localhost/x', {}, anyHost, { self: on80 })?.errorCode).toBe('TARGET_IS_MOCK');
      expect(webhookTargetProblem('https://localhost/x', {}, anyHost, { self: on80 })).toBeUndefined();
    });
  });

  describe('a channel a foreign page made', () => {
    const foreignPage = 'https://evil.example';

    it.each(['http://192.168.1.1/', 'http://10.0.0.8:6379/', 'http://172.16.0.1/', 'http://169.254.169.254/latest', 'http://[fe80::1]/', 'http://[fd00::1]/', 'http://100.64.0.1/', 'http://127.0.0.1:6379/', 'http://localhost:9000/', 'http://[::ffff:192.168.0.1]/'])(
      'may not reach %s',
      (url) => {
        expect(webhookTargetProblem(url, {}, anyHost, { foreignPage })?.errorCode).toBe('PRIVATE_TARGET_REFUSED');
        expect(webhookTargetProblem(url, {}, anyHost)).toBeUndefined();
      },
    );

    it('may reach public hosts, and private ones --webhook-hosts names', () => {
      expect(webhookTargetProblem('https://hooks.example.com/x', {}, anyHost, { foreignPage })).toBeUndefined();
      expect(webhookTargetProblem('http://8.8.8.8/x', {}, anyHost, { foreignPage })).toBeUndefined();
      expect(webhookTargetProblem('http://192.168.1.1/x', {}, createHostAllowlist(['192.168.1.1']), { foreignPage })).toBeUndefined();
    });

    it('judges resolved addresses the same way', () => {
      expect(destinationProblem('10.1.2.3', 80, { foreignPage }, false)?.errorCode).toBe('PRIVATE_TARGET_REFUSED');
      expect(destinationProblem('10.1.2.3', 80, { foreignPage }, true)).toBeUndefined();
      expect(destinationProblem('93.184.216.34', 80, { foreignPage }, false)).toBeUndefined();
    });
  });
});
