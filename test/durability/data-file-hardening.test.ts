import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADDRESS } from '../support/live-mock.js';
import { call, expectStatus, newAccount, runToExit, holdsFor, until, childrenOfEachTest } from './child-mock.js';

/**
 * Issue 23, the rows about --data: one data file is one mock whatever path reaches it; a store
 * that cannot write is refused at start and answered 503 (and recovers) at run time; --data
 * touches only what it owns. Through real `shipmock serve` processes.
 */
const tempDir = () => mkdtempSync(join(tmpdir(), 'shipmock-h23-'));
const isRoot = process.getuid?.() === 0;
/** The tests run as root, whom file modes do not stop: read-only cases hold the mock to file modes (child-mock.ts heldToModes); nobody owns another user's file. */
const nobody = { uid: 65534, gid: 65534 };

const { start, letGo } = childrenOfEachTest();
const filesIn = (dir: string) => readdirSync(dir).sort();

describe('one data file is one mock, whatever path reaches it', () => {
  it('refuses a second mock through a symlink, a hard link, a relative path and after its side files were deleted, naming the holder; the first keeps every write', async () => {
    const dir = tempDir();
    const data = join(dir, 'a.db');
    const first = await start(['--data', data]);
    const account = await newAccount(first);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await expectStatus(call(first.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...ADDRESS, name: `Person ${i}` } }), 201, 'address')).id);
    // No lock file beside it that could be deleted: only SQLite's own -wal and -shm.
    expect(filesIn(dir)).toEqual(['a.db', 'a.db-shm', 'a.db-wal']);

    symlinkSync(data, join(dir, 'link.db'));
    linkSync(data, join(dir, 'hard.db'));
    const ways: [string, string[], Parameters<typeof runToExit>[1]?][] = [
      ['symlink', ['--data', join(dir, 'link.db')]],
      ['hard link', ['--data', join(dir, 'hard.db')]],
      ['hard link, as workers', ['--data', join(dir, 'hard.db'), '--workers', '2']],
    ];
    for (const [what, args] of ways) {
      const { code, output } = await runToExit(args);
      expect(code, `${what}: ${output}`).not.toBe(0);
      expect(output, what).toContain(args[1]);
      expect(output, what).toMatch(/is in use by (another running shipmock|a running shipmock of one process)/);
      expect(output, what).toContain(`process ${first.child.pid}`);
    }
    // The side files deleted under the running mock: the lock is on the file itself.
    rmSync(join(dir, 'a.db-shm'));
    rmSync(join(dir, 'a.db-wal'));
    // A relative path from the file's folder.
    const relative = await runToExit(['--data', 'a.db'], { cwd: dir });
    expect(relative.code, relative.output).not.toBe(0);
    expect(relative.output).toMatch(/--data a\.db: is in use by another running shipmock/);
    // Refusals created nothing: no -wal or -shm under the other names.
    expect(filesIn(dir)).toEqual(['a.db', 'hard.db', 'link.db']);

    // The first mock is unharmed: its writes read back, and nothing was issued twice.
    const list = await expectStatus(call(first.url, 'GET', '/v1/addresses?limit=100', { auth: account.auth }), 200, 'list');
    expect(list.items.map((a: { id: string }) => a.id)).toEqual(ids);
    expect(await first.stop()).toBe(0);
    letGo();
    // Stopped: the same file opens again through the symlink, with everything.
    const again = await start(['--data', join(dir, 'link.db')]);
    const after = await expectStatus(call(again.url, 'GET', '/v1/addresses?limit=100', { auth: account.auth }), 200, 'list after restart');
    expect(after.items.map((a: { id: string }) => a.id)).toEqual(ids);
  }, 90_000);

  it('keeps the shared layout working, and refuses a one-process mock on a file the workers hold', async () => {
    const dir = tempDir();
    const data = join(dir, 'workers.db');
    const workers = await start(['--data', data, '--workers', '2']);
    const account = await newAccount(workers);
    await expectStatus(call(workers.url, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS }), 201, 'address on the workers');
    // A process without --workers joins a shared-layout file as one more process of it...
    const joined = await start(['--data', data]);
    expect((await expectStatus(call(joined.url, 'GET', '/v1/addresses', { auth: account.auth }), 200, 'list on the joined process')).items).toHaveLength(1);
    // ...but a file the workers hold is never opened by a mock of one process through another name.
    linkSync(data, join(dir, 'hard.db'));
    const { code, output } = await runToExit(['--data', join(dir, 'hard.db')]);
    expect(code).not.toBe(0);
    expect(output).toMatch(/hard\.db: (has 2 hard links|is in use)/);
  }, 90_000);
});

