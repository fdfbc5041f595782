import { describe, expect, it } from 'vitest';
import { createHarness } from '../support/harness.js';

describe('core pipeline', () => {
  const h = createHarness();

  it('answers health on the control plane', async () => {
    const res = await h.http.get('/__admin/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it.each([
    ['GET', '/v1/no-such-thing', 404, 'route-not-found'],
    ['PATCH', '/v1/addresses', 405, 'method-not-allowed'],
    ['GET', '/v1/addresses', 401, 'unauthorized'],
  ])('%s %s → %i %s problem', async (method, path, status, slug) => {
    const res = await h.http[method.toLowerCase() as 'get'](path);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: `https://shipmock.dev/problems/${slug}`, status, instance: path });
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('names the allowed methods on a 405', async () => {
    const res = await h.http.patch('/v1/addresses');
    expect(res.headers.allow).toBe('GET, POST');
  });

  it('answers CORS preflights with the contract methods', async () => {
    const res = await h.http.options('/v1/addresses/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11').set('Origin', 'http://localhost:3000');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-methods']).toBe('GET, PUT, DELETE');
    // A page of this machine is allowed: its origin comes back (README, CORS).
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(res.headers.vary).toBe('Origin');
  });
});
