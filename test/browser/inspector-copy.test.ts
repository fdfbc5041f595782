import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { call, liveAccount, startLiveMock } from '../support/live-mock.js';
import { createStubCurl, type StubCurl } from '../support/stub-curl.js';
import { launchBrowser, openPage } from './browser-support.js';

/**
 * Issue 23, first row: any web page can send the API a request with a hostile header (the API is
 * CORS-open, and a 401 is journaled); a developer who opens it in the inspector, copies it as
 * curl and pastes it into bash must run nothing but curl, with the request's bytes.
 */
describe('Copy as curl in the inspector (real browser)', () => {
  let mock: RunningMock;
  let browser: Browser;
  let stub: StubCurl;

  beforeAll(async () => {
    mock = await startLiveMock();
    browser = await launchBrowser();
    stub = createStubCurl();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await mock?.close();
    stub?.dispose();
  });

  /** Sends a request, copies it from its inspector row, runs the copy through bash: curl's arguments. */
  async function copiedAndRun(path: string, headers: Record<string, string>, body?: string) {
    const sent = await fetch(`${mock.url}${path}`, { method: 'POST', headers, body });
    expect(sent.status).toBeGreaterThanOrEqual(400);
    // The newest entry: nothing else reaches the mock meanwhile.
    const journal = await call(mock, 'GET', '/__admin/journal?limit=1');
    const seq = journal.body.items.at(-1).seq as number;
    const pathname = path.split('?')[0];
    const kept = await call(mock, 'GET', `/__admin/journal/${seq}`);

    const { page, problems } = await openPage(browser, `${mock.url}/__admin/ui/`);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: mock.url });
    await page.getByLabel('Status').selectOption(`${String(sent.status)[0]}xx`);
    const open = page.getByRole('button', { name: `Open POST ${pathname}`, exact: true }).first();
    await open.waitFor({ timeout: 10_000 });
    await open.click();
    const detail = page.getByRole('region', { name: `Request ${seq}` });
    await detail.getByRole('button', { name: 'Copy as curl' }).click();
    await detail.getByRole('status').filter({ hasText: /^Copied/ }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(await detail.getByLabel('curl command').textContent());
    expect(problems).toEqual([]);
    await page.close();

    const ran = stub.run(copied, { TOKEN: 'the-token' });
    expect(ran.stderr).toBe('');
    // Every header the journal kept but those curl sets itself, Authorization as its placeholder.
    const expectedHeaders = Object.entries(kept.body.exchange.request.headers as Record<string, string>)
      .filter(([name]) => !['host', 'content-length', 'connection', 'accept-encoding', 'user-agent'].includes(name) && !name.startsWith('sec-'))
      .flatMap(([name, value]) => ['-H', name === 'authorization' ? `${name}: ${/^bearer /i.test(value) ? 'Bearer ' : ''}the-token` : `${name}: ${value}`]);
    const query = kept.body.entry.query ? `?${kept.body.entry.query}` : '';
    expect(ran.argv).toEqual(['-i', '-X', 'POST', `${mock.url}${pathname}${query}`, '--globoff', ...expectedHeaders, ...(body ? ['--data-raw', body] : [])]);
    return ran.argv!;
  }

  it('of a request with $(…), backticks and quotes in its Authorization, another header, the query and the body runs nothing and passes the bytes', async () => {
    const note = "`touch pwned-backtick` $(touch pwned-dollar) 'single' \"double\" \\ ! ${IFS} é";
    // Refused at authentication (401): the body is never read, so not journaled.
    const unauthenticated = await copiedAndRun(`/v1/addresses?q=${encodeURIComponent("$(touch pwned-query)'")}`, { Authorization: '$(touch${IFS}pwned-auth) x', 'X-Note': note });
    expect(unauthenticated).toContain(`x-note: ${note}`);
    expect(unauthenticated).toContain('authorization: the-token');
    // Authenticated but invalid (400): the body is journaled, and copied byte for byte.
    const { auth } = await liveAccount(mock);
    const body = `{"name":"$(touch pwned-body)'\`touch pwned-body2\`","street":"it's","city":"B","postalCode":"1","countryCode":"$(touch pwned-country)"}`;
    const invalid = await copiedAndRun('/v1/addresses', { Authorization: auth, 'X-Note': note, 'Content-Type': 'application/json' }, body);
    expect(invalid.at(-1)).toBe(body);
    expect(invalid).toContain('authorization: Bearer the-token');
    expect(stub.files()).toEqual([]);
    // Two pages, two copies: room for a loaded machine.
  }, 90_000);

  it('of a request whose path reads as a URL of another host still targets the mock (the $TOKEN the user sets goes nowhere else)', async () => {
    const argv = await copiedAndRun('/http://attacker.example/steal[1-2]', { Authorization: 'Bearer x' });
    expect(new URL(argv[3]).host).toBe(new URL(mock.url).host);
    expect(argv[4]).toBe('--globoff');
  }, 60_000);
});
