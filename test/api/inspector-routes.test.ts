import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { createHarness, harnessWithAccount } from '../support/harness.js';
import { call, liveAccount, startLiveMock } from '../support/live-mock.js';
import { releaseWhenDone } from '../support/lifetime.js';
import { liveBooking } from '../support/live-booking.js';

/** The control-plane routes the inspector reads (contract/admin.yaml, tag Inspector) and the pages. */
describe('the journal, entry by entry', () => {
  it('keeps each request with its exchange: headers (secrets shortened), bodies and every violation', async () => {
    const { h, account } = await harnessWithAccount();
    await h.http.post('/v1/addresses').set('Authorization', account.auth).send({ name: 7, street: 'Hauptstr. 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' });
    const [entry] = (await h.http.get('/__admin/journal?operation_id=createAddress')).body.items;
    expect(entry).toMatchObject({ status: 400, validation: 'invalid-request', problem: 'validation-error' });
    const one = await h.http.get(`/__admin/journal/${entry.seq}`);
    expect(one.status).toBe(200);
    expect(one.body.entry).toEqual(entry);
    const { request, response, violations } = one.body.exchange;
    expect(request.headers.authorization).toMatch(/^Bearer .{6}…$/);
    expect(account.auth).not.toContain(request.headers.authorization.slice(-1));
    expect(JSON.parse(request.body)).toMatchObject({ name: 7 });
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(response.body).status).toBe(400);
    expect(violations.request).toContainEqual({ field: 'body/name', message: expect.any(String) });
    expect(violations.response).toEqual([]);
  });

  it('marks valid answers valid, and a request that never reached validation not-checked', async () => {
    const { h, account } = await harnessWithAccount();
    await h.http.get('/v1/addresses').set('Authorization', account.auth);
    await h.http.get('/v1/addresses');
    const items = (await h.http.get('/__admin/journal?path=/v1/addresses')).body.items;
    expect(items.map((e: { status: number; validation: string }) => [e.status, e.validation])).toEqual([
      [200, 'valid'],
      [401, 'not-checked'],
    ]);
  });

  it('names binary bodies by media type and keeps no bytes of them', async () => {
    const { h, account } = await harnessWithAccount();
    const carrier = (await h.http.get('/v1/carriers?limit=1').set('Authorization', account.auth)).body.items[0];
    expect((await h.http.get(`/v1/carriers/${carrier.id}/logo`).set('Authorization', account.auth)).status).toBe(200);
    const [entry] = (await h.http.get('/__admin/journal?operation_id=getCarrierLogo')).body.items;
    const { exchange } = (await h.http.get(`/__admin/journal/${entry.seq}`)).body;
    expect(exchange.response).toMatchObject({ binary: 'image/png', bodyBytes: expect.any(Number) });
    expect(exchange.response.body).toBeUndefined();
  });

  it('answers 404 for an entry it no longer holds, and 400 for one that is not a number', async () => {
    const h = createHarness({ journalSize: 1 });
    expect((await h.http.get('/__admin/journal/99')).status).toBe(404);
    expect((await h.http.get('/__admin/journal/first')).status).toBe(400);
  });
});

/** Reads server-sent events until `done` says enough; returns the parsed `entries` batches. `onBatch` hears of each batch as it arrives. */
function readStream(url: string, headers: Record<string, string>, done: (entries: { seq: number; path: string }[]) => boolean, onBatch: () => void = () => {}) {
  return new Promise<{ seqs: number[]; ids: string[]; contentType?: string }>((resolve, reject) => {
    const seen: { seq: number; path: string }[] = [];
    const ids: string[] = [];
    const req = http.get(url, { headers }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!data) continue;
          if (id) ids.push(id);
          seen.push(...(JSON.parse(data) as { entries: { seq: number; path: string }[] }).entries);
          onBatch();
          if (done(seen)) {
            req.destroy();
            resolve({ seqs: seen.map((e) => e.seq), ids, contentType: res.headers['content-type'] });
          }
        }
      });
    });
    req.on('error', (error) => (error.message === 'socket hang up' ? undefined : reject(error)));
  });
}