describe('--data touches only what it owns', () => {
  async function refused(path: string, message: RegExp): Promise<string> {
    const { code, output } = await runToExit(['--data', path]);
    expect(code, output).not.toBe(0);
    expect(output).toContain(`--data ${path}`);
    expect(output).toMatch(message);
    expect(output).not.toMatch(/\n\s+at /);
    return output;
  }

  it('refuses a device, a folder, a FIFO, a socket and a missing folder, creating nothing', async () => {
    const dir = tempDir();
    const before = () => filesIn(dir);
    mkdirSync(join(dir, 'folder'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    const snapshot = before();
    await refused('/dev/null', /is a device, not a regular file/);
    await refused(join(dir, 'folder'), /is a folder, not a regular file.*--data .*folder\/shipmock\.db/);
    await refused(join(dir, 'fifo'), /is a FIFO \(named pipe\), not a regular file/);
    await refused(join(dir, 'missing', 'x.db'), new RegExp(`the folder ${join(dir, 'missing')} does not exist`));
    symlinkSync(join(dir, 'nothing-here'), join(dir, 'dangling.db'));
    await refused(join(dir, 'dangling.db'), /is a symlink to .*nothing-here, which does not exist/);
    expect(before()).toEqual([...snapshot, 'dangling.db'].sort());
    expect(statSync('/dev/null').mode & 0o777).toBe(0o666);
    // A socket: a unix socket file.
    const { createServer } = await import('node:net');
    const socketPath = join(dir, 'sock');
    const server = createServer().listen(socketPath);
    await new Promise((resolve) => server.once('listening', resolve));
    await refused(socketPath, /is a socket, not a regular file/);
    server.close();
    expect(filesIn(join(dir, 'folder'))).toEqual([]);
    // Nothing beside the refused paths: no -wal, -shm, -journal or -lock.
    expect(filesIn(dir).filter((name) => /-(wal|shm|journal|lock)$/.test(name))).toEqual([]);
  }, 60_000);

  it.runIf(isRoot)('never changes the mode of a file it did not create: an empty file of another user behind a symlink is refused as it was', async () => {
    const dir = tempDir();
    const theirs = join(dir, 'theirs');
    writeFileSync(theirs, '');
    chownSync(theirs, nobody.uid, nobody.gid);
    chmodSync(theirs, 0o644);
    symlinkSync(theirs, join(dir, 'link.db'));
    await refused(join(dir, 'link.db'), /empty file that belongs to another user \(uid 65534\)/);
    expect(statSync(theirs).mode & 0o777).toBe(0o644);
    expect(statSync(theirs).size).toBe(0);
    expect(filesIn(dir)).toEqual(['link.db', 'theirs']);
  });

  it('keeps the mode of an existing empty file of its own, and creates a missing one 0600', async () => {
    const dir = tempDir();
    const mine = join(dir, 'mine.db');
    writeFileSync(mine, '');
    chmodSync(mine, 0o640);
    const mock = await start(['--data', mine]);
    await newAccount(mock);
    expect(statSync(mine).mode & 0o777).toBe(0o640);
    const created = join(dir, 'new.db');
    const other = await start(['--data', created]);
    await newAccount(other);
    expect(statSync(created).mode & 0o777).toBe(0o600);
  }, 60_000);
});

describe('a store that cannot write', () => {
  it.runIf(isRoot)('is refused at start: a read-only file, a read-only folder (held to file modes, as any user is), saying what to do and creating nothing', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o777);
    const data = join(dir, 'a.db');
    const writer = await start(['--data', data], { heldToModes: true });
    await newAccount(writer);
    expect(await writer.stop()).toBe(0);
    letGo();
    chmodSync(data, 0o400);
    const file = await runToExit(['--data', data], { heldToModes: true });
    expect(file.code, file.output).not.toBe(0);
    expect(file.output).toContain(`--data ${data}: cannot be written by this user (EACCES)`);
    expect(file.output).toMatch(/chmod u\+w/);
    chmodSync(data, 0o600);
    chmodSync(dir, 0o555);
    try {
      const folder = await runToExit(['--data', data], { heldToModes: true });
      expect(folder.code, folder.output).not.toBe(0);
      expect(folder.output).toMatch(/is in a folder this user cannot write .*Make the folder writable/);
      const fresh = await runToExit(['--data', join(dir, 'new.db')], { heldToModes: true });
      expect(fresh.output).toMatch(/new\.db: is in a folder this user cannot write/);
      expect(filesIn(dir)).toEqual(['a.db']);
    } finally {
      chmodSync(dir, 0o755);
    }
  }, 60_000);

  it.runIf(isRoot)('is refused at start on a full disk (a 256 KiB tmpfs)', async (context) => {
    const dir = tempDir();
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir], { stdio: 'pipe' });
    } catch {
      context.skip();
      return;
    }
    try {
      // Full: one file takes every block.
      try {
        writeFileSync(join(dir, 'filler'), Buffer.alloc(512 * 1024));
      } catch {
        // ENOSPC: full now
      }
      const { code, output } = await runToExit(['--data', join(dir, 'a.db')]);
      expect(code, output).not.toBe(0);
      expect(output).toMatch(/a\.db: cannot be written \(the disk is full/);
      expect(filesIn(dir)).toEqual(['filler']);
    } finally {
      execFileSync('umount', [dir]);
    }
  }, 60_000);

  it('answers 503 store-unavailable with Retry-After when a write fails at run time, says why in health, and recovers by itself without losing an acknowledged write', async () => {
    const dir = tempDir();
    const data = join(dir, 'a.db');
    const mock = await start(['--data', data]);
    const account = await newAccount(mock);
    const kept = await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS }), 201, 'acknowledged before');
    // The disk refuses to grow the WAL: a file size limit on the running process (prlimit; the
    // soft limit only, so it can be lifted again). Node ignores SIGXFSZ: writes fail with EFBIG.
    const limit = (value: string) => execFileSync('prlimit', ['--pid', String(mock.child.pid), `--fsize=${value}`]);
    limit(`${statSync(`${data}-wal`).size}:unlimited`);
    const refused = await fetch(`${mock.url}/v1/addresses`, { method: 'POST', headers: { Authorization: account.auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ ...ADDRESS, name: 'Never kept' }) });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = await refused.json();
    expect(problem).toMatchObject({ type: 'https://shipmock.dev/problems/store-unavailable', status: 503, instance: '/v1/addresses' });
    expect(problem.detail).toMatch(/the disk refused the write .*nothing was changed/);
    // Every request gets an answer (never a closed connection), health included, with the reason.
    const health = await fetch(`${mock.url}/__admin/health`);
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('1');
    expect(await health.json()).toEqual({ status: 'store-unavailable', reason: expect.stringMatching(/SQLITE_IOERR_WRITE/) });
    expect((await call(mock.url, 'GET', '/v1/addresses', { auth: account.auth })).status).toBe(503);
    // Still failing across the store's retries (one a second): health does not flap on a disk that takes only small writes.
    await holdsFor('health stays 503', async () => (await fetch(`${mock.url}/__admin/health`)).status, (status) => status === 503, 2500);
    expect((await fetch(`${mock.url}/__admin/health`)).status).toBe(503);

    limit('unlimited:unlimited');
    await until('health says ok again', async () => (await fetch(`${mock.url}/__admin/health`)).status, (status) => status === 200);
    const list = await expectStatus(call(mock.url, 'GET', '/v1/addresses?limit=100', { auth: account.auth }), 200, 'list after recovery');
    // The acknowledged write is there, the refused one is not.
    expect(list.items.map((a: { id: string }) => a.id)).toEqual([kept.id]);
    const after = await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...ADDRESS, name: 'After' } }), 201, 'write after recovery');
    expect(mock.output()).toMatch(/commit failed: the requests are answered 503 store-unavailable/);
    // And it is on disk: a restart reads both.
    expect(await mock.stop()).toBe(0);
    letGo();
    const again = await start(['--data', data]);
    const back = await expectStatus(call(again.url, 'GET', '/v1/addresses?limit=100', { auth: account.auth }), 200, 'list after restart');
    expect(back.items.map((a: { id: string }) => a.id)).toEqual([kept.id, after.id]);
  }, 90_000);
});
