import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { releaseWhenDone } from '../support/lifetime.js';
import { call, startLiveMock } from '../support/live-mock.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { CHROMIUM } from './browser-support.js';

/**
 * Issue 23, in a real browser: "a web page with the public demo credentials can make the mock
 * POST into any local service". A page of a foreign origin (evil.test, mapped to 127.0.0.1 by
 * Chromium's host resolver rules, so nothing leaves this machine) runs the attack: a company
 * token with the demo credentials, an account, an account token, a channel aimed at a local
 * service, an event. The same script from a page of this machine (localhost) shows it works
 * where it is allowed — so the refusals are the mock's doing, not a broken script.
 */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

let browser: Browser;
let pages: Server;
let pagePort: number;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: [...FLAGS, '--host-resolver-rules=MAP evil.test 127.0.0.1'] });
  pages = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>a page</title><p>hello</p>'));
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pagePort = (pages.address() as AddressInfo).port;
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (pages ? pages.close(() => resolve()) : resolve()));
});

interface AttackResult {
  step: string;
  status?: number;
  error?: string;
}

/** The attack, run inside the page: each step's status, or the error the browser raised. */
async function attackFrom(pageOrigin: string, mock: RunningMock, target: string): Promise<AttackResult[]> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${pageOrigin}/`);
  const c = mock.credentials;
  const results = await page.evaluate(
    async ({ base, companyId, basic, target }) => {
      const out: { step: string; status?: number; error?: string }[] = [];
      const json = { 'Content-Type': 'application/json' };
      async function step(name: string, url: string, init: RequestInit): Promise<any> {
        try {
          const res = await fetch(url, init);
          out.push({ step: name, status: res.status });
          return res.ok ? res.json() : undefined;
        } catch (error) {
          out.push({ step: name, error: String(error) });
          return undefined;
        }
      }
      const company = await step('company token', `${base}/v1/companies/${companyId}/tokens`, { method: 'POST', headers: { ...json, Authorization: basic }, body: JSON.stringify({ grantType: 'client_credentials' }) });
      if (!company) return out;
      const account = await step('account', `${base}/v1/accounts`, {
        method: 'POST',
        headers: { ...json, Authorization: `Bearer ${company.accessToken}` },
        body: JSON.stringify({
          company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
          contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
        }),
      });
      if (!account) return out;
      const token = await step('account token', `${base}/v1/accounts/${account.id}/tokens`, { method: 'POST', headers: { ...json, Authorization: basic }, body: JSON.stringify({ grantType: 'client_credentials' }) });
      if (!token) return out;
      const auth = { ...json, Authorization: `Bearer ${token.accessToken}` };
      const channel = await step('channel', `${base}/v1/event-channels`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'x', topics: ['ADDRESS'], webhook: { url: target } }) });
      if (!channel) return out;
      await step('event', `${base}/v1/event-channels/events`, { method: 'POST', headers: auth, body: JSON.stringify({ topic: 'ADDRESS', type: 'CREATED', payload: {} }) });
      return out;
    },
    { base: mock.url, companyId: c.companyId, basic: `Basic ${btoa(`${c.clientId}:${c.clientSecret}`)}`, target },
  );
  await context.close();
  return results;
}

async function startMockWith(options: Parameters<typeof startLiveMock>[0] = {}): Promise<RunningMock> {
  const mock = await startLiveMock({ clock: { mode: 'real' }, ...options });
  releaseWhenDone(() => mock.close());
  return mock;
}

describe('a web page cannot aim the mock at your network', () => {
  it('by default a foreign page cannot even get a token; a page of this machine can do it all', async () => {
    const mock = await startMockWith();
    const service = await startWebhookReceiver();

    const foreign = await attackFrom(`http://evil.test:${pagePort}`, mock, service.url);
    expect(foreign).toEqual([{ step: 'company token', error: expect.stringContaining('Failed to fetch') }]);

    const local = await attackFrom(`http://localhost:${pagePort}`, mock, service.url);
    expect(local.map((r) => [r.step, r.status])).toEqual([
      ['company token', 200],
      ['account', 201],
      ['account token', 200],
      ['channel', 201],
      ['event', 201],
    ]);
    const hits = await service.waitFor((r) => r.body?.topic === 'ADDRESS');
    expect(hits).toHaveLength(1);
  }, 90_000);

  it("with --cors-origin '*' a foreign page gets in, but its channel may not reach a local service", async () => {
    const mock = await startMockWith({ corsOrigins: ['*'] });
    const service = await startWebhookReceiver();
    const foreign = await attackFrom(`http://evil.test:${pagePort}`, mock, service.url);
    expect(foreign.map((r) => [r.step, r.status])).toEqual([
      ['company token', 200],
      ['account', 201],
      ['account token', 200],
      ['channel', 400],
    ]);
    const local = await attackFrom(`http://127.0.0.1:${pagePort}`, mock, service.url);
    expect(local.at(-1)).toEqual({ step: 'event', status: 201 });
    const hits = await service.waitFor((r) => r.body?.topic === 'ADDRESS');
    expect(hits).toHaveLength(1);
    expect((await call(mock, 'GET', '/__admin/deliveries')).body.items).toHaveLength(1);
  }, 90_000);
});
