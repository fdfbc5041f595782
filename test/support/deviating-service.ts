import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { internalsOf, type RunningMock } from '../../src/server/start-mock.js';
import type { Store } from '../../src/store/store.js';

/** The store behind a mock (assertions on what each side holds). */
export const storeOf = (mock: RunningMock): Store => internalsOf(mock).runtime.store;

/**
 * A "real service" that differs from the contract on purpose, in front of another shipmock: an
 * address's postalCode renamed zipCode, a parcel created with 200 instead of 201, a parcel read
 * without X-RateLimit-Reset.
 */
export async function deviating(behind: RunningMock): Promise<{ server: Server; url: string }> {
  const target = new URL(behind.url);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const out = httpRequest({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          let body = Buffer.concat(parts);
          let status = answer.statusCode ?? 502;
          const headers = { ...answer.headers };
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          const path = (req.url ?? '').split('?')[0];
          if (req.method === 'GET' && /^\/v1\/addresses\/[^/]+$/.test(path) && status === 200) {
            const { postalCode, ...rest } = JSON.parse(body.toString('utf8'));
            body = Buffer.from(JSON.stringify({ ...rest, zipCode: postalCode }));
          }
          if (req.method === 'POST' && path === '/v1/parcels' && status === 201) status = 200;
          if (req.method === 'GET' && /^\/v1\/parcels\/[^/]+$/.test(path)) delete headers['x-ratelimit-reset'];
          res.writeHead(status, { ...headers, 'content-length': String(body.length) });
          res.end(body);
        });
      });
      out.on('error', () => res.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

