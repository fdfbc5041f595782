import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { requestState, setMountContext } from '../../http/request-state.js';
import { createLogger } from '../../logging/logger.js';
import { requestId } from './request-id.js';

const silent = createLogger({ level: 'silent', format: 'json' });

function request(url: string, headers: Record<string, string> = {}) {
  const req = Object.assign(new IncomingMessage(new Socket()), { method: 'GET', url, headers });
  return { req, res: new ServerResponse(req) };
}

describe('requestId step', () => {
  it('gives each request its own id, echoes it in X-Request-Id and splits the URL once', () => {
    const step = requestId({ logger: silent, now: () => 0 });
    const first = request('/v1/addresses?limit=2&sort=DESC');
    const second = request('/v1/addresses');
    step(first.req, first.res, () => {});
    step(second.req, second.res, () => {});
    const state = requestState(first.req);
    expect(first.res.getHeader('x-request-id')).toBe(state.requestId);
    expect(state.requestId).not.toBe(requestState(second.req).requestId);
    expect([state.method, state.url, state.pathname, state.search.get('limit'), state.search.get('sort')]).toEqual(['GET', '/v1/addresses?limit=2&sort=DESC', '/v1/addresses', '2', 'DESC']);
  });

  it('keeps a client\'s X-Request-Id when it is a sane token, and makes its own otherwise', () => {
    const step = requestId({ logger: silent, now: () => 0 });
    const kept = request('/v1/addresses', { 'x-request-id': 'trace-42.a:b' });
    const replaced = request('/v1/addresses', { 'x-request-id': 'two words\nand a newline' });
    step(kept.req, kept.res, () => {});
    step(replaced.req, replaced.res, () => {});
    expect(requestState(kept.req).requestId).toBe('trace-42.a:b');
    expect(requestState(replaced.req).requestId).toMatch(/^[a-z0-9]+-[a-z0-9]+$/);
  });

  it('names the target as the client sent it when mounted under a prefix', () => {
    const { req, res } = request('/v1/addresses');
    setMountContext(req, { receivedUrl: '/shipping/v1/addresses' });
    requestId({ logger: silent, now: () => 0 })(req, res, () => {});
    expect([requestState(req).url, requestState(req).pathname]).toEqual(['/shipping/v1/addresses', '/v1/addresses']);
  });

  it('logs the outcome when the response finishes (info level)', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    const { req, res } = request('/v1/carriers');
    requestId({ logger: createLogger({ level: 'info', format: 'json', destination: sink }), now: () => 0 })(req, res, () => {});
    res.statusCode = 200;
    res.emit('finish');
    expect(lines.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ requestId: requestState(req).requestId, status: 200, msg: 'GET /v1/carriers' })]);
  });
});
