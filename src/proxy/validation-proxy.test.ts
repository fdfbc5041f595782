import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShippingClient } from '../client/create-shipping-client.js';
import { createLogger } from '../logging/logger.js';
import { startMock, type RunningMock } from '../server/start-mock.js';
import { formatProxySummary, startValidationProxy, type RunningProxy } from './validation-proxy.js';

const silent = createLogger({ level: 'silent', format: 'json' });
const ADDRESS_ID = '9c5f70b8-3d0e-4bde-9e87-1f2a3b4c5d67';
const address = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('validation proxy in front of shipmock (a conforming upstream)', () => {
  let mock: RunningMock;
  let proxy: RunningProxy;

  beforeAll(async () => {
    mock = await startMock({ port: 0, logger: silent });
    proxy = await startValidationProxy({ upstream: mock.url, port: 0, logger: silent });
  });
  afterAll(async () => {
    await proxy?.close();
    await mock?.close();
  });

  it('forwards a whole flow unchanged and finds no violations', async () => {
    const seen: Response[] = [];
    const client = createShippingClient({
      baseUrl: proxy.url,
      ...mock.credentials,
      fetch: async (request) => {
        const response = await fetch(request);
        seen.push(response.clone());
        return response;
      },
    });
    const { data: account } = await client.company.POST('/v1/accounts', {
      body: {
        company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
        contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
      },
    });
    const api = client.forAccount(account!.id);
    const { data: created } = await api.POST('/v1/addresses', { body: address });
    const { data: fetched, response } = await api.GET('/v1/addresses/{address-id}', { params: { path: { 'address-id': created!.id } } });
    expect(fetched).toMatchObject(address);
    const missing = await api.GET('/v1/addresses/{address-id}', { params: { path: { 'address-id': ADDRESS_ID } } });
    expect(missing.response.status).toBe(404);

    expect(seen.map((r) => r.headers.get('x-shipmock-violations'))).toEqual(seen.map(() => '[]'));
    expect(seen.map((r) => r.headers.get('x-shipmock-violations-count'))).toEqual(seen.map(() => '0'));
    expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const summary = proxy.summary();
    expect(summary.violations).toBe(0);
    expect(summary.requests).toBe(seen.length);
    expect(summary.byOperation.getAddress).toEqual({ requests: 2, violations: 0 });
  });

  it('lets CORS preflights through without calling them violations', async () => {
    const res = await fetch(`${proxy.url}/v1/addresses`, { method: 'OPTIONS', headers: { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST' } });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(res.headers.get('x-shipmock-violations')).toBe('[]');
  });

  it('passes the answer through byte for byte', async () => {
    const direct = await fetch(`${mock.url}/v1/carriers/not-a-uuid`);
    const proxied = await fetch(`${proxy.url}/v1/carriers/not-a-uuid`);
    expect(proxied.status).toBe(direct.status);
    expect(await proxied.text()).toBe(await direct.text());
    expect(proxied.headers.get('content-type')).toBe(direct.headers.get('content-type'));
  });
});

describe('validation proxy in front of a broken upstream', () => {
  let upstream: Awaited<ReturnType<typeof listen>>;
  let proxy: RunningProxy;
  const brokenAddress = JSON.stringify({ id: ADDRESS_ID, name: 'Erika', zip: '10115' });

  beforeAll(async () => {
    upstream = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.method === 'GET' && req.url === `/api/v1/addresses/${ADDRESS_ID}`) {
          res.writeHead(200, { 'Content-Type': 'application/json', 'X-Upstream': 'kept' }).end(brokenAddress);
        } else if (req.method === 'POST' && req.url === '/api/v1/addresses') {
          res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ id: ADDRESS_ID }));
        } else if (req.url?.startsWith('/api/v1/carriers')) {
          res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(gzipSync(JSON.stringify({ items: [], total: 0 })));
        } else {
          res.writeHead(404, { 'Content-Type': 'text/plain' }).end('nope');
        }
      });
    });
    // The upstream's path prefix (/api) is kept when forwarding.
    proxy = await startValidationProxy({ upstream: `${upstream.url}/api`, port: 0, logger: silent });
  });
  afterAll(async () => {
    await proxy?.close();
    await new Promise((resolve) => upstream?.server.close(resolve));
  });

  it('reports a renamed field in the header, and still passes the body through unchanged', async () => {
    const res = await fetch(`${proxy.url}/v1/addresses/${ADDRESS_ID}`, { headers: { Authorization: 'Bearer t' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(brokenAddress);
    expect(res.headers.get('x-upstream')).toBe('kept');
    const violations = JSON.parse(res.headers.get('x-shipmock-violations')!);
    expect(violations).toEqual(
      expect.arrayContaining([
        { in: 'response', field: 'body/zip', message: 'is not allowed' },
        { in: 'response', field: 'body/postalCode', message: 'is required' },
        { in: 'response', field: 'body/street', message: 'is required' },
      ]),
    );
    expect(res.headers.get('x-shipmock-violations-count')).toBe(String(violations.length));
  });

  it('reports an undeclared status and a bad request body', async () => {
    const res = await fetch(`${proxy.url}/v1/addresses`, {
      method: 'POST',
      headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Erika', countryCode: 'de' }),
    });
    const violations = JSON.parse(res.headers.get('x-shipmock-violations')!);
    expect(violations).toEqual(
      expect.arrayContaining([
        { in: 'request', field: 'body/street', message: 'is required' },
        { in: 'request', field: 'body/countryCode', message: expect.stringMatching(/^must match pattern/) },
        { in: 'response', field: 'status', message: '200 application/json is not declared for createAddress' },
      ]),
    );
  });

  it('reports a missing Authorization header, an unknown route, and validates gzip bodies', async () => {
    const carriers = await fetch(`${proxy.url}/v1/carriers`, { headers: { Authorization: 'Bearer t', 'Accept-Encoding': 'gzip' } });
    expect(await carriers.json()).toEqual({ items: [], total: 0 });
    expect(JSON.parse(carriers.headers.get('x-shipmock-violations')!)).toEqual([{ in: 'response', field: 'body/total', message: 'is not allowed' }]);
    const unknown = await fetch(`${proxy.url}/v1/nope`);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.headers.get('x-shipmock-violations')!)).toEqual([
      { in: 'request', field: 'route GET /v1/nope', message: 'no operation of the contract has this path' },
    ]);
    const anonymous = await fetch(`${proxy.url}/v1/addresses/${ADDRESS_ID}`);
    expect(JSON.parse(anonymous.headers.get('x-shipmock-violations')!)).toContainEqual({ in: 'request', field: 'header/authorization', message: 'is required (AccountToken)' });
  });

  it('sums everything up for the exit summary', () => {
    const summary = proxy.summary();
    expect(summary.violating).toBe(summary.requests);
    expect(summary.byOperation.getAddress.violations).toBeGreaterThan(0);
    expect(summary.byOperation['GET /v1/nope']).toEqual({ requests: 1, violations: 1 });
    const text = formatProxySummary(summary);
    expect(text).toMatch(/^\d+ request\(s\), \d+ with contract violations/);
    expect(text).toContain('getAddress response body/zip is not allowed');
    expect(text).toContain('GET /v1/nope request route GET /v1/nope no operation of the contract has this path');
  });

  it('answers 502 when the upstream is unreachable', async () => {
    const dead = await startValidationProxy({ upstream: 'http://127.0.0.1:9', port: 0, logger: silent });
    try {
      const res = await fetch(`${dead.url}/v1/carriers`, { headers: { Authorization: 'Bearer t' } });
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ error: 'upstream unreachable' });
    } finally {
      await dead.close();
    }
  });
});
