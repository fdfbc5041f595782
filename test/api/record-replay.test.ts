/**
 * `shipmock record` and `serve --replay` over real HTTP on loopback (issue 26): a second shipmock
 * (another seed, a PRODUCTION carrier) plays the real service, and a small server that breaks the
 * contract on purpose plays a drifting one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { startRecorder, formatRecordSummary } from '../../src/record/recorder.js';
import { FolderLockedError } from '../../src/record/folder-lock.js';
import { HAR_FILE, SCENARIO_FILE } from '../../src/record/recording-files.js';
import { redactBody } from '../../src/util/redact.js';
import type { RunningMock } from '../../src/server/start-mock.js';
import { carriers } from '../support/booking-fixtures.js';
import { startLiveMock } from '../support/live-mock.js';
import { berlin, munich } from '../support/shipping-fixtures.js';

const silent = createLogger({ level: 'silent', format: 'json' });
const WEBHOOK_SECRET = 'whsec_record_replay_9f86d081884c7d65';
const API_KEY = 'key-record-replay-5521';
const CARRIER_PASSWORD = 'carrier-pass-Zq81xLm04';

const folders: string[] = [];
const closers: (() => Promise<unknown>)[] = [];
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-record-'));
  folders.push(dir);
  return dir;
};
afterEach(async () => {
  while (closers.length) await closers.pop()!().catch(() => {});
});
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** The "real service": a shipmock of its own (seed 7), on a free port. */
async function realService(): Promise<RunningMock> {
  const mock = await startLiveMock({ seed: 7 });
  closers.push(() => mock.close());
  return mock;
}

interface Seen {
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: Buffer;
  headers: Headers;
}

