import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../../http/types.js';
import { requestState } from '../../http/request-state.js';
import { createLogger } from '../../logging/logger.js';
import type { Responder } from '../respond.js';
import { cors, createCorsPolicy, normalizeCorsOrigin, preflight } from './cors.js';
import { requestId } from './request-id.js';

const started = requestId({ logger: createLogger({ level: 'silent', format: 'json' }), now: () => 0 });

/** A request through the cors step; the response headers it set and the request state. */
function through(origins: string[], headers: Record<string, string>, url = '/v1/addresses') {
  const req = Object.assign(new IncomingMessage(new Socket()), { method: 'GET', url, headers: { host: 'localhost:4010', ...headers } });
  const res = new ServerResponse(req);
  started(req, res, () => {});
  let went = false;
  cors({ origins })(req, res, () => (went = true));
  return { went, allowOrigin: res.getHeader('access-control-allow-origin'), vary: res.getHeader('vary'), state: requestState(req) };
}

describe('cors step', () => {
  it('answers * to a request without Origin (curl, SDKs) and marks no foreign page', () => {
    const { went, allowOrigin, vary, state } = through([], {});
    expect([went, allowOrigin, vary, state.foreignPage]).toEqual([true, '*', 'Origin', undefined]);
  });

  it('gives a page of this machine its own origin back', () => {
    expect(through([], { origin: 'http://127.0.0.1:5173' }).allowOrigin).toBe('http://127.0.0.1:5173');
    expect(through([], { origin: 'http://app.localhost:3000' }).allowOrigin).toBe('http://app.localhost:3000');
  });

  it('gives another page the mock\'s own origin (the browser withholds the answer) and marks it foreign', () => {
    const { allowOrigin, state } = through([], { origin: 'https://evil.example' });
    expect(allowOrigin).toBe('http://localhost:4010');
    expect(state.foreignPage).toBe('https://evil.example');
  });

  it('lets a named origin in and vouches for it; * lets every page read but vouches for none', () => {
    const named = through(['https://app.example'], { origin: 'https://app.example' });
    expect([named.allowOrigin, named.state.foreignPage]).toEqual(['https://app.example', undefined]);
    expect(through(['*'], { origin: 'https://evil.example' })).toMatchObject({ allowOrigin: '*', state: { foreignPage: 'https://evil.example' } });
  });

  it('marks a cross-site request whose origin the browser withheld', () => {
    expect(through([], { 'sec-fetch-site': 'cross-site' }).state.foreignPage).toBe('an undisclosed origin');
  });

  it('leaves the control plane and the mock\'s pages alone', () => {
    expect(through([], { origin: 'https://evil.example' }, '/__admin/health')).toMatchObject({ went: true, allowOrigin: undefined });
  });
});

describe('cors origins', () => {
  it('normalises an origin as a browser serialises it and refuses anything else', () => {
    expect(normalizeCorsOrigin('http://App.Example:80/')).toBe('http://app.example');
    expect(normalizeCorsOrigin(' * ')).toBe('*');
    for (const bad of ['app.example', 'https://app.example/path', 'null', 'ftp://app.example', 'https://user:pw@app.example']) expect(() => normalizeCorsOrigin(bad)).toThrow(RangeError);
  });

  it('vouches for loopback pages and named origins only', () => {
    const policy = createCorsPolicy(['https://app.example']);
    expect(['http://localhost', 'https://[::1]:8443', 'http://127.3.2.1:9', 'https://app.example'].map(policy.vouchesFor)).toEqual([true, true, true, true]);
    expect(['https://evil.example', 'http://localhost.evil.example', 'http://128.0.0.1'].map(policy.allows)).toEqual([false, false, false]);
  });
});

describe('preflight step', () => {
  it('answers OPTIONS with 204 and the methods the contract declares for the path; other methods go on', () => {
    const sent: Answer[] = [];
    const responder = { send: (_req: unknown, _res: unknown, answer: Answer) => void sent.push(answer) } as Responder;
    const step = preflight({ allowedMethods: (path) => (path === '/v1/addresses' ? ['GET', 'POST'] : undefined), responder });
    const request = (method: string, url: string, headers: Record<string, string> = {}) => {
      const req = Object.assign(new IncomingMessage(new Socket()), { method, url, headers });
      const res = new ServerResponse(req);
      started(req, res, () => {});
      let went = false;
      step(req, res, () => (went = true));
      return went;
    };
    expect(request('GET', '/v1/addresses')).toBe(true);
    expect(request('OPTIONS', '/v1/addresses', { 'access-control-request-headers': 'Authorization, X-Custom' })).toBe(false);
    expect(request('OPTIONS', '/v1/unknown')).toBe(false);
    expect(sent).toEqual([
      { status: 204, headers: { 'Access-Control-Allow-Methods': 'GET, POST', 'Access-Control-Allow-Headers': 'Authorization, X-Custom', 'Access-Control-Max-Age': '600' } },
      { status: 204, headers: { 'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE', 'Access-Control-Allow-Headers': 'Authorization, Content-Type', 'Access-Control-Max-Age': '600' } },
    ]);
  });
});
