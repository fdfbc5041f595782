import { afterAll, describe, expect, it } from 'vitest';
import { internalsOf, type RunningMock } from '../../src/server/start-mock.js';
import { containersReachableFrom, type Container } from '../support/heap-graph.js';
import { startLiveMock } from '../support/live-mock.js';
import { stateWorkload } from '../support/state-workload.js';

/**
 * A component that keeps state without registering it (src/store/state-registry.ts) fails here.
 * After a representative workload through real HTTP (test/support/state-workload.ts) and a full
 * reset, every Map, Set and Array still holding objects anywhere in what the mock builds —
 * closures' captured variables included, read from a V8 heap snapshot — must be one of:
 *
 * - state the registry owns: the store (its scopes, its registry), and the parts no reset clears;
 * - immutable data or a cache that is a pure function of immutable input (not walked), or
 *   wiring done once at build time (walked: what the wired functions capture is checked too);
 *   each listed below with its reason.
 *
 * Anything else is state that survived `mock.reset()` — kept without registering it, or
 * registered with a clear() that forgets it. Register it where it is built (docs/architecture.md,
 * "State: one registry") instead of adding it here.
 */
/** Not walked at all: state the registry owns, and immutable data. */
const NOT_WALKED: Record<string, string> = {
  store: "the scopes are the part 'store'",
  parts: 'the state registry itself (each part is held to its declaration by test/api/state-registry.test.ts)',
  companies: "part 'companies': a reset keeps the companies (README, State)",
  clientIds: "part 'companies': the client ids of the kept companies",
  streams: "part 'random': a full reset restarts the seeded stream, the named streams run on",
  contract: 'the OpenAPI contract, loaded once',
  validators: 'compiled Ajv validators of the contract',
  routes: 'the route matcher built from the contract',
  catalogue: 'the carrier catalogue (fixtures/catalogue.json)',
  carrier: 'catalogue entries held by the simulated carriers',
  options: 'resolved options',
  admins: 'admin credentials from the credentials file',
  affiliates: 'affiliate credentials from the credentials file',
  loader: "the scenario loader's folders",
  log: 'the logger and its transport',
  logger: 'the logger and its transport',
  agents: "the webhook transport's HTTP agents (sockets, not state)",
  verified: 'a cache of verified token signatures (a function of the token and the secret)',
};

/**
 * Containers that may hold entries after a reset, but whose entries are walked: what the wired
 * functions capture is checked like everything else.
 */
const WIRING: Record<string, string> = {
  listeners: 'event bus and journal subscribers (services, the inspector, webhooks)',
  interceptors: 'carrier interceptors registered at build time (scenarios)',
  guards: 'removal guards services register with each other at build time',
  cascades: 'removal cascades services register with each other at build time',
  simulatedById: 'one simulated carrier per catalogue carrier, built on first use (its numbers come from named streams of random)',
};

let mock: RunningMock | undefined;
afterAll(() => mock?.close());

/** A component as a factory builds one: its state in a closure, out of reach of any property walk. */
function unregisteredCounter() {
  const seen = new Map<string, number>();
  return { count: (key: string) => seen.set(key, (seen.get(key) ?? 0) + 1) };
}

const describeContainer = (c: Container) => `${c.kind} of ${c.entries} at ${c.path.join('.')}`;

describe('state kept without registering', () => {
  it('is found: after a workload and a full reset nothing but registered, immutable or allowed data holds entries', async () => {
    mock = await startLiveMock();
    await stateWorkload(mock, 'A');
    await stateWorkload(mock, 'B');
    mock.reset();
    // The guard must be able to fail: a planted closure-held Map with entries is reported.
    const planted = unregisteredCounter();
    planted.count('a booking');
    const { server: _socket, ...handles } = mock;
    const found = await containersReachableFrom({ mock: { ...handles, ...internalsOf(mock) }, planted }, (edge) => edge in NOT_WALKED || edge === 'server');
    const reported = found.filter((c) => !(c.path[c.path.length - 1].replace(/\(\)$/, '') in WIRING)).map(describeContainer);
    expect(reported.filter((line) => line.includes('planted'))).toEqual(['Map of 1 at root.planted.count.context.seen()']);
    expect(reported.filter((line) => !line.includes('planted')), 'state that survived mock.reset() (register it: src/store/state-registry.ts)').toEqual([]);
  }, 120_000);
});
