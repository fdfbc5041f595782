import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADDRESS } from '../support/live-mock.js';
import { throwawayPostgresForFile, type ThrowawayPostgres } from '../support/postgres.js';
import { call, newAccount, runToExit, startChild, type ChildMock } from './child-mock.js';

/**
 * Issue 23: no password is printed in any form (the banner and the errors of real processes),
 * and no store error is swallowed: strings no store can keep are refused at the edge, the same
 * for SQLite and PostgreSQL. PostgreSQL is a throwaway cluster (test/support/postgres.ts).
 */
let cluster: ThrowawayPostgres;
const running: ChildMock[] = [];
throwawayPostgresForFile(running, (started) => (cluster = started));

/** A port on loopback where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Every run of 4 characters of the password: none may be printed. */
function expectNoPieceOf(password: string, output: string): void {
  for (let i = 0; i + 4 <= password.length; i++) expect(output, `prints "${password.slice(i, i + 4)}" of the password`).not.toContain(password.slice(i, i + 4));
  expect(output).not.toContain(encodeURIComponent(password));
}

// [what, user part and query with the password in them, the password]
const PASSWORDS: [string, (host: string) => string, string][] = [
  ['"@" in the user part', (host) => `postgres://postgres:Zq@7vX:k9@${host}/shipmock_pw`, 'Zq@7vX:k9'],
  ['"%" in the user part', (host) => `postgres://postgres:Zq%7vXk9w@${host}/shipmock_pw`, 'Zq%7vXk9w'],
  ['?password=', (host) => `postgres://postgres@${host}/shipmock_pw?password=Zq7vXk9wT`, 'Zq7vXk9wT'],
  ['"/" and "#" in the user part', (host) => `postgres://postgres:Zq/7v#Xk9@${host}/shipmock_pw`, 'Zq/7v#Xk9'],
];

describe('no password is printed in any form', () => {
  it.each(PASSWORDS)('nothing listening, %s: the error holds no piece of the password', async (_what, url, password) => {
    const { code, output } = await runToExit(['--data', url(`127.0.0.1:${await closedPort()}`)]);
    expect(code).not.toBe(0);
    expect(output).toMatch(/--data postgres:\/\//);
    expectNoPieceOf(password, output);
  });

  it('nothing listening, PGPASSWORD: the error holds no piece of it', async () => {
    const password = 'Zq7vXk9wEnv';
    const { code, output } = await runToExit(['--data', `postgres://postgres@127.0.0.1:${await closedPort()}/db`], { env: { PGPASSWORD: password } });
    expect(code).not.toBe(0);
    expectNoPieceOf(password, output);
  });

  // The last URL is not one pg can parse: it never gets to a banner (its error is checked above).
  it.each(PASSWORDS.slice(0, 3))('a running PostgreSQL, %s: the banner holds no piece of the password', async (_what, url, password) => {
    const given = new URL(await cluster.createDatabase());
    const mock = await startChild(['--data', url(given.host).replace('shipmock_pw', given.pathname.slice(1))], { env: {} });
    running.push(mock);
    expect(mock.output()).toMatch(/data {11}postgres:\/\/.*\(PostgreSQL, shared/);
    expectNoPieceOf(password, mock.output());
    expect(await mock.stop()).toBe(0);
  }, 30_000);

  it('a running PostgreSQL, the password in PGPASSWORD: the banner holds no piece of it', async () => {
    const password = 'Zq7vXk9wEnv';
    const mock = await startChild(['--data', await cluster.createDatabase()], { env: { PGPASSWORD: password } });
    running.push(mock);
    expectNoPieceOf(password, mock.output());
    expect(await mock.stop()).toBe(0);
  }, 30_000);
});

describe('no store error is swallowed: strings no store can keep are refused at the edge', () => {
  async function refusesNul(mock: ChildMock): Promise<void> {
    const reset = await fetch(`${mock.url}/__admin/reset`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"accountId":"\\u0000x"}' });
    expect(reset.status).toBe(400);
    expect(await reset.json()).toMatchObject({ type: 'https://shipmock.dev/problems/validation-error', properties: { violations: [{ field: 'body/accountId', message: expect.stringMatching(/U\+0000/) }] } });
    const account = await newAccount(mock);
    const address = await call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...ADDRESS, name: 'Erika\u0000' } });
    expect(address.status).toBe(400);
    expect(address.body.properties.violations).toEqual([{ field: 'body/name', message: expect.stringMatching(/U\+0000/) }]);
    const lone = await call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...ADDRESS, city: 'Berlin\ud800' } });
    expect(lone.status).toBe(400);
    expect(lone.body.properties.violations).toEqual([{ field: 'body/city', message: expect.stringMatching(/unpaired surrogate/) }]);
    const query = await call(mock.url, 'GET', '/v1/addresses?cursor=%00x', { auth: account.auth });
    expect(query.status).toBe(400);
    // Nothing was stored: the account's list is empty, and the mock logged no store error.
    const list = await call(mock.url, 'GET', '/v1/addresses', { auth: account.auth });
    expect(list.status).toBe(200);
    expect(list.body.items ?? []).toEqual([]);
    expect(mock.output()).not.toMatch(/commit failed|background commit failed/);
  }

  it('on PostgreSQL', async () => {
    const mock = await startChild(['--data', await cluster.createDatabase()]);
    running.push(mock);
    await refusesNul(mock);
    // PostgreSQL logged no protocol error for any of it.
    expect(cluster.log()).not.toMatch(/invalid message format|null character/i);
  }, 60_000);

  it('on SQLite', async () => {
    const mock = await startChild(['--data', join(mkdtempSync(join(tmpdir(), 'shipmock-nul-')), 'a.db')]);
    running.push(mock);
    await refusesNul(mock);
  }, 60_000);
});
