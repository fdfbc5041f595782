import { copyFileSync, mkdtempSync, openSync, closeSync, readFileSync, statSync, truncateSync, writeSync } from 'node:fs';
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

/**
 * The files a process killed in the middle of a checkpoint leaves: copied while the writer is
 * still open (its commits only in the write-ahead log), then page 1 of the main file overwritten
 * with the log's newest page 1 — the first page a checkpoint writes, before the ones that
 * lengthen the file. Returns the copy and how many notes its writer committed.
 */
function killedMidCheckpoint(): { path: string; notes: number } {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-header-'));
  const writer = openSqliteStore(join(dir, 'live.db'));
  const notes = writer.account('a1').collection<{ id: string; text: string }>('notes');
  writer.commit();
  for (let i = 0; i < 300; i++) notes.insert({ id: `n${i}`, text: 'x'.repeat(400) });
  writer.commit();
  const path = join(dir, 'killed.db');
  copyFileSync(join(dir, 'live.db'), path);
  copyFileSync(join(dir, 'live.db-wal'), `${path}-wal`);
  writer.close();
  const log = readFileSync(`${path}-wal`);
  const pageSize = log.readUInt32BE(8);
  let newestPageOne: Buffer | undefined;
  for (let frame = 32; frame + 24 + pageSize <= log.length; frame += 24 + pageSize) {
    if (log.readUInt32BE(frame) === 1) newestPageOne = log.subarray(frame + 24, frame + 24 + pageSize);
  }
  if (!newestPageOne) throw new Error('the log holds no page 1');
  const fd = openSync(path, 'r+');
  writeSync(fd, newestPageOne, 0, pageSize, 0);
  closeSync(fd);
  return { path, notes: 300 };
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

  it('opens a file killed in the middle of a checkpoint: its header runs ahead of its length, and the write-ahead log holds the rest', () => {
    const { path, notes } = killedMidCheckpoint();
    const header = readFileSync(path).subarray(0, 100);
    expect(statSync(path).size).toBeLessThan(header.readUInt32BE(28) * header.readUInt16BE(16));
    const store = openSqliteStore(path);
    try {
      expect(store.account('a1').collection<{ id: string; text: string }>('notes').values()).toHaveLength(notes);
    } finally {
      store.close();
    }
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
