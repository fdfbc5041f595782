import { afterAll, onTestFinished } from 'vitest';

/**
 * Releases a test resource (a harness, a webhook receiver) when it is no longer used: one made
 * inside a test, when that test ends; one made while a file's tests are collected (module or
 * describe scope), after the file. One made in a beforeAll/beforeEach hook is released by the
 * test file itself (vitest takes no new afterAll hooks once the tests run).
 */
export function releaseWhenDone(release: () => unknown): void {
  try {
    onTestFinished(async () => void (await release()));
  } catch {
    afterAll(async () => void (await release()));
  }
}