describe('the journal, live', () => {
  it('streams what was held, then every new request, in batches with the last seq as event id', async () => {
    const mock = await startLiveMock();
    releaseWhenDone(() => mock.close());
    await call(mock, 'GET', '/v1/accounts');
    // The stream sends what it holds as it subscribes: once that batch is here, new requests are streamed.
    let subscribed!: () => void;
    const listening = new Promise<void>((resolve) => (subscribed = resolve));
    const live = readStream(`${mock.url}/__admin/journal/stream`, {}, (entries) => entries.length >= 4, subscribed);
    await listening;
    for (let i = 0; i < 3; i++) await call(mock, 'GET', `/v1/addresses?n=${i}`);
    const { seqs, ids, contentType } = await live;
    expect(contentType).toBe('text/event-stream; charset=utf-8');
    expect(seqs).toEqual([1, 2, 3, 4]);
    expect(ids.at(-1)).toBe('4');
    // A reconnect asks for what it missed and gets only that.
    const resumed = await readStream(`${mock.url}/__admin/journal/stream`, { 'Last-Event-ID': '2' }, (entries) => entries.length >= 2);
    expect(resumed.seqs).toEqual([3, 4]);
    // An id that is not ours resumes from the start rather than sending nothing.
    const foreign = await readStream(`${mock.url}/__admin/journal/stream`, { 'Last-Event-ID': 'evt-17' }, (entries) => entries.length >= 4);
    expect(foreign.seqs).toEqual([1, 2, 3, 4]);
  });

  it('does not keep the mock from closing while a page is still listening', async () => {
    const mock = await startLiveMock();
    const listening = new Promise<void>((resolve) => {
      const req = http.get(`${mock.url}/__admin/journal/stream`, (res) => {
        res.once('data', () => resolve());
        res.on('error', () => undefined);
      });
      req.on('error', () => undefined);
    });
    await listening;
    const started = Date.now();
    await mock.close();
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('what is due, stored objects, documents, events and usage', () => {
  it('lists the tracker steps a clock advance will set off, soonest first', async () => {
    const mock = await startLiveMock();
    releaseWhenDone(() => mock.close());
    const account = await liveAccount(mock);
    const booking = await liveBooking(mock, account, 'ZPL');
    const due = await call(mock, 'GET', '/__admin/clock/due?limit=5');
    expect(due.status).toBe(200);
    const steps = due.body.items.filter((i: { kind: string }) => i.kind === 'tracker-step');
    expect(steps.length).toBeGreaterThan(0);
    expect(steps[0]).toMatchObject({ accountId: account.accountId, detail: expect.any(String) });
    const times = due.body.items.map((i: { at: string }) => Date.parse(i.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The stored booking, its documents (cut in lists, whole one by one) and the ZPL bytes.
    const overview = await call(mock, 'GET', '/__admin/state/overview');
    const mine = overview.body.companies[0].accounts.find((a: { accountId: string }) => a.accountId === account.accountId);
    expect(mine.collections).toMatchObject({ 'shipment-bookings': 1, documents: 1 });
    const bookings = await call(mock, 'GET', `/__admin/state/accounts/${account.accountId}/collections/shipment-bookings`);
    expect(bookings.body).toMatchObject({ total: 1, offset: 0, limit: 50, items: [{ id: booking.id }] });
    const documents = await call(mock, 'GET', `/__admin/state/accounts/${account.accountId}/collections/documents`);
    const label = documents.body.items[0];
    const bytes = await fetch(`${mock.url}/__admin/state/accounts/${account.accountId}/documents/${label.id}/data`);
    expect(bytes.headers.get('content-type')).toBe('application/x-zpl');
    expect(await bytes.text()).toMatch(/^\^XA/);
    expect((await call(mock, 'GET', `/__admin/state/accounts/${account.accountId}/documents/nope/data`)).status).toBe(404);
    expect((await call(mock, 'GET', `/__admin/state/accounts/${account.accountId}/collections/shipment-bookings/nope`)).status).toBe(404);
    expect((await call(mock, 'GET', `/__admin/state/accounts/${account.accountId}/collections/Not_A_Name`)).status).toBe(400);
    const events = await call(mock, 'GET', `/__admin/events?account_id=${account.accountId}&mentions=${booking.id}`);
    expect(events.body.items.map((e: { topic: string; type: string }) => `${e.topic} ${e.type}`)).toContain('SHIPMENT_BOOKING CREATED');
    const usage = await call(mock, 'GET', '/__admin/usage');
    const accountUsage = usage.body.companies[0].accounts.find((a: { accountId: string }) => a.accountId === account.accountId);
    expect(accountUsage.totals).toContainEqual({ operation: 'CONSUME', topic: 'PARCEL', tokens: 1 });
    expect(accountUsage.daily).toEqual([{ date: '2026-01-01', tokens: 1 }]);
    expect((await call(mock, 'GET', '/__admin/usage?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z')).status).toBe(400);
    // A reset forgets the remembered events too.
    await call(mock, 'POST', '/__admin/reset', { headers: { 'X-Shipmock-Admin': '1' } });
    expect((await call(mock, 'GET', '/__admin/events')).body.items).toEqual([]);
  });
});

describe('the mock’s pages', () => {
  it('GET / redirects to the inspector, whose files carry cache headers and a strict content policy', async () => {
    const h = createHarness();
    const root = await h.http.get('/');
    expect(root.status).toBe(302);
    expect(root.headers.location).toBe('./__admin/ui/');
    const index = await h.http.get('/__admin/ui/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.headers['content-security-policy']).toContain("default-src 'self'");
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(index.text)![1];
    const asset = await h.http.get(`/__admin/ui/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await h.http.post('/__admin/ui/').set('X-Shipmock-Admin', '1')).status).toBe(405);
    expect((await h.http.get('/__admin/ui/nope.js')).status).toBe(404);
    // Pages are not API traffic: the journal stays empty.
    expect((await h.http.get('/__admin/journal')).body.items).toEqual([]);
  });

  it('keeps the inspector to this machine like the control plane, unless an admin key is set', async () => {
    const h = createHarness();
    expect((await h.http.get('/__admin/ui/').set('Host', 'evil.example')).status).toBe(403);
    const keyed = createHarness({ adminKey: 'k' });
    // The files hold no data: with a key anyone may load them; the page then asks for the key.
    expect((await keyed.http.get('/__admin/ui/').set('Host', 'shared.example')).status).toBe(200);
    expect((await keyed.http.get('/__admin/clock').set('Host', 'shared.example')).status).toBe(401);
  });

  it('serves the API reference from the package, with Swagger UI’s files and no CDN', async () => {
    const h = createHarness();
    const docs = await h.http.get('/docs/');
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('swagger-ui-bundle.js');
    expect(docs.text).not.toMatch(/https?:\/\//);
    expect((await h.http.get('/docs/swagger-ui-bundle.js')).status).toBe(200);
    expect((await h.http.get('/docs/docs.js')).text).toContain("new URL('openapi.json', mockRoot)");
  });
});
