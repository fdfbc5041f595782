import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { HAR_FILE, SCENARIO_FILE } from '../../src/record/recording-files.js';

/**
 * A closed recording folder's HAR file and scenario: byte for byte the converter's (`expected`,
 * written by writeRecording from the same exchanges), and without any of `secrets` — nor any
 * other text the test names (a part file read earlier). Returns both texts.
 */
export function expectRecordedFiles(dir: string, expected: { har: string; scenario: string }, secrets: readonly string[], alsoIn: readonly string[] = []): { har: string; scenario: string } {
  const har = readFileSync(join(dir, HAR_FILE), 'utf8');
  const scenario = readFileSync(join(dir, SCENARIO_FILE), 'utf8');
  expect(har).toBe(expected.har);
  expect(scenario).toBe(expected.scenario);
  for (const secret of secrets) for (const text of [har, scenario, ...alsoIn]) expect(text).not.toContain(secret);
  return { har, scenario };
}
