import { accessSync, closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync, unlinkSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, resolve } from 'node:path';

/**
 * What `--data FILE` may touch, and the lock that makes one data file one mock.
 *
 * A data file is claimed before SQLite opens it: the path must name a regular file (through any
 * symlinks) or a missing name in an existing, writable folder; a file shipmock did not create
 * keeps its mode; a missing file is created 0600 (SQLite gives -wal and -shm the same mode).
 *
 * The lock is on the file ITSELF (its inode), so every path that reaches it — a symlink, a hard
 * link, a relative path — meets the same lock, and there is no side file that could be deleted
 * under a running mock. It is an open-file-description lock (Linux: fcntl F_OFD_SETLK; macOS:
 * flock) on one byte far past the bytes SQLite locks (0x40000000..0x400001FF), so SQLite's own
 * locking and any reader (the sqlite3 shell) are unaffected, and closing another descriptor of
 * the file does not drop it. The OS releases it when the process dies, kill -9 included. A mock
 * of one process holds it exclusively; every process of the shared layout (`--workers`) holds it
 * shared, so the two layouts refuse each other while either runs.
 */

/** One byte SQLite never locks (its pending/reserved/shared bytes end at 0x400001FF). */
const LOCK_OFFSET = 0x40010000;

interface NativeLocks {
  tryLock(fd: number, offset: number, length: number, options?: { shared?: boolean }): boolean;
  unlock(fd: number, offset: number, length: number): void;
}
const locks = createRequire(import.meta.url)('fs-native-extensions') as NativeLocks;

/** A data file that cannot be used; the message names the file, why, and what to do. */
export class DataFileError extends Error {
  constructor(path: string, problem: string, remedy: string) {
    super(`--data ${path}: ${problem}. ${remedy} Nothing was changed.`);
    this.name = 'DataFileError';
  }
}

/** The lock could not be made exclusive: another process holds it shared (it may be starting too: try again shortly). */
export class ClaimContendedError extends DataFileError {
  constructor(path: string, problem: string, remedy: string) {
    super(path, problem, remedy);
    this.name = 'ClaimContendedError';
  }
}

export interface ClaimedDataFile {
  /** The file SQLite opens (symlinks resolved: SQLite puts -wal and -shm beside it). */
  target: string;
  /** A read-write descriptor of the file, holding the lock. */
  fd: number;
  /** This start created the file (the path was missing). */
  created: boolean;
  /** Size when claimed (0: a new database). */
  size: number;
  /** Hard links to the file (the shared layout refuses more than one: SQLite names its WAL by path). */
  links: number;
  /** Makes the lock exclusive (a mock of one process); a ClaimContendedError while another process holds it. */
  upgrade(): void;
  /**
   * Another process holds the file (a running worker of the shared layout, or a mock starting
   * on it): its bytes may be mid-write. Asked by trying the lock exclusive and, when that
   * succeeds, keeping it as it was (an OFD lock converts in place).
   */
  inUseByOthers(): boolean;
  /** Releases the lock (after SQLite has closed the file). */
  release(): void;
  /** After a refusal: releases, and removes what this start created (the file if new, -wal, -shm, -journal). */
  abandon(): void;
}

const SIDE_FILES = ['-wal', '-shm', '-journal'];

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? '';

/**
 * Checks what the path names, opens (or creates) it and takes the lock shared: refused while a
 * mock of one process holds it. A mock of one process then reads the layout and `upgrade`s to
 * exclusive before it writes anything (refused while any other process holds it); the shared
 * layout keeps it shared. Nothing is created or changed when it refuses.
 * @example const claim = claimDataFile('/tmp/mock.db', 'one-process'); claim.upgrade(); … claim.release();
 */
