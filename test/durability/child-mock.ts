import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';

/** The real `shipmock` command (bin/shipmock.js → dist/, built by `npm run build`). */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));

export interface ChildMock {
  child: ChildProcess;
  url: string;
  companyId: string;
  basic: string;
  output(): string;
  /** SIGKILL: no shutdown code runs. */
  kill(): Promise<void>;
  /** SIGTERM: a clean shutdown; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** How a child is started: as another user, or held to file modes (setpriv; the tests run as root, whom file modes do not stop), with extra environment. */
export interface ChildOptions {
  /** Run as this uid/gid (needs root and setpriv; the user must be able to read the repository). */
  user?: { uid: number; gid: number };
  /**
   * Run as root without the capabilities that let root ignore file modes (CAP_DAC_OVERRIDE,
   * CAP_DAC_READ_SEARCH): modes stop it as they stop any user, while the repository — wherever
   * it was cloned, a 0700 temp folder included — stays readable to its owner.
   */
  heldToModes?: boolean;
  env?: Record<string, string>;
  /** Working folder (default: the repository). */
  cwd?: string;
}

function spawnMock(args: string[], options: ChildOptions) {
  const command = [process.execPath, bin, 'serve', '--port', '0', ...args];
  const privileges = [
    ...(options.user ? [`--reuid=${options.user.uid}`, `--regid=${options.user.gid}`, '--clear-groups'] : []),
    ...(options.heldToModes ? ['--bounding-set=-dac_override,-dac_read_search'] : []),
  ];
  // The mock dies with the test process (setpriv execs it, keeping its pid): a test worker killed
  // at a timeout, or a start that failed beside others, leaves no mock running on the machine.
  const [file, ...rest] = ['setpriv', '--pdeathsig', 'SIGKILL', ...privileges, '--', ...command];
  return spawn(file, rest, { cwd: options.cwd ?? root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
}

/** Starts `shipmock serve --port 0 …args` as a child process and waits for its banner. */
export function startChild(args: string[], options: ChildOptions = {}): Promise<ChildMock> {
  return new Promise((resolve, reject) => {
    const child = spawnMock(['--log-level', 'warn', ...args], options);
    let out = '';
    // A child that did not start in time is killed: nobody else holds it to stop it later.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no start within 15 s:\n${out}`));
    }, 15_000);
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (\S+)[\s\S]*company id\s+(\S+)[\s\S]*client id\s+(\S+)[\s\S]*client secret\s+(\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({
          child,
          url: match[1],
          companyId: match[2],
          basic: `Basic ${Buffer.from(`${match[3]}:${match[4]}`).toString('base64')}`,
          output: () => out,
          async kill() {
            child.kill('SIGKILL');
            await exited;
          },
          async stop() {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    child.stderr!.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before listening:\n${out}`));
    });
  });
}

/** Runs the CLI to its exit (for start-up errors). */
export function runToExit(args: string[], options: ChildOptions = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawnMock(args, options);
    let out = '';
    child.stdout!.on('data', (chunk) => (out += chunk));
    child.stderr!.on('data', (chunk) => (out += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output: out });
    });
  });
}

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** One HTTP call; throws on network errors (a killed mock), which callers treat as "not acknowledged". */
export async function call(url: string, method: string, path: string, options: { auth?: string; body?: unknown; admin?: boolean } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.auth) headers.Authorization = options.auth;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.admin) headers['X-Shipmock-Admin'] = '1';
  const res = await fetch(`${url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (documents)
  }
  return { status: res.status, body, headers: res.headers };
}

/** Fails loudly unless the answer has the expected status. */
export async function expectStatus(promise: Promise<Answer>, status: number, what: string): Promise<any> {
  const answer = await promise;
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** What a booking needs besides its parcels: created once per account by the durability tests. */
export interface BookingKit {
  serviceDefinitionId: string;
  shipmentChannelId: string;
  senderId: string;
  receiverId: string;
}

/** A ShipmentBookingRequest from a kit: sender and receiver addresses, these parcels. */
export function bookingBody(kit: BookingKit, parcelIds: string[], reference?: string) {
  return {
    serviceDefinitionId: kit.serviceDefinitionId,
    shipmentChannelId: kit.shipmentChannelId,
    parties: [
      { role: 'SENDER', entityType: 'ADDRESS', id: kit.senderId },
      { role: 'RECEIVER', entityType: 'ADDRESS', id: kit.receiverId },
    ],
    parcelIds,
    ...(reference ? { reference } : {}),
  };
}

/**
 * What an inline booking needs (a carrier definition, a service definition, a channel), each
 * part created on the next of `mocks`; returns the body of a booking with one parcel.
 */
export async function bookingSetup(mocks: ChildMock[], auth: string) {
  const on = (i: number) => mocks[i % mocks.length].url;
  const carrierDefinition = await expectStatus(call(on(0), 'POST', '/v1/carrier-definitions', { auth, body: { carrierId: catalogueIds.carrier('DHL_PARCEL'), name: 'DHL' } }), 201, 'carrier definition');
  const serviceDefinition = await expectStatus(
    call(on(1), 'POST', '/v1/service-definitions', { auth, body: { carrierDefinitionId: carrierDefinition.id, serviceId: catalogueIds.service('DHL_PARCEL', 'DHL_PAKET'), name: 'DHL Paket' } }),
    201,
    'service definition',
  );
  const channel = await expectStatus(call(on(2), 'POST', '/v1/shipment-channels', { auth, body: { name: 'ZPL', documentRendering: { labelFormat: 'ZPL', labelSize: 'LABEL_4X6' } } }), 201, 'channel');
  const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
  const munich = { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' };
  return (reference: string) => ({ serviceDefinitionId: serviceDefinition.id, shipmentChannelId: channel.id, sender: berlin, receiver: munich, parcels: [{ weight: 2.5 }], reference });
}

/** Polls (real time, bounded) until `done` holds: background work (deliveries, other processes) runs on its own. */
export async function until<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms; last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Polls (real time) for `durationMs` and fails as soon as `holds` is false: for a state that must
 * not flap, e.g. a store that keeps refusing across its own retries.
 */
export async function holdsFor<T>(what: string, read: () => Promise<T> | T, holds: (value: T) => boolean, durationMs: number): Promise<void> {
  const end = Date.now() + durationMs;
  while (Date.now() < end) {
    const value = await read();
    if (!holds(value)) throw new Error(`${what}: stopped holding after ${durationMs - (end - Date.now())} ms; got ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const ACCOUNT_BODY = {
  company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
  contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
};

/** A company token of the mock's seeded company, as an Authorization value. */
export async function companyAuth(mock: ChildMock): Promise<string> {
  const token = await expectStatus(call(mock.url, 'POST', `/v1/companies/${mock.companyId}/tokens`, { auth: mock.basic, body: { grantType: 'client_credentials' } }), 200, 'company token');
  return `Bearer ${token.accessToken}`;
}

/** An account created on `mock`, with an account token issued there. */
export async function newAccount(mock: ChildMock): Promise<{ id: string; auth: string }> {
  const account = await expectStatus(call(mock.url, 'POST', '/v1/accounts', { auth: await companyAuth(mock), body: ACCOUNT_BODY }), 201, 'POST /v1/accounts');
  const token = await expectStatus(call(mock.url, 'POST', `/v1/accounts/${account.id}/tokens`, { auth: mock.basic, body: { grantType: 'client_credentials' } }), 200, 'account token');
  return { id: account.id, auth: `Bearer ${token.accessToken}` };
}

/**
 * The mocks the tests of a file start: each is killed after its test, unless the test let it go
 * (it stopped or killed the mock itself to check how it ends).
 * @example const { start, letGo } = childrenOfEachTest(); const mock = await start(['--data', file]);
 */
export function childrenOfEachTest() {
  let running: ChildMock[] = [];
  afterEach(async () => {
    for (const child of running) await child.kill();
    running = [];
  });
  return {
    async start(args: string[], options?: ChildOptions): Promise<ChildMock> {
      const child = await startChild(args, options);
      running.push(child);
      return child;
    },
    /** Forgets `child` (or every mock started so far): the test ends it itself. */
    letGo(child?: ChildMock): void {
      running = child ? running.filter((c) => c !== child) : [];
    },
  };
}
