import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { startLiveMock } from '../support/live-mock.js';
import { launchBrowser, openPage, screenshot } from './browser-support.js';

/** /docs: the served contract in Swagger UI, offline, with "Try it out" against this mock. */
describe('the API reference in a real browser', () => {
  let mock: RunningMock;
  let browser: Browser;

  beforeAll(async () => {
    mock = await startLiveMock();
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await mock?.close();
  });

  it('renders every tag of the contract and loads nothing from another origin', async () => {
    const { page, problems } = await openPage(browser, `${mock.url}/docs/`);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.reload();
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
    const tags = await page.locator('.opblock-tag').allTextContents();
    expect(tags.some((t) => t.startsWith('Shipment Bookings'))).toBe(true);
    const contract = (await (await fetch(`${mock.url}/openapi.json`)).json()) as { paths: object; webhooks?: object };
    const operationsOf = (items: object = {}) => Object.values(items).reduce((n, item) => n + Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k)).length, 0);
    expect(await page.locator('.opblock').count()).toBe(operationsOf(contract.paths) + operationsOf(contract.webhooks));
    expect(requested.filter((url) => !url.startsWith(mock.url) && !url.startsWith('data:') && !url.startsWith('blob:'))).toEqual([]);
    expect(await page.locator('.information-container').textContent()).not.toContain('Warning');
    expect(problems).toEqual([]);
  });

  it('fetches a token for the seeded company and tries an operation against this mock', async () => {
    const { page, problems } = await openPage(browser, `${mock.url}/docs/#/Accounts/listAccounts`);
    await page.locator('#operations-Accounts-listAccounts').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Get a token for the seeded company' }).click();
    await page.getByRole('status').filter({ hasText: 'Company token set' }).waitFor();
    const operation = page.locator('#operations-Accounts-listAccounts');
    if (!(await operation.locator('.opblock-body').isVisible())) await operation.locator('.opblock-summary-control').click();
    // tryItOutEnabled: the parameters are editable and Execute is there at once.
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    await operation.locator('.live-responses-table').scrollIntoViewIfNeeded();
    await screenshot(page, 'docs-try-it', { fullPage: false });
    expect(problems).toEqual([]);
  });
});
