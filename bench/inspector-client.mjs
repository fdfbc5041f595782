#!/usr/bin/env node
// A person watching the inspector, for `npm run bench -- --inspector`: opens /__admin/ui/ in
// headless chromium (Debian's, through playwright-core) and keeps the Traffic tab streaming
// until killed. Prints "ready" once the page says it is live.
import { chromium } from 'playwright-core';

const url = process.argv[2];
const browser = await chromium.launch({
  executablePath: process.env.SHIPMOCK_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
await page.goto(`${url}/__admin/ui/#traffic`);
await page.getByRole('status').filter({ hasText: 'live' }).waitFor({ timeout: 30_000 });
process.stdout.write('ready\n');
process.on('SIGTERM', () => browser.close().finally(() => process.exit(0)));