/** A client's flow, as the client sends it: the ids and tokens it uses are the ones it was answered. */
async function clientFlow(base: string, credentials: { companyId: string; clientId: string; clientSecret: string }): Promise<{ seen: Seen[]; secrets: string[] }> {
  const seen: Seen[] = [];
  const basic = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`;
  const send = async (method: string, path: string, auth: string, body?: unknown): Promise<{ json: any; answer: Seen }> => {
    const res = await fetch(base + path, {
      method,
      headers: { Authorization: auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = { method, path, status: res.status, contentType: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
    seen.push(answer);
    const json = answer.contentType.includes('json') && answer.body.length ? JSON.parse(answer.body.toString('utf8')) : undefined;
    return { json, answer };
  };
  const grant = { grantType: 'client_credentials' };
  const company = (await send('POST', `/v1/companies/${credentials.companyId}/tokens`, basic, grant)).json;
  const companyAuth = `Bearer ${company.accessToken}`;
  const account = (await send('POST', '/v1/accounts', companyAuth, {
    company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
    contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
  })).json;
  const accountToken = (await send('POST', `/v1/accounts/${account.id}/tokens`, basic, grant)).json;
  const auth = `Bearer ${accountToken.accessToken}`;
  await send('GET', '/v1/addresses', auth);
  const sender = (await send('POST', '/v1/addresses', auth, berlin)).json;
  const receiver = (await send('POST', '/v1/addresses', auth, munich)).json;
  // The same request again: its second answer differs (two addresses now), a sequence.
  await send('GET', '/v1/addresses', auth);
  await send('GET', `/v1/addresses/${sender.id}`, auth);
  await send('POST', '/v1/event-channels', auth, { name: 'Bookings', topics: ['SHIPMENT_BOOKING'], webhook: { url: 'http://127.0.0.1:9/hook', secret: WEBHOOK_SECRET, headers: { 'X-Api-Key': API_KEY } } });
  const definition = (await send('POST', '/v1/carrier-definitions', auth, { carrierId: carriers.dhl, name: 'DHL live', mode: 'PRODUCTION', settings: [{ key: 'password', value: CARRIER_PASSWORD }] })).json;
  await send('GET', `/v1/carrier-definitions/${definition.id}`, auth);
  const service = (await send('POST', '/v1/service-definitions', auth, { carrierDefinitionId: definition.id, serviceId: carriers.dhlPaket, name: 'Paket' })).json;
  const channel = (await send('POST', '/v1/shipment-channels', auth, { name: 'PNG labels', documentRendering: { labelFormat: 'PNG', labelSize: 'A6' } })).json;
  const parcel = (await send('POST', '/v1/parcels', auth, { weight: 2.5, reference: 'P-1' })).json;
  const booking = (await send('POST', '/v1/shipment-bookings', auth, {
    serviceDefinitionId: service.id,
    shipmentChannelId: channel.id,
    parties: [
      { role: 'SENDER', entityType: 'ADDRESS', id: sender.id },
      { role: 'RECEIVER', entityType: 'ADDRESS', id: receiver.id },
    ],
    parcelIds: [parcel.id],
    reference: 'ORDER-1',
  })).json;
  const fetched = (await send('GET', `/v1/shipment-bookings/${booking.id}`, auth)).json;
  // The label's bytes (PNG): a binary answer.
  await send('GET', `/v1/documents/${fetched.documentIds[0]}/data`, auth);
  return { seen, secrets: [credentials.clientSecret, basic.slice('Basic '.length), company.accessToken, accountToken.accessToken, WEBHOOK_SECRET, API_KEY, CARRIER_PASSWORD] };
}

/** Every file under a folder, as text. */
function folderText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'latin1'))
    .join('\n');
}

/** A response as a replay answers it: secrets shortened (JSON and text bodies), the mark of a shortened JSON value in ASCII. */
function redacted(answer: Seen): string {
  const isText = /json|text|xml/.test(answer.contentType);
  return isText ? redactBody(answer.body.toString('utf8'), answer.contentType).replaceAll('…"', '..."') : answer.body.toString('base64');
}
const replayedForm = (answer: Seen) => (/json|text|xml/.test(answer.contentType) ? answer.body.toString('utf8') : answer.body.toString('base64'));

async function record(upstream: string, out: string) {
  const recorder = await startRecorder({ upstream, out, port: 0, logger: silent });
  closers.push(() => recorder.close());
  return recorder;
}

async function replay(from: string, onMiss: 'mock' | 'fail' | 'proxy' = 'fail', upstream?: string, options: { companyId?: string } = {}): Promise<RunningMock> {
  const mock = await startLiveMock({ seed: 3, replay: { from, onMiss, upstream }, ...options });
  closers.push(() => mock.close());
  return mock;
}

describe('record → stop the upstream → replay', () => {
  it('answers the same bytes (secrets shortened) in the same order, from the folder alone', async () => {
    const upstream = await realService();
    const out = folder();
    const recorder = await record(upstream.url, out);
    const original = await clientFlow(recorder.url, upstream.credentials);
    expect(original.seen.map((s) => s.status)).not.toContain(500);
    expect(original.seen.at(-1)).toMatchObject({ status: 200, contentType: 'image/png' });
    expect(original.seen.every((s) => s.headers.get('x-shipmock-violations') === '[]')).toBe(true);
    const summary = await recorder.close();
    expect(summary).toMatchObject({ found: 0, added: original.seen.length, known: 0, contractBreaks: [] });
    await upstream.close();

    expect(readdirSync(out).sort()).toEqual(expect.arrayContaining([HAR_FILE, SCENARIO_FILE]));
    const har = JSON.parse(readFileSync(join(out, HAR_FILE), 'utf8'));
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries).toHaveLength(original.seen.length);

    const mock = await replay(out, 'fail');
    const replayed = await clientFlow(mock.url, upstream.credentials);
    expect(replayed.seen.map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual(original.seen.map((s) => `${s.method} ${s.path} ${s.status}`));
    expect(replayed.seen.map(replayedForm)).toEqual(original.seen.map(redacted));
    expect(replayed.seen.every((s) => s.headers.get('x-shipmock-source') === 'replay')).toBe(true);
  });

  it('writes no secret the client or the service used anywhere in the folder', async () => {
    const upstream = await realService();
    const out = folder();
    const recorder = await record(upstream.url, out);
    const { secrets } = await clientFlow(recorder.url, upstream.credentials);
    await recorder.close();
    const text = folderText(out);
    expect(text.length).toBeGreaterThan(1000);
    for (const secret of secrets) expect(text.includes(secret), `${secret.slice(0, 8)}… is on disk`).toBe(false);
  });
});

describe('recording again into a folder', () => {
  it('adds nothing when the same flow runs again, and only the new answer when a request repeats once more', async () => {
    const out = folder();
    const first = await realService();
    let recorder = await record(first.url, out);
    const run = await clientFlow(recorder.url, first.credentials);
    await recorder.close();
    const harBefore = readFileSync(join(out, HAR_FILE), 'utf8');
    const scenarioBefore = readFileSync(join(out, SCENARIO_FILE), 'utf8');

    // A fresh service with the same seed gives the same ids: the same requests.
    await first.close();
    const second = await realService();
    recorder = await record(second.url, out);
    await clientFlow(recorder.url, second.credentials);
    const again = await recorder.close();
    expect(again).toMatchObject({ found: run.seen.length, added: 0, known: run.seen.length });
    expect(readFileSync(join(out, HAR_FILE), 'utf8')).toBe(harBefore);
    expect(readFileSync(join(out, SCENARIO_FILE), 'utf8')).toBe(scenarioBefore);

    await second.close();
    const third = await realService();
    recorder = await record(third.url, out);
    await clientFlow(recorder.url, third.credentials);
    const token = await fetch(`${recorder.url}/v1/companies/${third.credentials.companyId}/tokens`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${third.credentials.clientId}:${third.credentials.clientSecret}`).toString('base64')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ grantType: 'client_credentials' }),
    });
    expect(token.status).toBe(200);
    const more = await recorder.close();
    expect(more).toMatchObject({ found: run.seen.length, added: 1, known: run.seen.length });
    expect(JSON.parse(readFileSync(join(out, HAR_FILE), 'utf8')).log.entries).toHaveLength(run.seen.length + 1);
  });

  it('refuses a second recorder on the same folder while the first runs, and changes nothing', async () => {
    const upstream = await realService();
    const out = folder();
    const recorder = await record(upstream.url, out);
    await expect(startRecorder({ upstream: upstream.url, out, port: 0, logger: silent })).rejects.toBeInstanceOf(FolderLockedError);
    await fetch(`${recorder.url}/v1/carriers`);
    expect((await recorder.close()).added).toBe(1);
    // Released: the next recorder may have it.
    const next = await record(upstream.url, out);
    expect(next.summary().found).toBe(1);
  });
});