export function claimDataFile(path: string, purpose: 'one-process' | 'workers'): ClaimedDataFile {
  const { target, existing } = examineDataFile(path);
  const sidesBefore = new Set(SIDE_FILES.filter((suffix) => existsSync(`${target}${suffix}`)));
  const { fd, created, stats } = openDataFile(path, target, existing);
  lockDataFileShared(path, target, fd, purpose);
  let exclusive = false;

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    try {
      locks.unlock(fd, LOCK_OFFSET, 1);
    } finally {
      closeSync(fd);
    }
  };
  return {
    target,
    fd,
    created,
    size: stats.size,
    links: stats.nlink,
    upgrade() {
      if (exclusive) return;
      if (!locks.tryLock(fd, LOCK_OFFSET, 1)) {
        throw new ClaimContendedError(
          path,
          `is in use by ${purpose === 'workers' ? 'another process' : 'running shipmock workers (the shared layout) or another starting shipmock'}${holdersOf(target)}`,
          'Stop them first, start this one with the same --workers, or give it another --data file.',
        );
      }
      exclusive = true;
    },
    inUseByOthers() {
      if (exclusive) return false;
      if (!locks.tryLock(fd, LOCK_OFFSET, 1)) return true;
      locks.tryLock(fd, LOCK_OFFSET, 1, { shared: true });
      return false;
    },
    release,
    abandon() {
      if (released) return;
      // Removed only while this process is the file's one user.
      if (!exclusive && !locks.tryLock(fd, LOCK_OFFSET, 1)) return release();
      for (const suffix of SIDE_FILES) {
        if (sidesBefore.has(suffix)) continue;
        try {
          unlinkSync(`${target}${suffix}`);
        } catch {
          // not there
        }
      }
      if (created) {
        try {
          unlinkSync(target);
        } catch {
          // gone already
        }
      }
      release();
    },
  };
}

/** Where the data file really is, and its stats if it exists; throws a DataFileError for a path that cannot be used. */
function examineDataFile(path: string): { target: string; existing: Stats | undefined } {
  let linked: Stats | undefined;
  try {
    linked = lstatSync(path);
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw new DataFileError(path, `cannot be examined (${(error as Error).message})`, 'Check the path and the permissions of its folders.');
  }
  let target = resolve(path);
  if (linked?.isSymbolicLink()) {
    try {
      target = realpathSync(path);
    } catch {
      const to = (() => {
        try {
          return readlinkSync(path);
        } catch {
          return '?';
        }
      })();
      throw new DataFileError(path, `is a symlink to ${to}, which does not exist`, 'Point --data at the file itself, or at a new file in an existing folder.');
    }
  }
  const existing = linked ? statSync(target) : undefined;
  const folder = dirname(target);
  if (!existing) {
    let folderStats: Stats | undefined;
    try {
      folderStats = statSync(folder);
    } catch {
      // reported below
    }
    if (!folderStats?.isDirectory()) throw new DataFileError(path, `cannot be created: the folder ${folder} does not exist`, `Create the folder first (mkdir -p ${folder}), or pass a path in an existing folder.`);
  } else if (!existing.isFile()) {
    const remedy = existing.isDirectory() ? `Pass a file name inside it, e.g. --data ${path.replace(/\/+$/, '')}/shipmock.db.` : 'Pass the path of a regular file, or of a new file in an existing folder.';
    throw new DataFileError(path, `is ${kindOf(existing)}, not a regular file`, remedy);
  }
  try {
    accessSync(folder, constants.W_OK);
  } catch (error) {
    throw new DataFileError(path, `is in a folder this user cannot write (${folder}: ${codeOf(error)}); SQLite keeps ${basename(target)}-wal and -shm beside the file`, 'Make the folder writable, or move the file to a writable folder.');
  }
  if (existing && existing.size === 0 && typeof process.getuid === 'function' && existing.uid !== process.getuid()) {
    throw new DataFileError(path, `is an empty file that belongs to another user (uid ${existing.uid})`, 'Pass a path where shipmock can create its own file (it creates it 0600: it will hold secrets).');
  }
  return { target, existing };
}

