import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { lockHolders } from '../store/data-file.js';

interface NativeLocks {
  tryLock(fd: number, offset: number, length: number, options?: { shared?: boolean }): boolean;
  unlock(fd: number, offset: number, length: number): void;
}
const locks = createRequire(import.meta.url)('fs-native-extensions') as NativeLocks;

/** The lock file of a recording folder; it stays behind (empty) and is harmless when no one holds it. */
export const LOCK_FILE = '.shipmock-record.lock';

/** Another process (or another recorder of this one) records into the folder now. */
export class FolderLockedError extends Error {
  constructor(folder: string, holders: number[]) {
    const who = holders.length ? ` (process${holders.length > 1 ? 'es' : ''} ${holders.join(', ')})` : '';
    super(`${folder}: another shipmock records into this folder now${who}. Stop it first, or record into another folder. Nothing was changed.`);
    this.name = 'FolderLockedError';
  }
}

/**
 * Claims a recording folder for one recorder: an exclusive open-file-description lock on
 * `DIR/.shipmock-record.lock` (the lock `--data` files use, src/store/data-file.ts), which the
 * OS drops when the process dies, kill -9 included — so a crashed run leaves no stale lock, and
 * two runs at once cannot both write the folder: the second is refused before it changes anything.
 * The folder is created if missing.
 *
 * @example const lock = lockRecordingFolder('recordings/staging'); try { … } finally { lock.release(); }
 */
export function lockRecordingFolder(folder: string): { release(): void } {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, LOCK_FILE);
  const fd = openSync(path, 'a', 0o600);
  let held = false;
  try {
    held = locks.tryLock(fd, 0, 1);
  } catch (error) {
    closeSync(fd);
    throw new Error(`${folder}: the recording folder cannot be locked (${(error as Error).message}); put it on a local file system`);
  }
  if (!held) {
    closeSync(fd);
    throw new FolderLockedError(folder, lockHolders(path, process.pid));
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        locks.unlock(fd, 0, 1);
      } finally {
        closeSync(fd);
      }
    },
  };
}