/** A service that drifts from the contract: a renamed field, a changed status. */
async function driftingService(): Promise<string> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/carriers') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ elements: [], total: 0 }));
      return;
    }
    if (req.method === 'POST' && req.url?.startsWith('/v1/companies/')) {
      req.resume();
      req.on('end', () => {
        res.writeHead(202, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ accessToken: 'drift-token-abcdefghijklmnop', tokenType: 'Bearer', expiresAt: 1 }));
      });
      return;
    }
    res.writeHead(404, { 'Content-Type': 'application/problem+json' });
    res.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a recorded answer that breaks the contract', () => {
  it('is kept, marked in the recording, reported at the end, and replayed with its violations', async () => {
    const upstream = await driftingService();
    const out = folder();
    const recorder = await record(upstream, out);
    const carriersAnswer = await fetch(`${recorder.url}/v1/carriers`);
    expect(carriersAnswer.status).toBe(200);
    const token = await fetch(`${recorder.url}/v1/companies/5f0c6a3e-1d2b-4c8e-9a7f-3b2d1e0c9a84/tokens`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from('id:secret-value-123').toString('base64')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ grantType: 'client_credentials' }),
    });
    expect(token.status).toBe(202);
    const summary = await recorder.close();
    expect(summary.contractBreaks.map((b) => `${b.method} ${b.path} ${b.status}`)).toEqual(['GET /v1/carriers 200', 'POST /v1/companies/5f0c6a3e-1d2b-4c8e-9a7f-3b2d1e0c9a84/tokens 202']);
    const report = formatRecordSummary(summary, out);
    expect(report).toContain('2 recorded answer(s) break the contract');
    expect(report).toContain('GET /v1/carriers → 200 (listCarriers)');

    const scenario = JSON.parse(readFileSync(join(out, SCENARIO_FILE), 'utf8'));
    const marked = scenario.rules.filter((rule: { recorded: { conforms?: boolean } }) => rule.recorded.conforms === false);
    expect(marked).toHaveLength(2);
    expect(JSON.stringify(marked)).toContain('body');
    expect(folderText(out)).not.toContain('drift-token-abcdefghijklmnop');
    expect(folderText(out)).not.toContain('secret-value-123');

    const mock = await replay(out, 'fail');
    const replayed = await fetch(`${mock.url}/v1/carriers`);
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toEqual({ elements: [], total: 0 });
    expect(JSON.parse(replayed.headers.get('x-shipmock-violations') ?? '[]').length).toBeGreaterThan(0);
  });
});