/** Opens (or creates, 0600) the data file and checks it is a regular file. */
function openDataFile(path: string, target: string, existing: Stats | undefined): { fd: number; created: boolean; stats: Stats } {
  let fd: number;
  let created = false;
  try {
    // O_NONBLOCK: a FIFO swapped in after the check must not hang the start.
    fd = openSync(target, existing ? constants.O_RDWR | constants.O_NONBLOCK : constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NONBLOCK, 0o600);
    created = !existing;
  } catch (error) {
    const code = codeOf(error);
    // Created meanwhile (the workers of --workers start together on a new file): opened as the
    // file it now is — never through a symlink planted there, and checked below like any other.
    if (code === 'EEXIST' && !existing) return openCreatedMeanwhile(path, target);
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      throw new DataFileError(path, `cannot be ${existing ? 'written' : 'created'} by this user (${code}${code === 'EROFS' ? ': a read-only file system' : ''})`, existing ? `Make it writable (chmod u+w ${path}), or pass another --data file.` : 'Pass a path in a writable folder.');
    }
    throw new DataFileError(path, `cannot be opened (${(error as Error).message})`, 'Check the path and its permissions.');
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw new DataFileError(path, `is ${kindOf(stats)}, not a regular file`, 'Pass the path of a regular file, or of a new file in an existing folder.');
  }
  return { fd, created, stats };
}

/** Opens a data file another process created after this one found none (no symlink followed). */
function openCreatedMeanwhile(path: string, target: string): { fd: number; created: boolean; stats: Stats } {
  let fd: number;
  try {
    fd = openSync(target, constants.O_RDWR | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ELOOP') throw new DataFileError(path, 'became a symlink while shipmock was creating it', 'Pass the path of a regular file, or of a new file in an existing folder.');
    throw new DataFileError(path, `cannot be opened (${(error as Error).message})`, 'Check the path and its permissions.');
  }
  const stats = fstatSync(fd);
  const foreign = typeof process.getuid === 'function' && stats.uid !== process.getuid();
  if (!stats.isFile() || foreign) {
    closeSync(fd);
    throw new DataFileError(path, stats.isFile() ? `was created meanwhile by another user (uid ${stats.uid})` : `is ${kindOf(stats)}, not a regular file`, 'Pass the path of a regular file, or of a new file in an existing folder.');
  }
  return { fd, created: false, stats };
}

/** Takes the shared lock on the data file; closes fd and throws when another mock holds it. */
function lockDataFileShared(path: string, target: string, fd: number, purpose: 'one-process' | 'workers'): void {
  let held = false;
  try {
    held = locks.tryLock(fd, LOCK_OFFSET, 1, { shared: true });
  } catch (error) {
    closeSync(fd);
    throw new DataFileError(path, `cannot be locked (${(error as Error).message})`, 'Put the file on a local file system.');
  }
  if (!held) {
    closeSync(fd);
    throw new DataFileError(
      path,
      `is in use by ${purpose === 'workers' ? 'a running shipmock of one process' : 'another running shipmock'}${holdersOf(target)}`,
      `Stop that mock first, or give ${purpose === 'workers' ? 'the workers' : 'this one'} another --data file.`,
    );
  }
}

/** " (process 123)" when the system tells who holds the file's lock, else "". */
function holdersOf(target: string): string {
  const holders = lockHolders(target, process.pid);
  return holders.length ? ` (process${holders.length > 1 ? 'es' : ''} ${holders.join(', ')})` : '';
}

/**
 * The processes holding the lock of a data file, where the system tells (Linux /proc: the
 * descriptors of the file whose fdinfo lists an OFD lock); [] elsewhere or when not allowed to look.
 */
export function lockHolders(target: string, self?: number): number[] {
  const found = new Set<number>();
  let wanted: Stats;
  try {
    wanted = statSync(target);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry) || Number(entry) === self) continue;
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${entry}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        try {
          const stats = statSync(`/proc/${entry}/fd/${fd}`);
          if (stats.ino !== wanted.ino || stats.dev !== wanted.dev) continue;
          if (/OFDLCK/.test(readFileSync(`/proc/${entry}/fdinfo/${fd}`, 'utf8'))) found.add(Number(entry));
        } catch {
          // gone meanwhile, or not ours to read
        }
      }
    }
  } catch {
    // no /proc
  }
  return [...found].sort((a, b) => a - b);
}
