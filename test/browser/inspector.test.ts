import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { call, liveAccount, startLiveMock, type LiveAccount } from '../support/live-mock.js';
import { behaviours, startWebhookReceiver } from '../support/webhook-receiver.js';
import { liveBooking } from '../support/live-booking.js';
import { expectAccessible, launchBrowser, openPage, screenshot } from './browser-support.js';

/**
 * The inspector (/__admin/ui/) driven in Debian's chromium against a mock on a real socket:
 * what a newcomer does with it — watch requests arrive, find why one failed, drive the clock,
 * a scenario and a dead webhook, preview a label — and an accessibility check on every tab.
 */
describe('the inspector in a real browser', () => {
  let mock: RunningMock;
  let browser: Browser;
  let account: LiveAccount;
  const pages: Page[] = [];

  beforeAll(async () => {
    // Two attempts per delivery, so a dead letter comes after one clock advance.
    mock = await startLiveMock({ webhooks: { maxAttempts: 2 } });
    browser = await launchBrowser();
    account = await liveAccount(mock);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await mock?.close();
  });

  async function inspector(hash = ''): Promise<{ page: Page; problems: string[] }> {
    const opened = await openPage(browser, `${mock.url}/__admin/ui/${hash}`);
    pages.push(opened.page);
    return opened;
  }

  async function openAccount(page: Page) {
    await page.goto(`${mock.url}/__admin/ui/#state`);
    await page.getByRole('button', { name: /^Muster GmbH/ }).first().click();
  }

  it('GET / leads to the inspector, and a booking made through the API appears live', async () => {
    const { page, problems } = await openPage(browser, `${mock.url}/`);
    expect(page.url()).toBe(`${mock.url}/__admin/ui/`);
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    const booking = await liveBooking(mock, account, 'PNG');
    const open = page.getByRole('button', { name: 'Open POST /v1/shipment-bookings' });
    await open.waitFor({ timeout: 5_000 });
    const row = page.locator('tr', { has: open });
    expect(await row.textContent()).toContain('201');
    expect(await row.textContent()).toContain('createShipmentBooking');
    expect(await row.textContent()).toContain('valid');
    await open.click();
    const detail = page.getByRole('region', { name: /^Request \d+$/ });
    await detail.getByText(booking.id).first().waitFor();
    await screenshot(page, 'inspector-traffic');
    await expectAccessible(page, 'Traffic with a request open');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a request the contract refuses opens to each violation with its field path, and copies as curl', async () => {
    const { page, problems } = await inspector();
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    const bad = await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: { name: 7, street: 'Hauptstr. 5', city: 'Berlin', postalCode: '10115', countryCode: 'DEU' } });
    expect(bad.status).toBe(400);
    await page.getByLabel('Status').selectOption('4xx');
    const open = page.getByRole('button', { name: 'Open POST /v1/addresses' });
    await open.waitFor();
    expect(await page.locator('tr', { has: open }).textContent()).toContain('request invalid');
    await open.click();
    const violations = page.getByRole('region', { name: /^Request \d+$/ }).locator('.violations').first();
    await violations.getByText('body/name').waitFor();
    await violations.getByText('body/countryCode').first().waitFor();
    const curl = await page.getByLabel('curl command').textContent();
    expect(curl).toContain(`curl -i -X POST '${mock.url}/v1/addresses'`);
    expect(curl).toContain(`-H 'authorization: Bearer '"$TOKEN"`);
    expect(curl).toContain(`--data-raw '{"name":7`);
    await screenshot(page, 'inspector-violation');
    expect(problems).toEqual([]);
  });

  it('advancing the clock from the page moves a tracker along its journey', async () => {
    const booking = await liveBooking(mock, account, 'PDF');
    const { page, problems } = await inspector('#clock');
    const due = page.locator('table.due');
    await due.getByText('tracker-step').first().waitFor();
    const before = await page.getByTestId('virtual-now').textContent();
    await page.getByLabel('ISO duration').fill('P5D');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Advanced by P5D' }).waitFor();
    await page.waitForFunction((old) => document.querySelector('[data-testid="virtual-now"]')?.textContent !== old, before);
    await expectAccessible(page, 'Clock');
    await screenshot(page, 'inspector-clock');
    // The booking's tracker timeline (State tab) now ends with the delivery.
    await openAccount(page);
    await page.getByRole('button', { name: /^shipment-bookings/ }).click();
    await page.getByRole('button', { name: new RegExp(`^${booking.id}`) }).click();
    const timeline = page.getByRole('list', { name: `Timeline of ${booking.trackingNumber}` });
    await timeline.getByText('DELIVERED').waitFor();
    expect(await timeline.locator('li').count()).toBeGreaterThan(2);
    // Tokens live 4 hours of virtual time: the tests after this one need a fresh one.
    account.auth = await account.renew();
    expect(problems).toEqual([]);
  });

  it('a scenario written on the page is checked at its line, and once active the next call gets 429', async () => {
    const { page, problems } = await inspector('#scenarios');
    const editor = page.getByLabel('Scenario YAML');
    await editor.fill('name: page-429\nrules:\n  - name: limited\n    match:\n      path: /v1/addresses\n    effect:\n      respond:\n        status: 429\n        retryAfter: 5\n        colour: red\n');
    await page.getByRole('button', { name: 'Validate and activate' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'not activated' });
    await alert.getByText(/line 10/).waitFor();
    expect(await page.locator('.gutter .bad-line').textContent()).toBe('10');
    await editor.fill('name: page-429\nrules:\n  - name: limited\n    match:\n      path: /v1/addresses\n    effect:\n      respond:\n        status: 429\n        retryAfter: 5\n');
    await page.getByRole('button', { name: 'Validate and activate' }).click();
    await page.getByRole('status').filter({ hasText: 'Activated page-429' }).waitFor();
    const refused = await call(mock, 'GET', '/v1/addresses', { auth: account.auth });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    await page.getByRole('button', { name: 'Deactivate page-429' }).waitFor();
    await expectAccessible(page, 'Scenarios');
    await screenshot(page, 'inspector-scenarios');
    await page.getByRole('button', { name: 'Deactivate page-429' }).click();
    await page.getByRole('status').filter({ hasText: 'Deactivated page-429' }).waitFor();
    expect((await call(mock, 'GET', '/v1/addresses', { auth: account.auth })).status).toBe(200);
    // A ready scenario, scoped to the account from the page.
    await page.getByLabel('Activate for').selectOption(account.accountId);
    await page.getByRole('button', { name: 'Activate rate-limit-burst' }).click();
    await page.getByRole('status').filter({ hasText: `Activated rate-limit-burst for account ${account.accountId}` }).waitFor();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(mock, 'GET', '/v1/addresses', { auth: account.auth })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    await page.getByRole('button', { name: 'Deactivate rate-limit-burst' }).click();
    // The next test's calls must not race the deactivation (its burst window would answer them 429).
    await page.getByRole('status').filter({ hasText: 'Deactivated rate-limit-burst' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('a dead webhook is marked as such and redelivered from the page', async () => {
    const receiver = await startWebhookReceiver(behaviours.failTimes(2));
    const channel = await call(mock, 'POST', '/v1/event-channels', { auth: account.auth, body: { name: 'hooks', topics: ['ADDRESS'], webhook: { url: receiver.url } } });
    expect(channel.status).toBe(201);
    await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: { name: 'Dead Letter', street: 'Hauptstr. 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' } });
    await receiver.waitFor(() => true, { count: 1 });
    await call(mock, 'POST', '/__admin/clock/advance', { body: { duration: 'PT1H' } });
    await receiver.waitFor(() => true, { count: 2 });
    let failed: { id: string } | undefined;
    for (let i = 0; i < 200 && !failed; i++) {
      failed = (await call(mock, 'GET', `/__admin/deliveries?status=FAILED&channel_id=${channel.body.id}`)).body.items[0];
      if (!failed) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(failed).toBeDefined();
    const { page, problems } = await inspector('#webhooks');
    await page.getByText(`hooks`, { exact: true }).waitFor();
    const row = page.locator('tr.dead-letter', { hasText: failed!.id.slice(0, 8) });
    expect(await row.textContent()).toContain('dead letter');
    await row.getByRole('button', { name: failed!.id.slice(0, 8), exact: true }).click();
    await page.getByRole('table', { name: `Attempts of ${failed!.id}` }).getByText('500').first().waitFor();
    await expectAccessible(page, 'Webhooks');
    await screenshot(page, 'inspector-webhooks');
    await page.getByRole('button', { name: `Redeliver ${failed!.id}` }).click();
    await page.getByRole('status').filter({ hasText: `Delivery ${failed!.id} sent again` }).waitFor();
    await receiver.waitFor(() => true, { count: 3 });
    await page.locator('tr', { hasText: failed!.id.slice(0, 8) }).getByText('DELIVERED').waitFor({ timeout: 10_000 });
    expect(problems).toEqual([]);
  });

  it('previews a PNG label inline, and every tab passes the accessibility check', async () => {
    const booking = await liveBooking(mock, account, 'PNG');
    const { page, problems } = await inspector('#state');
    await openAccount(page);
    await page.getByRole('button', { name: /^shipment-bookings/ }).click();
    await page.getByRole('button', { name: new RegExp(`^${booking.id}`) }).click();
    const label = page.getByRole('img', { name: `Label ${booking.trackingNumber}` });
    await label.waitFor();
    await page.waitForFunction((name) => {
      const img = [...document.querySelectorAll('img')].find((i) => i.alt === name);
      return !!img && img.complete && img.naturalWidth > 0;
    }, `Label ${booking.trackingNumber}`);
    expect(await label.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(300);
    await expectAccessible(page, 'State with a booking open');
    await screenshot(page, 'inspector-state');
    await page.goto(`${mock.url}/__admin/ui/#usage`);
    await page.getByRole('img', { name: /Tokens per day/ }).waitFor();
    await expectAccessible(page, 'Usage');
    await screenshot(page, 'inspector-usage');
    expect(problems).toEqual([]);
  });

  it('pauses and resumes the live view, exports the state as a file and imports it back after a reset', async () => {
    const created = await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: { name: 'Kept', street: 'Hauptstr. 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' } });
    expect(created.status).toBe(201);
    const { page, problems } = await inspector();
    // The requests made before the page opened are drawn first.
    await page.getByRole('button', { name: 'Open POST /v1/accounts', exact: true }).waitFor({ timeout: 5_000 });
    await page.getByRole('button', { name: 'Pause' }).click();
    const rows = page.locator('table.traffic tbody tr');
    const before = await rows.count();
    await call(mock, 'GET', '/v1/addresses?while=paused', { auth: account.auth });
    await page.getByRole('status').filter({ hasText: 'paused (1 new)' }).waitFor({ timeout: 5_000 });
    expect(await rows.count()).toBe(before);
    await page.getByRole('button', { name: 'Resume' }).click();
    await rows.filter({ hasText: '/v1/addresses?while=paused' }).waitFor({ timeout: 5_000 });

    await page.goto(`${mock.url}/__admin/ui/#state`);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export state' }).click();
    const file = await (await download).path();
    const exported = JSON.parse(readFileSync(file, 'utf8'));
    expect(JSON.stringify(exported)).toContain(account.accountId);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Reset account Muster GmbH' }).first().click();
    await page.getByRole('status').filter({ hasText: `Account ${account.accountId} reset.` }).waitFor({ timeout: 5_000 });
    expect((await call(mock, 'GET', '/v1/addresses', { auth: account.auth })).body.items).toEqual([]);
    await page.getByLabel('Import state').setInputFiles(file);
    await page.getByRole('status').filter({ hasText: /^Imported / }).waitFor({ timeout: 5_000 });
    expect((await call(mock, 'GET', `/v1/addresses/${created.body.id}`, { auth: account.auth })).body.name).toBe('Kept');
    expect(problems).toEqual([]);
  });
});

describe('the inspector of a mock with an admin key', () => {
  it('asks for the key once, then works with it', async () => {
    const mock = await startLiveMock({ adminKey: 'correct-horse-battery' });
    const browser = await launchBrowser();
    try {
      const { page, problems } = await openPage(browser, `${mock.url}/__admin/ui/#clock`);
      await page.getByRole('heading', { name: 'Admin key' }).waitFor();
      await page.getByLabel('Admin key').fill('wrong');
      await page.getByRole('button', { name: 'Use key' }).click();
      await page.getByRole('heading', { name: 'Admin key' }).waitFor();
      await page.getByLabel('Admin key').fill('correct-horse-battery');
      await page.getByRole('button', { name: 'Use key' }).click();
      await page.getByRole('button', { name: 'Advance 4h' }).click();
      await page.getByRole('status').filter({ hasText: 'Advanced by PT4H' }).waitFor();
      expect((await call(mock, 'GET', '/__admin/clock', { headers: { 'X-Admin-Key': 'correct-horse-battery' } })).body.now).toBe('2026-01-01T04:00:00.000Z');
      await expectAccessible(page, 'Clock behind an admin key');
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
      await mock.close();
    }
  });
});