describe('replay state and misses', () => {
  /** A folder holding two answers of GET /v1/addresses (before and after a create) and a carriers list. */
  async function recordedFolder(): Promise<{ out: string; credentials: RunningMock['credentials']; auth: string; lists: string[] }> {
    const upstream = await realService();
    const out = folder();
    const recorder = await record(upstream.url, out);
    const flow = await clientFlow(recorder.url, upstream.credentials);
    await recorder.close();
    await upstream.close();
    const lists = flow.seen.filter((s) => s.method === 'GET' && s.path === '/v1/addresses').map((s) => redacted(s));
    return { out, credentials: upstream.credentials, auth: `Bearer ${JSON.parse(flow.seen[2].body.toString()).accessToken}`, lists };
  }

  it('keeps sequence positions in the store: reset starts them again, the state export carries them', async () => {
    const { out, auth, lists } = await recordedFolder();
    expect(lists).toHaveLength(2);
    const mock = await replay(out, 'fail');
    const list = async () => (await fetch(`${mock.url}/v1/addresses`, { headers: { Authorization: auth } })).text();
    expect(await list()).toBe(lists[0]);
    const exported = mock.state.export();
    expect(JSON.stringify(exported)).toMatch(/"replay:[A-Za-z0-9_-]{22}":1/);
    expect(await list()).toBe(lists[1]);
    // All given: a miss, which --on-miss fail names.
    const third = await fetch(`${mock.url}/v1/addresses`, { headers: { Authorization: auth } });
    expect(third.status).toBe(501);
    mock.reset();
    expect(await list()).toBe(lists[0]);
    // Importing the export taken after the first answer goes on with the second.
    mock.state.import(exported);
    expect(await list()).toBe(lists[1]);
  });

  it('keeps sequence positions across a restart on a --data file', async () => {
    const { out, auth, lists } = await recordedFolder();
    const data = join(folder(), 'replay.db');
    const list = async (mock: RunningMock) => (await fetch(`${mock.url}/v1/addresses`, { headers: { Authorization: auth } })).text();
    const first = await startLiveMock({ seed: 3, data, replay: { from: out, onMiss: 'fail' } });
    expect(await list(first)).toBe(lists[0]);
    await first.close();
    const second = await startLiveMock({ seed: 3, data, replay: { from: out, onMiss: 'fail' } });
    closers.push(() => second.close());
    expect(await list(second)).toBe(lists[1]);
  });

  it('--on-miss fail: a 501 replay-miss problem naming the request, nothing changed', async () => {
    const { out, auth } = await recordedFolder();
    const mock = await replay(out, 'fail');
    const before = JSON.stringify(mock.state.export());
    const res = await fetch(`${mock.url}/v1/parcels?limit=5`, { headers: { Authorization: auth } });
    expect(res.status).toBe(501);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = await res.json();
    expect(problem).toMatchObject({
      type: 'https://shipmock.dev/problems/replay-miss',
      status: 501,
      properties: { request: { method: 'GET', path: '/v1/parcels', query: 'limit=5', operationId: 'listParcels' }, recorded: 0 },
    });
    expect(problem.detail).toContain('GET /v1/parcels?limit=5');
    expect(JSON.stringify(mock.state.export())).toBe(before);
  });

  it('--on-miss mock: the stateful mock answers what the recording lacks', async () => {
    const { out } = await recordedFolder();
    // Another company id: its token request is not in the recording, so the mock answers it.
    const mock = await replay(out, 'mock', undefined, { companyId: '0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6' });
    const basic = `Basic ${Buffer.from(`${mock.credentials.clientId}:${mock.credentials.clientSecret}`).toString('base64')}`;
    const res = await fetch(`${mock.url}/v1/companies/${mock.credentials.companyId}/tokens`, { method: 'POST', headers: { Authorization: basic, 'Content-Type': 'application/json' }, body: JSON.stringify({ grantType: 'client_credentials' }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-shipmock-source')).toBeNull();
    const token = (await res.json()).accessToken as string;
    const carriersList = await fetch(`${mock.url}/v1/carriers?limit=2`, { headers: { Authorization: `Bearer ${token}` } });
    expect(carriersList.status).toBe(200);
    expect((await carriersList.json()).items).toHaveLength(2);
  });

  it('--on-miss proxy: the upstream answers a miss, which is recorded into the folder and replayed from then on', async () => {
    const { out, auth } = await recordedFolder();
    const upstream = await realService();
    const mock = await replay(out, 'proxy', upstream.url);
    const before = JSON.parse(readFileSync(join(out, HAR_FILE), 'utf8')).log.entries.length;
    const res = await fetch(`${mock.url}/v1/carriers?limit=1`, { headers: { Authorization: auth } });
    expect(res.headers.get('x-shipmock-source')).toBe('upstream');
    const body = await res.text();
    // While it runs, a second recorder is refused the folder.
    await expect(startRecorder({ upstream: upstream.url, out, port: 0, logger: silent })).rejects.toBeInstanceOf(FolderLockedError);
    await mock.close();
    expect(JSON.parse(readFileSync(join(out, HAR_FILE), 'utf8')).log.entries.length).toBe(before + 1);
    await upstream.close();
    const again = await replay(out, 'fail');
    const replayed = await fetch(`${again.url}/v1/carriers?limit=1`, { headers: { Authorization: auth } });
    expect(replayed.headers.get('x-shipmock-source')).toBe('replay');
    expect(await replayed.text()).toBe(redactBody(body, 'application/json').replaceAll('…"', '..."'));
  });
});
