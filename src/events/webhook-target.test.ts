import { describe, expect, it } from 'vitest';
import { createHostAllowlist } from './host-allowlist.js';
import { webhookTargetProblem } from './webhook-target.js';

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
});
