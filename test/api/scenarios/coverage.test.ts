import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Every ready scenario (scenarios/*.yaml) is proved by a test in this folder. */
const dir = new URL('../../../scenarios/', import.meta.url);
const here = new URL('./', import.meta.url);
const names = readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));
const tests = readdirSync(here)
  .filter((f) => f.endsWith('.test.ts') && f !== 'coverage.test.ts')
  .map((f) => readFileSync(new URL(f, here), 'utf8'))
  .join('\n');

describe('ready scenarios', () => {
  it.each(names)('%s is activated by a test', (name) => {
    expect(tests).toMatch(new RegExp(`(activate\\('${name}'|'X-Shipmock-Scenario': '${name}'|describe\\('${name}')`));
  });
});
