import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { startMock, type RunningMock } from '../../src/server/start-mock.js';

/** One HTTPS call through node:https; the certificate is self-signed, so it is not verified. */
function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; body: any; certificate: string }>((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      const certificate = String((res.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN ?? '');
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), certificate }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('HTTPS', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ port: 0, tls: true, logger: createLogger({ level: 'silent', format: 'json' }) });
  });
  afterAll(() => mock.close());

  it('serves https:// with a self-signed certificate generated at start', async () => {
    expect(mock.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await call(`${mock.url}/__admin/health`);
    expect(res).toEqual({ status: 200, body: { status: 'ok' }, certificate: 'shipmock' });
  });

  it('issues a token over HTTPS', async () => {
    const { clientId, clientSecret, companyId } = mock.credentials;
    const res = await call(`${mock.url}/v1/companies/${companyId}/tokens`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ grantType: 'client_credentials' }),
    });
    expect(res.status).toBe(200);
    expect(res.body.tokenType).toBe('Bearer');
  });

  it('refuses plain HTTP on the TLS port', async () => {
    const plain = mock.url.replace('https:', 'http:');
    await expect(fetch(`${plain}/__admin/health`)).rejects.toThrow();
  });
});
