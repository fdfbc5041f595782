import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createApp } from '../app/create-app.js';
import { createRuntime, type MockRuntime } from '../app/runtime.js';
import type { CompanyCredentials } from '../auth/credentials.js';
import type { MockOptions } from '../config/options.js';
import type { Logger } from '../logging/logger.js';
import type { Services } from '../resources/index.js';
import { createMockHandles, type MockHandles } from './mock-handles.js';
import { readStateFile, writeStateFile } from './state-file.js';
import { resolveTls, type TlsOptions } from './tls.js';

export interface StartOptions extends MockOptions, TlsOptions {
  /** Port to listen on; 0 picks a free one. Default 4010. */
  port?: number;
  /** Address to bind. Default 127.0.0.1. */
  host?: string;
  /** A logger to use instead of one built from logLevel/logFormat. */
  logger?: Logger;
  /** Loads this state file at start when it exists and saves the state to it on close(). */
  stateFile?: string;
}

export interface RunningMock extends MockHandles {
  /** Base URL, e.g. http://127.0.0.1:4010 (https:// with tls, cert or key). */
  url: string;
  port: number;
  host: string;
  /** The seeded default company's credentials. */
  credentials: CompanyCredentials;
  runtime: MockRuntime;
  services: Services;
  server: Server;
  close(): Promise<void>;
}

/**
 * Starts a mock on a real socket.
 * @example
 * const mock = await startMock({ port: 0, seed: 1 });
 * await fetch(`${mock.url}/__admin/health`);
 * await mock.close();
 */
export async function startMock(options: StartOptions = {}): Promise<RunningMock> {
  const saved = options.stateFile ? readStateFile(options.stateFile, options.tokenSecret) : undefined;
  const runtime = createRuntime(saved ? { ...options, tokenSecret: saved.tokenSecret } : options, options.logger);
  const { app, services, control } = createApp(runtime);
  if (saved?.state) {
    try {
      control.state.import(saved.state);
    } catch (error) {
      runtime.dispose();
      throw new Error(`--state-file ${options.stateFile} cannot be loaded: ${(error as Error).message}`);
    }
  }
  const tls = await resolveTls(options, options.host);
  const server: Server = tls ? createHttpsServer(tls, app) : createServer(app);
  server.keepAliveTimeout = 65_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4010, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${tls ? 'https' : 'http'}://${urlHost}:${port}`,
    port,
    host,
    credentials: runtime.credentials.defaultCompany,
    runtime,
    services,
    server,
    ...createMockHandles(control),
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Saved before anything stops, so the file has exactly what the last request left.
        if (options.stateFile && saved) writeStateFile(options.stateFile, control.state.export(), saved.tokenSecret);
        // Stops webhook retries and closes their sockets as well as the clock's timers.
        runtime.dispose();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
