import request from 'supertest';
import { beforeAll } from 'vitest';
import { createServer, type RequestListener } from 'node:http';
import { createApp } from '../../src/app/create-app.js';
import { createRuntime, type MockRuntime } from '../../src/runtime/runtime.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockOptions } from '../../src/config/options.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createLogger, type Logger } from '../../src/logging/logger.js';
import type { Services } from '../../src/resources/index.js';
import type { CompanyCredentials } from '../../src/auth/credentials.js';
import type { Contract } from '../../src/contract/load-contract.js';
import type { ContractValidators } from '../../src/contract/validators.js';
import { createMockHandles, handlePartsOf, type MockHandles } from '../../src/server/mock-handles.js';
import { releaseWhenDone } from './lifetime.js';

/**
 * An in-process mock for API tests: the real app (response validation on, 'error' mode, so a
 * handler answering outside the contract fails the test with a 500), a manual clock, seed 1.
 * It has the handles a running mock has (h.clock, h.scenarios, h.webhooks, h.events, h.carriers …).
 */
export interface Harness extends MockHandles {
  app: RequestListener;
  http: ReturnType<typeof request>;
  /** The contract this mock serves, and its compiled validators. */
  contract: Contract;
  validators: ContractValidators;
  /** The seeded default company's credentials. */
  credentials: CompanyCredentials;
  /** Basic header of the default company's client credentials. */
  basic: string;
  companyId: string;
  /** Stops the mock's timers and webhook deliveries and removes its data file; done for you (support/lifetime.ts). */
  dispose(): void;
}

const internals = new WeakMap<Harness, { runtime: MockRuntime; services: Services }>();

/**
 * The runtime and services behind a harness, for the few API tests that seed a state no request
 * can make (a parcel marked booked without a booking, a stored record outside the contract) or
 * that test the wiring itself. Everything else goes through HTTP and the handles.
 */
export function harnessInternals(h: Harness): { runtime: MockRuntime; services: Services } {
  return internals.get(h)!;
}

const silent = createLogger({ level: 'silent', format: 'json' });

/**
 * SHIPMOCK_TEST_STORE=sqlite runs the harness on the durable store: a fresh SQLite file per
 * harness (in the OS temp dir), every response committed to it, as `--data` does.
 */
function testStore(): { store: Store; dir: string } | undefined {
  if (process.env.SHIPMOCK_TEST_STORE !== 'sqlite') return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-harness-'));
  return { store: openSqliteStore(join(dir, 'mock.db')), dir };
}

/** @example const h = createHarness({ webhooks: { maxAttempts: 2 } }); // a logger of its own: createHarness(options, logger) */
export function createHarness(options: MockOptions = {}, logger: Logger = silent): Harness {
  const durable = testStore();
  const runtime = createRuntime({ seed: 1, clock: { mode: 'manual' }, responseValidation: 'error', ...options }, logger, { store: durable?.store });
  const { app, services, control } = createApp(runtime);
  // One server per harness, listening from here on. supertest given the app itself listens on a
  // new ephemeral port for every request (on `::`, then dials 127.0.0.1): under a loaded CI run
  // one request in thousands met a refused connection (supertest issues #667, #844). Unref'd: a
  // harness nobody disposes does not keep the worker alive.
  const server = createServer(app).listen(0);
  server.unref();
  const company = runtime.credentials.defaultCompany;
  let disposed = false;
  const dispose = () => {
    if (disposed) return;
    disposed = true;
    server.closeAllConnections();
    server.close();
    runtime.dispose();
    if (durable) rmSync(durable.dir, { recursive: true, force: true });
  };
  releaseWhenDone(dispose);
  const h: Harness = {
    ...createMockHandles(control, handlePartsOf(runtime, services)),
    app,
    http: request(server),
    contract: runtime.contract,
    validators: runtime.validators,
    credentials: company,
    basic: `Basic ${Buffer.from(`${company.clientId}:${company.clientSecret}`).toString('base64')}`,
    companyId: company.companyId,
    dispose,
  };
  internals.set(h, { runtime, services });
  return h;
}

/**
 * Two accounts of the same company, A and B (isolation tests), on the given harness or a new one.
 * @example const { h, a, b } = await twoAccounts(createHarness({ unhandled: 'error' }));
 */
export async function twoAccounts(h: Harness = createHarness(), aliases: [string, string] = ['A', 'B']): Promise<{ h: Harness; a: TestAccount; b: TestAccount }> {
  return { h, a: await newAccount(h, { alias: aliases[0] }), b: await newAccount(h, { alias: aliases[1] }) };
}

/**
 * Two accounts for a describe block, made before its first test (beforeAll): the objects are
 * returned at once and filled in then, so a suite reads them like any other constant.
 * @example const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'B']);
 */
export function suiteAccounts(h: Harness, aliases: [string, string] = ['A', 'B']): { a: TestAccount; b: TestAccount } {
  const a = {} as TestAccount;
  const b = {} as TestAccount;
  beforeAll(async () => {
    Object.assign(a, await newAccount(h, { alias: aliases[0] }));
    Object.assign(b, await newAccount(h, { alias: aliases[1] }));
  });
  return { a, b };
}

/** Default AccountRequest body; override fields per test. */
export function accountBody(overrides: Record<string, unknown> = {}) {
  return {
    alias: 'Warehouse Berlin',
    company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
    contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
    ...overrides,
  };
}

/** POST /v1/companies/{id}/tokens with the default company's client credentials. */
export async function companyToken(h: Harness): Promise<string> {
  const res = await h.http
    .post(`/v1/companies/${h.companyId}/tokens`)
    .set('Authorization', h.basic)
    .send({ grantType: 'client_credentials' });
  if (res.status !== 200) throw new Error(`company token: ${res.status} ${JSON.stringify(res.body)}`);
  return `Bearer ${res.body.accessToken}`;
}

export interface TestAccount {
  accountId: string;
  /** 'Bearer …' header value of an Account token. */
  auth: string;
  companyAuth: string;
}

/** The spec's whole token dance through real HTTP: company token → account → account token. */
export async function newAccount(h: Harness, overrides: Record<string, unknown> = {}): Promise<TestAccount> {
  const companyAuth = await companyToken(h);
  const created = await h.http.post('/v1/accounts').set('Authorization', companyAuth).send(accountBody(overrides));
  if (created.status !== 201) throw new Error(`create account: ${created.status} ${JSON.stringify(created.body)}`);
  const accountId = created.body.id as string;
  const token = await h.http
    .post(`/v1/accounts/${accountId}/tokens`)
    .set('Authorization', h.basic)
    .send({ grantType: 'client_credentials' });
  if (token.status !== 200) throw new Error(`account token: ${token.status} ${JSON.stringify(token.body)}`);
  return { accountId, auth: `Bearer ${token.body.accessToken}`, companyAuth };
}

/**
 * A fresh harness with one account, for a test that sets its own options: made inside the test,
 * it is disposed when the test ends.
 * @example ({ h, account } = await harnessWithAccount({ webhooks: { maxAttempts: 2 } }));
 */
export async function harnessWithAccount(options: MockOptions = {}): Promise<{ h: Harness; account: TestAccount }> {
  const h = createHarness(options);
  return { h, account: await newAccount(h) };
}
