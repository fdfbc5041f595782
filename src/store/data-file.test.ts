import * as fs from 'node:fs';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * The window between finding no data file and creating it: another process (a worker of
 * --workers, started at the same moment) may create it first. `meanwhile` runs in that window,
 * just before shipmock's exclusive create.
 */
let meanwhile: ((path: string) => void) | undefined;
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return {
    ...real,
    openSync(path: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) {
      if (typeof flags === 'number' && flags & real.constants.O_EXCL && meanwhile) {
        const run = meanwhile;
        meanwhile = undefined;
        run(String(path));
      }
      return real.openSync(path, flags ?? 'r', mode);
    },
  };
});

const { claimDataFile, DataFileError } = await import('./data-file.js');

const folders: string[] = [];
const newFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), 'shipmock-data-file-'));
  folders.push(folder);
  return folder;
};
afterEach(() => {
  meanwhile = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('claimDataFile when another process creates the file at the same moment', () => {
  it('opens the file the other process created (not a refusal), as one it did not create', () => {
    const path = join(newFolder(), 'shared.db');
    meanwhile = (target) => writeFileSync(target, '', { mode: 0o600 });
    const claim = claimDataFile(path, 'workers');
    try {
      expect(claim.created).toBe(false);
      expect(fs.statSync(path).isFile()).toBe(true);
    } finally {
      claim.release();
    }
  });

  it('refuses a symlink planted in that moment, and leaves its target alone', () => {
    const folder = newFolder();
    const path = join(folder, 'shared.db');
    const elsewhere = join(folder, 'elsewhere');
    writeFileSync(elsewhere, 'precious');
    meanwhile = (target) => symlinkSync(elsewhere, target);
    let refused: unknown;
    try {
      claimDataFile(path, 'workers').release();
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DataFileError);
    expect((refused as Error).message).toMatch(/became a symlink/);
    expect(fs.readFileSync(elsewhere, 'utf8')).toBe('precious');
  });
});

describe('claim.inUseByOthers', () => {
  it('is true while another claim holds the file, false once it is the one holder, and leaves the lock shared', () => {
    const path = join(newFolder(), 'shared.db');
    const first = claimDataFile(path, 'workers');
    const second = claimDataFile(path, 'workers');
    try {
      expect(first.inUseByOthers()).toBe(true);
      expect(second.inUseByOthers()).toBe(true);
      second.release();
      expect(first.inUseByOthers()).toBe(false);
      // Asking did not keep it exclusive: another worker still claims the file.
      const third = claimDataFile(path, 'workers');
      expect(first.inUseByOthers()).toBe(true);
      third.release();
    } finally {
      first.release();
      second.release();
    }
  });
});
