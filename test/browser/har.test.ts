import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioCommand } from '../../src/cli/scenario-command.js';
import type { RunningMock } from '../../src/server/start-mock.js';
import { ADDRESS, call, liveAccount, startLiveMock, type LiveAccount } from '../support/live-mock.js';
import { expectAccessible, launchBrowser, openPage } from './browser-support.js';

/**
 * HAR in and out with a real browser (Debian's chromium): the inspector's "Download HAR" link,
 * and a HAR that Chromium itself saved (recordHar) while a page used the mock's API, turned into
 * a scenario that answers the page's requests with the bytes the page got.
 */
describe('HAR files and a real browser', () => {
  let mock: RunningMock;
  let replay: RunningMock;
  let browser: Browser;
  let account: LiveAccount;
  let site: Server;
  let siteUrl: string;
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-har-'));

  beforeAll(async () => {
    mock = await startLiveMock();
    replay = await startLiveMock({ seed: 7 });
    browser = await launchBrowser();
    account = await liveAccount(mock);
    // A web app on this machine (another port: another origin) that uses the mock's API.
    site = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><title>Address book</title><link rel="icon" href="data:,"></head><body><main><h1>Address book</h1><pre id="out"></pre></main>
<script>
const api = ${JSON.stringify(mock.url)};
const auth = { Authorization: ${JSON.stringify(account.auth)} };
const texts = [];
(async () => {
  const created = await fetch(api + '/v1/addresses', { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: ${JSON.stringify(JSON.stringify(ADDRESS))} });
  texts.push(await created.text());
  const id = JSON.parse(texts[0]).id;
  for (const path of ['/v1/addresses/' + id, '/v1/addresses?limit=5', '/v1/addresses?limit=5']) texts.push(await (await fetch(api + path, { headers: auth })).text());
  document.getElementById('out').textContent = JSON.stringify(texts);
})();
</script></body></html>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await mock?.close();
    await replay?.close();
    site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the inspector downloads the journal as a HAR, with the page’s filters and no secret', async () => {
    await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS });
    await call(mock, 'GET', '/v1/addresses/nope', { auth: account.auth });
    const { page, problems } = await openPage(browser, `${mock.url}/__admin/ui/`);
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    await page.getByRole('button', { name: 'Open GET /v1/addresses/nope' }).waitFor({ timeout: 5_000 });
    await page.getByLabel('Status').selectOption('4xx');
    const link = page.getByRole('link', { name: 'Download HAR' });
    expect(await link.getAttribute('href')).toBe('../journal.har?status=4xx');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toMatch(/^shipmock-journal-.*\.har$/);
    const har = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries.map((e: { response: { status: number } }) => e.response.status)).toEqual([400]);
    expect(JSON.stringify(har)).not.toContain(account.auth.slice('Bearer '.length, 'Bearer '.length + 12));
    await expectAccessible(page, 'Traffic with the Download HAR link');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('behind an admin key, the download sends the key (a plain link could not)', { timeout: 90_000 }, async () => {
    const keyed = await startLiveMock({ adminKey: 'correct-horse-battery' });
    try {
      const other = await liveAccount(keyed);
      await call(keyed, 'GET', '/v1/addresses', { auth: other.auth });
      // The clock tab asks for the key (as in inspector.test.ts); the page keeps it for the session.
      const { page, problems } = await openPage(browser, `${keyed.url}/__admin/ui/#clock`);
      await page.getByRole('heading', { name: 'Admin key' }).waitFor();
      await page.getByLabel('Admin key').fill('correct-horse-battery');
      await page.getByRole('button', { name: 'Use key' }).click();
      await page.getByRole('button', { name: 'Advance 4h' }).waitFor();
      await page.goto(`${keyed.url}/__admin/ui/#traffic`);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download HAR' }).click()]);
      const har = JSON.parse(readFileSync((await download.path())!, 'utf8'));
      expect(har.log.entries.map((e: { request: { url: string } }) => new URL(e.request.url).pathname)).toContain('/v1/addresses');
      expect(problems).toEqual([]);
      await page.context().close();
    } finally {
      await keyed.close();
    }
  });

  it('a HAR Chromium saved (recordHar) becomes a scenario that answers the page’s requests with the same bytes', async () => {
    const harPath = join(dir, 'address-book.har');
    const context = await browser.newContext({ recordHar: { path: harPath } });
    const page = await context.newPage();
    await page.goto(siteUrl);
    const out = page.locator('#out');
    await out.filter({ hasText: '[' }).waitFor({ timeout: 10_000 });
    const seen = JSON.parse((await out.textContent())!) as string[];
    await context.close(); // writes the HAR
    const har = JSON.parse(readFileSync(harPath, 'utf8'));
    expect(har.log.creator.name).toMatch(/playwright/i);

    // The command line: the page, its preflights and favicon are no operations of the contract.
    const scenarioPath = join(dir, 'address-book.json');
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => stderr.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      await scenarioCommand(['from-har', harPath, '--out', scenarioPath]);
    } finally {
      process.stderr.write = write;
    }
    expect(stderr.join('')).toMatch(/4 exchanges → 3 rules/);
    expect(stderr.join('')).toMatch(/is no operation of the contract/);
    const scenario = JSON.parse(readFileSync(scenarioPath, 'utf8'));
    expect(scenario.name).toBe('address-book');
    expect(readFileSync(scenarioPath, 'utf8')).not.toContain(account.auth.slice('Bearer '.length));

    // The same HAR over the control plane, on another mock: it answers what the page got.
    const other = await liveAccount(replay);
    const res = await fetch(`${replay.url}/__admin/scenarios?name=address-book&account_id=${other.accountId}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(har) });
    const view = await res.json();
    expect(res.status, JSON.stringify(view)).toBe(201);
    expect(view.rules).toHaveLength(3);
    const id = JSON.parse(seen[0]).id as string;
    const created = await call(replay, 'POST', '/v1/addresses', { auth: other.auth, body: ADDRESS });
    const read = await call(replay, 'GET', `/v1/addresses/${id}`, { auth: other.auth });
    const listed = [await call(replay, 'GET', '/v1/addresses?limit=5', { auth: other.auth }), await call(replay, 'GET', '/v1/addresses?limit=5', { auth: other.auth })];
    expect([created.text, read.text, ...listed.map((l) => l.text)]).toEqual(seen);
  });
});
