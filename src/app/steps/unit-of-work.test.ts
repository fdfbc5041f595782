import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ProblemError } from '../../errors/problem.js';
import { createLogger } from '../../logging/logger.js';
import { initRequestState, requestState } from '../../http/request-state.js';
import { createStore, ReadMustLockError, StoreUnavailableError, type Store, type UnitKind, type UnitLock } from '../../store/store.js';
import { unitOfWork } from './unit-of-work.js';

const logger = createLogger({ level: 'silent', format: 'json' });

/** What the error writer answers: the problem's status, headers and detail. */
function writeError(error: unknown, _req: IncomingMessage, res: ServerResponse): void {
  const problem = error instanceof ProblemError ? error : new ProblemError('internal-error', { detail: String(error) });
  res.writeHead(problem.status, { 'Content-Type': 'application/problem+json', ...problem.init.headers });
  res.end(JSON.stringify({ status: problem.status, detail: problem.init.detail }));
}

/** A durable store whose commits the test lets through (or fails) one at a time. */
function heldStore(options: { refuse?: StoreUnavailableError } = {}) {
  const commits: { kind: UnitKind | undefined; commit(): void; fail(error: Error): void }[] = [];
  let waiting: (() => void) | undefined;
  const store: Pick<Store, 'transaction' | 'durable'> = {
    durable: true,
    transaction<T>(work: () => T | PromiseLike<T>, kind?: UnitKind): Promise<T> {
      if (options.refuse) return Promise.reject(options.refuse);
      return Promise.resolve(work()).then(
        (value) =>
          new Promise<T>((resolve, reject) => {
            commits.push({ kind, commit: () => resolve(value), fail: reject });
            waiting?.();
          }),
      );
    },
  };
  const nextCommit = async () => {
    while (!commits.length) await new Promise<void>((resolve) => (waiting = resolve));
    return commits.shift()!;
  };
  return { store, nextCommit };
}

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

