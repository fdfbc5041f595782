import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startMock, type RunningMock, type StartOptions } from '../../src/server/start-mock.js';
import { createLogger } from '../../src/logging/logger.js';

/**
 * A mock on a real socket (port 0) for tests that need real HTTP: connection resets, truncated
 * bodies, latency. Manual clock and seed 1, like the in-process harness.
 */
export async function startLiveMock(options: StartOptions = {}): Promise<RunningMock> {
  return startMock({ port: 0, seed: 1, clock: { mode: 'manual' }, responseValidation: 'error', logger: createLogger({ level: 'silent', format: 'json' }), ...options });
}

export interface LiveAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface LiveAccount {
  accountId: string;
  /** 'Bearer …' of an Account token. */
  auth: string;
  companyAuth: string;
  /** Requests a fresh Account token (the token endpoint with the company's Basic credentials). */
  renew(): Promise<string>;
}

/** One request; the body is parsed when it is JSON. Connection errors reject. */
export async function call(mock: RunningMock, method: string, path: string, options: { auth?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<LiveAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers.Authorization = options.auth;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${mock.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  let body: any = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
  return { status: res.status, headers: res.headers, body, text };
}

export function basicOf(mock: RunningMock): string {
  return `Basic ${Buffer.from(`${mock.credentials.clientId}:${mock.credentials.clientSecret}`).toString('base64')}`;
}

/** The spec's token dance over real HTTP: company token → account → account token. */
export async function liveAccount(mock: RunningMock): Promise<LiveAccount> {
  const grant = { grantType: 'client_credentials' };
  const company = await call(mock, 'POST', `/v1/companies/${mock.credentials.companyId}/tokens`, { auth: basicOf(mock), body: grant });
  if (company.status !== 200) throw new Error(`company token: ${company.status} ${company.text}`);
  const companyAuth = `Bearer ${company.body.accessToken}`;
  const created = await call(mock, 'POST', '/v1/accounts', {
    auth: companyAuth,
    body: {
      company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
      contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
    },
  });
  if (created.status !== 201) throw new Error(`create account: ${created.status} ${created.text}`);
  const accountId = created.body.id as string;
  const renew = async () => {
    const token = await call(mock, 'POST', `/v1/accounts/${accountId}/tokens`, { auth: basicOf(mock), body: grant });
    if (token.status !== 200) throw new Error(`account token: ${token.status} ${token.text}`);
    return `Bearer ${token.body.accessToken}`;
  };
  return { accountId, auth: await renew(), companyAuth, renew };
}

export const ADDRESS = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };

/**
 * One live mock for a test file (started before its first test, closed after its last), reset
 * before every test, with a fresh account each time; `use` receives both before each test.
 * @example let mock: RunningMock; let account: LiveAccount; liveMockWithFreshAccount((live) => ({ mock, account } = live));
 */
export function liveMockWithFreshAccount(use: (live: { mock: RunningMock; account: LiveAccount }) => void, options: StartOptions = {}): void {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startLiveMock(options);
  });
  afterAll(() => mock?.close());
  beforeEach(async () => {
    mock.reset();
    use({ mock, account: await liveAccount(mock) });
  });
}
