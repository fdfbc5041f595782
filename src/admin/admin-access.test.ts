import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../errors/problem.js';
import { adminAccess, hostnameOf, isForeignPage, isLoopback, isLoopbackHost, normalizeAdminOrigin } from './admin-access.js';

function run(step: ReturnType<typeof adminAccess>, path: string, remoteAddress: string, headers: Record<string, string> = {}, method = 'GET'): string {
  const req = { path, method, socket: { remoteAddress }, headers: { host: '127.0.0.1:4010', ...headers } } as unknown as Request;
  const res = { setHeader: () => res } as unknown as Response;
  try {
    let passed = false;
    step(req, res, () => (passed = true));
    return passed ? 'pass' : 'stuck';
  } catch (error) {
    return error instanceof ProblemError ? String(error.status) : 'crash';
  }
}

describe('control-plane access', () => {
  it.each([
    ['a terminal, a test (no browser headers)', {}, false],
    ['a URL typed into the browser', { 'sec-fetch-site': 'none' }, false],
    ['the mock’s own inspector', { origin: 'http://127.0.0.1:4010', 'sec-fetch-site': 'same-origin' }, false],
    ['the inspector’s GET (no Origin)', { 'sec-fetch-site': 'same-origin' }, false],
    ['an --admin-origin page', { origin: 'http://localhost:3000', 'sec-fetch-site': 'cross-site' }, true],
    ['a page on another port of the same host', { origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-site' }, true],
    ['a page claiming same-origin under another Origin', { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-origin' }, true],
  ])('%s is a foreign page: %s', (_who, headers, foreign) => {
    const req = { socket: {}, headers: { host: '127.0.0.1:4010', ...headers } } as unknown as Request;
    expect(isForeignPage(req)).toBe(foreign);
  });

  it.each([
    ['127.0.0.1', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['127.8.9.10', true],
    ['10.0.0.5', false],
    ['::ffff:192.168.1.20', false],
    ['127.evil.example', false],
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

  it('checks the Host header unless a key is set (DNS rebinding)', () => {
    expect(run(adminAccess({}), '/clock', '127.0.0.1', { host: 'localhost:4010' })).toBe('pass');
    expect(run(adminAccess({}), '/clock', '127.0.0.1', { host: '[::1]:4010' })).toBe('pass');
    expect(run(adminAccess({}), '/clock', '127.0.0.1', { host: 'evil.example:4010' })).toBe('403');
    expect(run(adminAccess({}), '/clock', '127.0.0.1', { host: '127.0.0.1.evil.example' })).toBe('403');
    expect(run(adminAccess({ hosts: ['mock.test'] }), '/clock', '127.0.0.1', { host: 'mock.test:4010' })).toBe('pass');
    expect(run(adminAccess({ adminKey: 'correct-horse' }), '/clock', '10.0.0.5', { host: 'sandbox.example', 'x-admin-key': 'correct-horse' })).toBe('pass');
    expect(run(adminAccess({}), '/health', '127.0.0.1', { host: 'evil.example' })).toBe('pass');
  });

  it('refuses simple POSTs: a form or text body is 415, no body without the intent header is 403', () => {
    const step = adminAccess({});
    expect(run(step, '/reset', '127.0.0.1', {}, 'POST')).toBe('403');
    expect(run(step, '/reset', '127.0.0.1', { 'content-type': 'text/plain;charset=UTF-8' }, 'POST')).toBe('415');
    expect(run(step, '/reset', '127.0.0.1', { 'content-type': 'application/x-www-form-urlencoded' }, 'POST')).toBe('415');
    expect(run(step, '/reset', '127.0.0.1', { 'x-shipmock-admin': '1' }, 'POST')).toBe('pass');
    expect(run(step, '/reset', '127.0.0.1', { 'content-type': 'application/json' }, 'POST')).toBe('pass');
    expect(run(step, '/journal', '127.0.0.1', {}, 'DELETE')).toBe('pass');
  });

  it('reads Host names and normalises allowed origins', () => {
    expect(hostnameOf('LocalHost:4010')).toBe('localhost');
    expect(hostnameOf('[::1]:80')).toBe('::1');
    expect(hostnameOf('mock.test.')).toBe('mock.test');
    expect(hostnameOf('a b')).toBeUndefined();
    expect(normalizeAdminOrigin('http://LOCALHOST:3000/')).toBe('http://localhost:3000');
    expect(normalizeAdminOrigin('https://qa.example:443')).toBe('https://qa.example');
    expect(() => normalizeAdminOrigin('*')).toThrow();
    expect(() => normalizeAdminOrigin('null')).toThrow();
    expect(() => normalizeAdminOrigin('http://localhost:3000/app')).toThrow();
  });

  it('knows loopback bind addresses', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('0.0.0.0')).toBe(false);
  });
});
