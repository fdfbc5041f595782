import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../errors/problem.js';
import { adminAccess, isLoopback, isLoopbackHost } from './admin-access.js';

function run(step: ReturnType<typeof adminAccess>, path: string, remoteAddress: string, headers: Record<string, string> = {}): string {
  const req = { path, socket: { remoteAddress }, headers } as unknown as Request;
  try {
    let passed = false;
    step(req, {} as Response, () => (passed = true));
    return passed ? 'pass' : 'stuck';
  } catch (error) {
    return error instanceof ProblemError ? String(error.status) : 'crash';
  }
}

describe('control-plane access', () => {
  it.each([
    ['127.0.0.1', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['127.8.9.10', true],
    ['10.0.0.5', false],
    ['::ffff:192.168.1.20', false],
    [undefined, false],
  ])('%s is loopback: %s', (address, expected) => {
    expect(isLoopback(address)).toBe(expected);
  });

  it('lets only loopback callers in when no key is set; health is always open', () => {
    const step = adminAccess({});
    expect(run(step, '/clock', '127.0.0.1')).toBe('pass');
    expect(run(step, '/clock', '192.168.1.20')).toBe('403');
    expect(run(step, '/health', '192.168.1.20')).toBe('pass');
  });

  it('with a key, needs X-Admin-Key from everyone (loopback included)', () => {
    const step = adminAccess({ adminKey: 'correct-horse' });
    expect(run(step, '/state', '127.0.0.1')).toBe('401');
    expect(run(step, '/state', '10.0.0.5', { 'x-admin-key': 'correct-horse' })).toBe('pass');
    expect(run(step, '/state', '10.0.0.5', { 'x-admin-key': 'correct-hors' })).toBe('401');
  });

  it('knows loopback bind addresses', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('0.0.0.0')).toBe(false);
  });
});
