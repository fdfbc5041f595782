import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPartAppender } from './part-appender.js';

const until = async (done: () => boolean) => {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 10_000) throw new Error('not done in 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('openPartAppender', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('appends every text in order, as UTF-8, whatever their size and while writes are under way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipmock-part-'));
    dirs.push(dir);
    const path = join(dir, 'recording.har.part');
    const errors: Error[] = [];
    const part = openPartAppender(path, (error) => errors.push(error));
    const texts: string[] = [];
    for (let i = 0; i < 2000; i++) {
      // Small ones, two-byte ones, and now and then one larger than the buffer kept (grown) and than 4 MiB (not kept).
      const text = i % 500 === 7 ? `${'é…'.repeat(i === 7 ? 40_000 : 1_500_000)}\n` : `{"n":${i},"auth":"Bearer eyJhbG${i % 3 ? '…' : ''}"}\n`;
      texts.push(text);
      part.append(text);
      if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const expected = Buffer.from(texts.join(''), 'utf8');
    await until(() => existsSync(path) && readFileSync(path).length >= expected.length);
    part.end();
    expect(readFileSync(path).equals(expected)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('tells the first write error and appends nothing after it', async () => {
    const errors: Error[] = [];
    const part = openPartAppender('/dev/full', (error) => errors.push(error));
    part.append('{"a":1}\n');
    await until(() => errors.length > 0);
    part.append('{"b":2}\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    part.end();
    expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['ENOSPC']);
  });
});
