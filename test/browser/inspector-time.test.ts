import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { call, liveAccount, startLiveMock, type LiveAccount } from '../support/live-mock.js';
import { launchBrowser, openPage } from './browser-support.js';

/**
 * The Traffic tab's Time column in Debian's chromium (issue 25): the time of day while the
 * virtual clock is on today's date, the date as well once time travel has left today — else two
 * requests a day apart read the same.
 */
describe('the inspector Time column after time travel', () => {
  let mock: RunningMock;
  let browser: Browser;
  let account: LiveAccount;
  let today: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    // "Today" as the page sees it (UTC, like the mock's clock); the virtual clock starts on it at 10:00.
    const probe = await openPage(browser, 'about:blank');
    today = await probe.page.evaluate(() => new Date().toISOString().slice(0, 10));
    await probe.page.close();
    mock = await startLiveMock({ clock: { mode: 'manual', start: `${today}T10:00:00.000Z` } });
    account = await liveAccount(mock);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await mock?.close();
  });

  it('shows 10:00:00 for a request made today and the date for one made two days later', async () => {
    const { page, problems } = await openPage(browser, `${mock.url}/__admin/ui/`);
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();

    const before = await call(mock, 'GET', '/v1/addresses', { auth: account.auth });
    expect(before.status).toBe(200);
    const advanced = await call(mock, 'POST', '/__admin/clock/advance', { body: { duration: 'P2D' } });
    expect(advanced.status).toBe(200);
    const later = new Date(Date.parse(`${today}T10:00:00.000Z`) + 2 * 86_400_000).toISOString().slice(0, 10);
    expect(advanced.body.now.slice(0, 10)).toBe(later);
    // A fresh token: the one from before expired on the way (4 h).
    const after = await call(mock, 'GET', '/v1/parcels', { auth: await account.renew() });
    expect(after.status).toBe(200);

    const rowOf = (path: string) => page.locator('tbody tr', { has: page.getByRole('button', { name: `Open GET ${path}`, exact: true }) });
    await rowOf('/v1/parcels').waitFor({ timeout: 10_000 });
    const timeOf = async (path: string) => (await rowOf(path).locator('td').first().textContent())?.trim();
    expect(await timeOf('/v1/addresses')).toBe('10:00:00');
    expect(await timeOf('/v1/parcels')).toBe(`${later} 10:00:00`);
    expect(problems).toEqual([]);
    await page.close();
  });
});
