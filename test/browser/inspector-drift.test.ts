import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCompareProxy, type RunningCompare } from '../../src/proxy/compare/compare-proxy.js';
import { driftLogOf } from '../../src/server/drift-log-of.js';
import type { RunningMock } from '../../src/server/start-mock.js';
import { deviating } from '../support/deviating-service.js';
import { basicOf, startLiveMock } from '../support/live-mock.js';
import { berlin } from '../support/shipping-fixtures.js';
import { expectAccessible, launchBrowser, openPage, screenshot } from './browser-support.js';

/** The inspector's Drift tab, in Debian's chromium, over what a compare run against a deviating service recorded. */
describe('the inspector’s drift view in a real browser', () => {
  let behind: RunningMock;
  let real: { server: Server; url: string };
  let mock: RunningMock;
  let compare: RunningCompare;
  let browser: Browser;

  beforeAll(async () => {
    behind = await startLiveMock({ seed: 77 });
    real = await deviating(behind);
    mock = await startLiveMock({ seed: 1 });
    compare = await startCompareProxy({ upstream: real.url, mock: { url: mock.url, credentials: mock.credentials }, drift: driftLogOf(mock), port: 0 });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await compare?.close();
    await mock?.close();
    await new Promise((resolve) => real?.server.close(resolve));
    await behind?.close();
  });

  async function send(method: string, path: string, auth: string, body?: unknown) {
    const res = await fetch(`${compare.url}${path}`, { method, headers: { Authorization: auth, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return (await res.json()) as Record<string, any>;
  }

  it('shows the summary by operation, filters by field and opens a request to its differences', async () => {
    const { page, problems } = await openPage(browser, `${mock.url}/__admin/ui/#drift`);
    await page.getByText('Nothing compared yet').waitFor();

    const grant = { grantType: 'client_credentials' };
    const company = await send('POST', `/v1/companies/${behind.credentials.companyId}/tokens`, basicOf(behind), grant);
    const account = await send('POST', '/v1/accounts', `Bearer ${company.accessToken}`, {
      company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
      contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
    });
    const auth = `Bearer ${(await send('POST', `/v1/accounts/${account.id}/tokens`, basicOf(behind), grant)).accessToken}`;
    const address = await send('POST', '/v1/addresses', auth, berlin);
    await send('GET', `/v1/addresses/${address.id}`, auth);

    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('status').filter({ hasText: '5 request(s) compared, 1 drifted' }).waitFor();
    const summaryRow = page.locator('table.drift-summary tr', { hasText: 'getAddress' });
    expect(await summaryRow.textContent()).toContain('$.zipCode');
    // Only the drifted request is listed by default; the clean ones on request.
    const open = page.getByRole('button', { name: `Open GET /v1/addresses/${address.id}` });
    await open.waitFor();
    const rows = page.getByRole('button', { name: /^Open / });
    expect(await rows.count()).toBe(1);
    await open.click();
    const detail = page.locator('.drift-detail');
    await detail.getByText('$.postalCode').waitFor();
    expect(await detail.textContent()).toContain('missing in the mock');
    expect(await detail.textContent()).toContain('only in the mock');
    await screenshot(page, 'inspector-drift');
    await expectAccessible(page, 'Drift with a request open');

    await page.getByLabel('Drifted requests only').uncheck();
    await page.getByRole('button', { name: 'Open POST /v1/addresses' }).waitFor();
    expect(await rows.count()).toBe(5);
    await page.getByLabel('Field').selectOption('$.zipCode');
    await page.waitForFunction(() => document.querySelectorAll('table.drift > tbody > tr > td > button.link').length === 1);
    expect(await rows.first().getAttribute('aria-label')).toBe(`Open GET /v1/addresses/${address.id}`);
    await page.getByRole('button', { name: 'Clear drift records' }).click();
    await page.getByText('Drift records cleared.').waitFor();
    await page.getByText('Nothing compared yet').waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });
});
