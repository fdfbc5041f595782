import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createApp } from '../app/create-app.js';
import { createRuntime, type MockRuntime } from '../runtime/runtime.js';
import type { CompanyCredentials } from '../auth/credentials.js';
import type { MockOptions } from '../config/options.js';
import type { Logger } from '../logging/logger.js';
import type { Services } from '../resources/index.js';
import { applyConnectionLimits, resolveConnectionLimits, serverOptionsOf, type ConnectionLimits } from './connection-limits.js';
import { createMockHandles, handlePartsOf, type MockHandles } from './mock-handles.js';
import { openDataStore } from './data-store.js';
import { readStateFile, restoreKeptParts, writeStateFile, type StateFile } from './state-file.js';
import { resolveTls, type TlsOptions } from './tls.js';
import { openReplay, type ReplaySource } from '../replay/replay-source.js';
import { replayAnswer } from '../replay/replay-step.js';
import type { ReplaySetup } from '../replay/on-miss.js';
import { createContractGate } from '../contract/gate.js';

export interface StartOptions extends MockOptions, TlsOptions {
  /** Port to listen on; 0 picks a free one. Default 4010. */
  port?: number;
  /** Address to bind. Default 127.0.0.1. */
  host?: string;
  /** A logger to use instead of one built from logLevel/logFormat. */
  logger?: Logger;
  /** Loads this state file at start when it exists and saves the state to it on close(). */
  stateFile?: string;
  /**
   * Keeps the state in this SQLite file (created 0600 when missing): every request's writes are
   * committed before its response, so a killed process loses no acknowledged write. Not with stateFile.
   */
  data?: string;
  /** The data is shared with other processes (`--workers`): a SQLite file in the shared layout. PostgreSQL always is. */
  sharedData?: boolean;
  /** Accounts a SQLite `data` file of one process keeps in memory; the others are read from the file on use. Default 100. */
  cacheSize?: number;
  /** Slow-client limits: headers/request/keep-alive timeouts, connection cap (README, Slow clients). */
  connections?: ConnectionLimits;
  /** Serves a recording (`shipmock record`) for the requests it has answers for (README, Record and replay). */
  replay?: ReplaySetup;
}

export interface RunningMock extends MockHandles {
  /** Base URL, e.g. http://127.0.0.1:4010 (https:// with tls, cert or key). */
  url: string;
  port: number;
  host: string;
  /** The seeded default company's credentials. */
  credentials: CompanyCredentials;
  server: Server;
  /** The recording served (`replay` option): how many exchanges, and what answers a miss. */
  replay?: Pick<ReplaySource, 'index' | 'onMiss'>;
  close(): Promise<void>;
}

/** What the CLI and the verifier reach beyond the handles; not part of the public API (src/index.ts). */
export interface MockInternals {
  runtime: MockRuntime;
  services: Services;
}

const internals = new WeakMap<RunningMock, MockInternals>();

/**
 * The runtime and services behind a mock startMock() started: for the CLI, the verifier and tests
 * that seed state no request can make. Library users have the handles instead.
 * @example internalsOf(mock).runtime.clock.mode
 */
export function internalsOf(mock: RunningMock): MockInternals {
  const found = internals.get(mock);
  if (!found) throw new Error('not a mock started by startMock()');
  return found;
}

/**
 * Starts a mock on a real socket.
 * @example
 * const mock = await startMock({ port: 0, seed: 1 });
 * await fetch(`${mock.url}/__admin/health`);
 * await mock.close();
 */
export async function startMock(options: StartOptions = {}): Promise<RunningMock> {
  // Checked first: a bad value must fail before anything starts.
  const limits = resolveConnectionLimits(options.connections);
  if (options.data && options.stateFile) throw new Error('--data and --state-file cannot be combined: --data keeps the state durably, --state-file is a JSON snapshot saved on shutdown');
  let runtime: MockRuntime | undefined;
  const durable = options.data
    ? await openDataStore(options.data, { shared: options.sharedData, cacheSize: options.cacheSize, onError: (error) => runtime?.logger.error({ err: error }, 'background commit failed') })
    : undefined;
  try {
    runtime = createRuntime(options, options.logger, { store: durable?.store });
  } catch (error) {
    durable?.store.close();
    throw error;
  }
  const { parts } = runtime.store;
  let saved: StateFile | undefined;
  let replay;
  const gate = createContractGate({ contract: runtime.contract, validators: runtime.validators, routes: runtime.routes });
  try {
    saved = options.stateFile ? readStateFile(options.stateFile, parts) : undefined;
    replay = options.replay ? openReplay(options.replay, { store: runtime.store, logger: runtime.logger }) : undefined;
  } catch (error) {
    runtime.dispose();
    throw error;
  }
  // The token secret and any other durable part an export never shows (state-file.ts).
  if (saved) restoreKeptParts(parts, saved.parts);
  const { app, services, control } = createApp(runtime, {
    replay: replay && replayAnswer({ replay, gate, tokens: runtime.tokens, bodyLimit: runtime.options.bodyLimit }),
  });
  // Tracker scans that were pending when the mock stopped resume (and those due meanwhile happen now).
  if (durable) services.trackers.resume();
  if (saved?.state) {
    try {
      control.state.import(saved.state);
    } catch (error) {
      runtime.dispose();
      throw new Error(`--state-file ${options.stateFile} cannot be loaded: ${(error as Error).message}`);
    }
  }
  const tls = await resolveTls(options, options.host);
  const server: Server = tls ? createHttpsServer({ ...tls, ...serverOptionsOf(limits) }, app) : createServer(serverOptionsOf(limits), app);
  const { logger } = runtime;
  applyConnectionLimits(server, limits, (address, limit) =>
    logger.warn({ address, limit }, `connections from ${address} refused: ${limit} are open from that address (--max-connections-per-address)`),
  );
  const host = options.host ?? '127.0.0.1';
  const started = runtime;
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => {
      // Releases the data file (and its lock) when the port cannot be had.
      replay?.close();
      started.dispose();
      reject(error);
    };
    server.once('error', failed);
    server.listen(options.port ?? 4010, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // A webhook to this port on this machine would be the mock posting to itself: refused (src/events/mock-endpoints.ts).
  runtime.webhooks.endpoints.note(port);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const mock: RunningMock = {
    url: `${tls ? 'https' : 'http'}://${urlHost}:${port}`,
    port,
    host,
    credentials: runtime.credentials.defaultCompany,
    server,
    replay,
    ...createMockHandles(control, handlePartsOf(runtime, services)),
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Saved before anything stops, so the file has exactly what the last request left.
        if (options.stateFile && saved) writeStateFile(options.stateFile, control.state.export(), parts);
        // Stops webhook retries and closes their sockets as well as the clock's timers.
        runtime.dispose();
        // What --on-miss proxy recorded is written, and the folder released.
        replay?.close();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
  internals.set(mock, { runtime, services });
  return mock;
}
