import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's chromium (.ci/run installs it); playwright-core downloads no browser here. */
export const CHROMIUM = process.env.SHIPMOCK_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/** Screenshots are test artifacts (CI keeps test-results/). */
export const SCREENSHOTS = new URL('../../test-results/screenshots/', import.meta.url).pathname;

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium), as .ci/run does, or set SHIPMOCK_CHROMIUM`);
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

/** A page that fails the test on any script error or failed request of the page itself. */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; problems: string[] }> {
  // bypassCSP: axe-core is injected as an inline script, which the pages' own policy forbids.
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, bypassCSP: true });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // A 4xx the test provokes (a refused scenario) is logged by the browser as a failed load: not a
  // problem of the page. Script errors and any 5xx the page gets are.
  page.on('console', (message) => message.type() === 'error' && !message.text().startsWith('Failed to load resource') && problems.push(`console: ${message.text()}`));
  page.on('response', (response) => response.status() >= 500 && problems.push(`${response.status()} from ${response.url()}`));
  await page.goto(url);
  return { page, problems };
}

export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? true });
  return path;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core (WCAG 2 A/AA rules) on the page as it is: no serious or critical violation. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(severe, `${where}: ${JSON.stringify(severe, null, 2)}`).toEqual([]);
}
