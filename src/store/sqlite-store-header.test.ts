import { mkdtempSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimDataFile, DataFileError } from './data-file.js';
import { openSqliteStore } from './sqlite-store.js';

/** A data file of some pages, closed, then cut to half its length. */
function truncatedFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'shipmock-header-')), 'x.db');
  const store = openSqliteStore(path);
  const notes = store.account('a1').collection<{ id: string; text: string }>('notes');
  for (let i = 0; i < 200; i++) notes.insert({ id: `n${i}`, text: 'x'.repeat(200) });
  store.commit();
  store.close();
  truncateSync(path, Math.floor(statSync(path).size / 2));
  return path;
}

const refusalOf = (open: () => unknown): Error => {
  try {
    open();
  } catch (error) {
    return error as Error;
  }
  throw new Error('opened');
};

describe("the data file's header check", () => {
  it('refuses a file shorter than its header says when nobody else has it open', () => {
    expect(refusalOf(() => openSqliteStore(truncatedFile())).message).toMatch(/is truncated/);
  });

  it('leaves a file another process runs on to SQLite (its header may run ahead of its length mid-checkpoint)', () => {
    const path = truncatedFile();
    const running = claimDataFile(path, 'workers');
    try {
      // SQLite reads it under its own locks, and finds this one damaged.
      const refusal = refusalOf(() => openSqliteStore(path));
      expect(refusal).toBeInstanceOf(DataFileError);
      expect(refusal.message).not.toMatch(/truncated/);
      expect(refusal.message).toMatch(/cannot be read \(database disk image is malformed\)/);
    } finally {
      running.release();
    }
    expect(refusalOf(() => openSqliteStore(path)).message).toMatch(/is truncated/);
  });
});