/** Serves `handler` behind the step; returns the base URL. */
async function serve(store: Pick<Store, 'transaction' | 'durable'>, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const step = unitOfWork({ store, logger, writeError });
  server = createServer((req, res) => {
    res.setHeader('X-Request-Id', 'r-1');
    step(req, res, () => handler(req, res));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

/** A GET whose response head arrival is observable (fetch would hide when the head came). */
function get(url: string): { head: Promise<IncomingMessage>; body: Promise<string>; headSeen: () => boolean } {
  let seen = false;
  let resolveBody!: (body: string) => void;
  const body = new Promise<string>((resolve) => (resolveBody = resolve));
  const head = new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpRequest(url, (res) => {
      seen = true;
      resolve(res);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolveBody(text));
    });
    req.on('error', reject);
    req.end();
  });
  return { head, body, headSeen: () => seen };
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('the unit-of-work step', () => {
  it('in memory runs the request in a unit at once and sends its answer straight out', async () => {
    const memory = createStore();
    const kinds: (UnitKind | undefined)[] = [];
    const store: Pick<Store, 'transaction' | 'durable'> = {
      durable: false,
      transaction: (work, kind) => {
        kinds.push(kind);
        return memory.transaction(work, kind);
      },
    };
    const url = await serve(store, (_req, res) => res.end('done'));
    const call = get(url);
    expect((await call.head).statusCode).toBe(200);
    expect(await call.body).toBe('done');
    expect(kinds).toEqual(['request']);
  });

  it('with a durable store holds every byte of an answer until its unit is committed', async () => {
    const { store, nextCommit } = heldStore();
    const url = await serve(store, (_req, res) => {
      res.writeHead(201, { 'Content-Type': 'text/plain' });
      res.end('created');
    });
    const call = get(url);
    const commit = await nextCommit();
    expect(commit.kind).toBe('request');
    await turns(4);
    expect(call.headSeen()).toBe(false);
    commit.commit();
    const res = await call.head;
    expect(res.statusCode).toBe(201);
    expect(await call.body).toBe('created');
  });

  it('a failed commit replaces the held answer by a 503 store-unavailable with Retry-After, keeping the request id', async () => {
    const { store, nextCommit } = heldStore();
    const url = await serve(store, (_req, res) => {
      res.setHeader('ETag', '"v1"');
      res.writeHead(201, { 'Content-Type': 'text/plain' });
      res.end('created');
    });
    const call = get(url);
    (await nextCommit()).fail(new StoreUnavailableError('the disk refused the write', 'nothing was changed'));
    const res = await call.head;
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers['x-request-id']).toBe('r-1');
    // The held answer went entirely, its entity headers with it.
    expect(res.headers.etag).toBeUndefined();
    expect(JSON.parse(await call.body).detail).toMatch(/the disk refused the write\); nothing was changed/);
  });

  it('a store that refuses the unit answers 503 without running the request', async () => {
    const { store } = heldStore({ refuse: new StoreUnavailableError('the shared database cannot be reached: ECONNREFUSED') });
    let ran = false;
    const url = await serve(store, (_req, res) => {
      ran = true;
      res.end('never');
    });
    const call = get(url);
    const res = await call.head;
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(await call.body).detail).toMatch(/cannot be reached: ECONNREFUSED\); nothing was changed/);
    expect(ran).toBe(false);
  });

  it('an answer released after its commit streams: later writes go straight through', async () => {
    const { store, nextCommit } = heldStore();
    let more!: () => void;
    const url = await serve(store, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('first;');
      more = () => {
        res.write('second;');
        res.end('last');
      };
    });
    const call = get(url);
    (await nextCommit()).commit();
    expect((await call.head).statusCode).toBe(200);
    more();
    expect(await call.body).toBe('first;second;last');
  });

  it('a unit ends when the connection closes unanswered (a slow handler does not hold the store)', async () => {
    const { store, nextCommit } = heldStore();
    const url = await serve(store, () => {
      // never answers
    });
    const req = httpRequest(url);
    req.on('error', () => {});
    req.end();
    await turns(4);
    req.destroy();
    const commit = await nextCommit();
    expect(commit.kind).toBe('request');
    commit.commit();
  });

  it('with a store that locks per account reads an API body and checks the request before its unit starts, and gives the unit its lock', async () => {
    const units: { lock: UnitLock; body: string | undefined }[] = [];
    const checkedBefore: { unitsStarted: number; body: string | undefined }[] = [];
    const store: Pick<Store, 'transaction' | 'durable' | 'locksAccounts'> = {
      durable: true,
      locksAccounts: true,
      transaction<T>(work: () => T | PromiseLike<T>, _kind?: UnitKind, lock?: UnitLock): Promise<T> {
        units.push({ lock, body: requestState(current!).preReadBody?.toString() });
        return Promise.resolve(work());
      },
    };
    let current: IncomingMessage | undefined;
    const step = unitOfWork({
      store,
      logger,
      writeError,
      lockOf: () => ({ account: 'acc-1' }),
      bodyLimit: 100,
      outsideUnit: (req) => checkedBefore.push({ unitsStarted: units.length, body: requestState(req).preReadBody?.toString() }),
    });
    server = createServer((req, res) => {
      initRequestState(req, { requestId: 'r-1', startedAt: 0, method: req.method!, url: req.url!, pathname: '/v1/addresses', search: new URLSearchParams(), preReadBody: undefined });
      current = req;
      step(req, res, () => res.end(`got ${requestState(req).preReadBody?.length ?? 0} bytes`));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1/addresses`;
    let text = '';
    const answered = new Promise<void>((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': '14' } }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', resolve);
      });
      req.on('error', reject);
      // Half the body, then a pause: no unit may start (and hold its lock) while the client is still sending.
      req.write('{"name":');
      void turns(6).then(() => {
        expect(units).toEqual([]);
        req.end('"Ann"}');
      });
    });
    await answered;
    expect(units).toEqual([{ lock: { account: 'acc-1' }, body: '{"name":"Ann"}' }]);
    expect(checkedBefore).toEqual([{ unitsStarted: 0, body: '{"name":"Ann"}' }]);
    expect(text).toBe('got 14 bytes');
  });
  it('runs a read that had to lock again under its account lock, sending only the answer of that run', async () => {
    const locks: UnitLock[] = [];
    const store: Pick<Store, 'transaction' | 'durable' | 'locksAccounts'> = {
      durable: true,
      locksAccounts: true,
      async transaction<T>(work: () => T | PromiseLike<T>, _kind?: UnitKind, lock?: UnitLock): Promise<T> {
        locks.push(lock);
        const value = await work();
        // The read wrote, and its account changed meanwhile elsewhere: nothing committed.
        if (lock?.read) throw new ReadMustLockError();
        return value;
      },
    };
    let runs = 0;
    const step = unitOfWork({ store, logger, writeError, lockOf: () => ({ account: 'a', read: true }) });
    server = createServer((req, res) => {
      step(req, res, () => {
        runs++;
        res.setHeader(`X-Run-${runs}`, 'yes');
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`run ${runs}`);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const call = get(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`);
    const res = await call.head;
    expect(res.statusCode).toBe(200);
    expect(await call.body).toBe('run 2');
    expect(res.headers['x-run-1']).toBeUndefined();
    expect(res.headers['x-run-2']).toBe('yes');
    expect(locks).toEqual([{ account: 'a', read: true }, { account: 'a' }]);
  });
});
