import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCompiledContract } from '../../src/contract/compiled-contract.js';
import { createValidators, shipmockMiddleware, type ShipmockMiddleware } from '../../src/index.js';
import { defineConformanceSuite } from './conformance-suite.js';

/** A real Express 5 app on a real socket, with the mock mounted under a prefix next to the app's own routes. */
async function listen(app: express.Express): Promise<{ server: Server; origin: string }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const { contract, schemas } = loadCompiledContract();
const validators = createValidators(contract, schemas);
const basicOf = (mock: ShipmockMiddleware) => `Basic ${Buffer.from(`${mock.credentials.clientId}:${mock.credentials.clientSecret}`).toString('base64')}`;

describe('shipmockMiddleware() mounted in an Express app', () => {
  let mock: ShipmockMiddleware;
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    mock = shipmockMiddleware({ seed: 1, logLevel: 'silent', clock: { mode: 'manual' } });
    const app = express();
    app.get('/health', (_req, res) => void res.json({ app: 'mine' }));
    app.use('/shipping', mock);
    app.use((_req, res) => void res.status(418).json({ fellThrough: true }));
    ({ server, origin } = await listen(app));
  });
  afterAll(async () => {
    mock?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  defineConformanceSuite(() => ({ url: `${origin}/shipping`, ...mock.credentials }));

  it('leaves the app’s own routes and everything outside the prefix to the app', async () => {
    expect(await (await fetch(`${origin}/health`)).json()).toEqual({ app: 'mine' });
    const outside = await fetch(`${origin}/v1/addresses`);
    expect(outside.status).toBe(418);
  });

  it('answers problems that name the target as the client sent it, and conform to the contract', async () => {
    const res = await fetch(`${origin}/shipping/v1/addresses/not-a-uuid`, { headers: { Authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    const problem = await res.json();
    expect(problem.instance).toBe('/shipping/v1/addresses/not-a-uuid');
    expect(validators.validate('#/components/schemas/Problem', problem)).toEqual([]);
  });

  it('serves the control plane under the prefix, and its handles drive the same state', async () => {
    const before = await (await fetch(`${origin}/shipping/__admin/clock`)).json();
    mock.clock.advance('PT1H');
    const after = await (await fetch(`${origin}/shipping/__admin/clock`)).json();
    expect(after.epochMs - before.epochMs).toBe(3_600_000);
  });
});

describe('shipmockMiddleware() behind a body parser', () => {
  it('takes a body express.json() already read, validates it and keeps the size limit', async () => {
    const mock = shipmockMiddleware({ seed: 2, logLevel: 'silent', bodyLimit: 2048 });
    const app = express();
    app.use(express.json({ limit: '1mb' }));
    app.use('/shipping', mock);
    const { server, origin } = await listen(app);
    try {
      const tokens = await fetch(`${origin}/shipping/v1/companies/${mock.credentials.companyId}/tokens`, {
        method: 'POST',
        headers: { Authorization: basicOf(mock), 'Content-Type': 'application/json' },
        body: JSON.stringify({ grantType: 'client_credentials' }),
      });
      expect(tokens.status).toBe(200);
      const body = await tokens.json();
      const operation = contract.byId.get('issueCompanyToken')!;
      expect(validators.forOperation(operation.operationId).response(200, 'application/json', body)).toEqual([]);

      const refused = await fetch(`${origin}/shipping/v1/companies/${mock.credentials.companyId}/tokens`, {
        method: 'POST',
        headers: { Authorization: basicOf(mock), 'Content-Type': 'application/json' },
        body: JSON.stringify({ grantType: 'password' }),
      });
      expect(refused.status).toBe(400);

      const tooLarge = await fetch(`${origin}/shipping/v1/companies/${mock.credentials.companyId}/tokens`, {
        method: 'POST',
        headers: { Authorization: basicOf(mock), 'Content-Type': 'application/json' },
        body: JSON.stringify({ grantType: 'client_credentials', padding: 'x'.repeat(4096) }),
      });
      expect(tooLarge.status).toBe(413);
    } finally {
      mock.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
