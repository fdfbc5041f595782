import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, harnessWithAccount, type Harness, type TestAccount, harnessInternals } from '../support/harness.js';
import { closedPortUrl, driveDeliveries, startWebhookReceiver } from '../support/webhook-receiver.js';
import { recordEscapedErrors } from '../support/escaped-errors.js';
import type { PayloadOf } from '../../src/events/event-bus.js';

const FINISHED = new Set(['DELIVERED', 'FAILED', 'CANCELLED']);

/** Anything that escapes background work would end a real `shipmock serve`. */
const escaped = recordEscapedErrors();

describe('webhook robustness', () => {
  let h: Harness;
  let account: TestAccount;

  // Harnesses and receivers made in a test are disposed of when it ends (support/lifetime.ts).
  async function setUp(options: Parameters<typeof createHarness>[0] = {}) {
    ({ h, account } = await harnessWithAccount(options));
  }

  const channelBody = (url: string, extra: Record<string, unknown> = {}) => ({ name: 'hooks', topics: ['ADDRESS'], webhook: { url, ...extra } });
  const createChannel = (url: string, extra: Record<string, unknown> = {}) =>
    h.http.post('/v1/event-channels').set('Authorization', account.auth).send(channelBody(url, extra));
  const createAddress = async () => {
    const res = await h.http
      .post('/v1/addresses')
      .set('Authorization', account.auth)
      .send({ name: 'Erika', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' });
    expect(res.status).toBe(201);
  };
  const allFinished = () => {
    const items = h.webhooks.deliveries({ limit: 1000 }).items;
    return items.length > 0 && items.every((d) => FINISHED.has(d.status));
  };

  /** Exports the state, rewrites it as text (bypassing every validation) and imports it again. */
  async function plant(from: string, to: string) {
    const exported = await h.http.get('/__admin/state');
    expect(exported.status).toBe(200);
    const text = JSON.stringify(exported.body);
    expect(text).toContain(from);
    const imported = await h.http.put('/__admin/state').send(JSON.parse(text.split(from).join(to)));
    expect(imported.status).toBe(204);
  }

  describe('webhook URLs are checked at create and replace', () => {
    beforeEach(() => setUp());

    it.each([
      ['https://', 'validation-error'],
      ['http://127.0.0.1:99999/x', 'validation-error'],
      ['http://127.0.0.1:0/x', 'validation-error'],
      ['ftp://files.example.com/x', 'validation-error'],
      ['http://999.1.1.1/hook', 'validation-error'],
      ['/hooks', 'validation-error'],
      [`https://hooks.example.com/${'x'.repeat(2048)}`, 'validation-error'],
      ['http://[:::]/hook', 'rule-violation'],
    ])('%s → 400 %s naming body/webhook/url', async (url, slug) => {
      const res = await createChannel(url);
      expect(res.status).toBe(400);
      expect(res.body.type).toBe(`https://shipmock.dev/problems/${slug}`);
      expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toContain('body/webhook/url');
    });

    it('says what a valid URL looks like, and refuses a bad one on replace too', async () => {
      const created = await createChannel('http://127.0.0.1:9/hook');
      expect(created.status).toBe(201);
      const res = await h.http.put(`/v1/event-channels/${created.body.id}`).set('Authorization', account.auth).send(channelBody('http://127.0.0.1:99999/x'));
      expect(res.status).toBe(400);
      expect(res.body.properties.violations).toContainEqual({
        field: 'body/webhook/url',
        message: 'must be an absolute http:// or https:// URL with a host and, if any, a port from 1 to 65535',
      });
    });

    it.each([
      ['a CR/LF in a value', { 'X-Key': 'a\r\nX-Injected: 1' }, 'body/webhook/headers/X-Key'],
      ['a name that is not a token', { 'X Key': 'v' }, 'body/webhook/headers'],
      ['a value over 1024 characters', { 'X-Key': 'v'.repeat(1025) }, 'body/webhook/headers/X-Key'],
      ['more than 20 headers', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])), 'body/webhook/headers'],
    ])('refuses headers with %s (400)', async (_what, headers, field) => {
      const res = await createChannel('http://127.0.0.1:9/hook', { headers });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.properties.violations)).toContain(field);
    });
  });

  it('a bad URL planted in state: the process survives and the delivery is FAILED with a readable error', async () => {
    await setUp({ webhooks: { maxAttempts: 2 } });
    const good = 'http://127.0.0.1:9/planted-hook';
    expect((await createChannel(good)).status).toBe(201);
    await plant(good, 'http://127.0.0.1:99999/x');
    await createAddress();
    await driveDeliveries(h, allFinished);

    const list = await h.http.get('/__admin/deliveries?status=FAILED');
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    const [delivery] = list.body.items;
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ attempt: 1, url: 'http://127.0.0.1:99999/x', errorCode: 'INVALID_URL', error: '"http://127.0.0.1:99999/x" is not an absolute URL' }),
      expect.objectContaining({ attempt: 2, errorCode: 'INVALID_URL' }),
    ]);
    // Still serving, and nothing escaped.
    await createAddress();
    expect(escaped).toEqual([]);
  });

  it('header values with CR/LF planted in state are a failed attempt, never sent', async () => {
    await setUp({ webhooks: { maxAttempts: 1 } });
    const r = await startWebhookReceiver();
    expect((await createChannel(r.url, { headers: { 'X-Key': 'planted-value' } })).status).toBe(201);
    // As JSON text: the imported value holds a real CR LF.
    await plant('planted-value', 'a\\r\\nX-Injected: 1');
    await createAddress();
    await driveDeliveries(h, allFinished);
    const [delivery] = h.webhooks.deliveries({ limit: 10 }).items;
    expect(delivery).toMatchObject({ status: 'FAILED', attempts: [{ errorCode: 'INVALID_HEADER' }] });
    expect(r.received).toHaveLength(0);
    expect(escaped).toEqual([]);
  });

  describe('--webhook-hosts', () => {
    it('refuses a channel whose host is not allowed, at create and replace, naming the field', async () => {
      await setUp({ webhooks: { allowedHosts: ['*.example.com', '127.0.0.1:9'] } });
      expect((await createChannel('https://hooks.example.com/x')).status).toBe(201);
      const ok = await createChannel('http://127.0.0.1:9/x');
      expect(ok.status).toBe(201);
      for (const url of ['https://example.com/x', 'http://127.0.0.1:10/x', 'https://evil.test/x']) {
        const res = await createChannel(url);
        expect(res.status).toBe(400);
        expect(res.body.properties.violations[0]).toMatchObject({ field: 'body/webhook/url', message: expect.stringContaining('--webhook-hosts') });
      }
      const put = await h.http.put(`/v1/event-channels/${ok.body.id}`).set('Authorization', account.auth).send(channelBody('https://evil.test/x'));
      expect(put.status).toBe(400);
    });

    it('re-checks on delivery: state imported before the flag gets HOST_NOT_ALLOWED attempts', async () => {
      await setUp({ webhooks: { allowedHosts: ['allowed.test'], maxAttempts: 2 } });
      expect((await createChannel('http://allowed.test/x')).status).toBe(201);
      await plant('http://allowed.test/x', 'http://127.0.0.1:9/x');
      await createAddress();
      await driveDeliveries(h, allFinished);
      const [delivery] = h.webhooks.deliveries({ limit: 10 }).items;
      expect(delivery.status).toBe('FAILED');
      expect(delivery.attempts.map((a) => a.errorCode)).toEqual(['HOST_NOT_ALLOWED', 'HOST_NOT_ALLOWED']);
      expect(delivery.attempts[0].error).toBe('host 127.0.0.1:9 is not in --webhook-hosts (allowed.test)');
    });

    it('delivers to an allowed receiver', async () => {
      const r = await startWebhookReceiver();
      await setUp({ webhooks: { allowedHosts: [new URL(r.url).host] } });
      expect((await createChannel(r.url)).status).toBe(201);
      await createAddress();
      await r.waitFor(() => true);
    });
  });

  describe('dead letters', () => {
    it('1,100 deliveries to a dead receiver: every dead letter stays, redeliverable, until purged', async () => {
      await setUp({ webhooks: { maxAttempts: 1 } });
      const dead = await createChannel(await closedPortUrl());
      expect(dead.status).toBe(201);
      for (let i = 0; i < 1100; i++) h.events.publish({ topic: 'ADDRESS', type: 'CREATED', accountId: account.accountId, payload: { i } as unknown as PayloadOf<'ADDRESS'> });
      await driveDeliveries(h, () => h.webhooks.deliveries({ status: 'FAILED', limit: 1 }).counts.FAILED === 1100, 60_000);

      const page = await h.http.get(`/__admin/deliveries?channel_id=${dead.body.id}&status=FAILED&limit=1000`);
      expect(page.body).toMatchObject({ counts: { FAILED: 1100 }, evicted: 0, deadLettersEvicted: 0 });
      const oldest = h.webhooks.deliveries({ status: 'FAILED', limit: 1000, cursor: page.body.nextCursor }).items.at(-1)!;
      expect(oldest.event.payload).toEqual({ i: 0 });
      // A POST without a body needs the header that no browser form can send (admin-access.ts).
    const again = await h.http.post(`/__admin/deliveries/${oldest.id}/redeliver`).set('X-Shipmock-Admin', '1');
      expect(again.status).toBe(202);

      expect((await h.http.delete('/__admin/deliveries')).status).toBe(400);
      expect((await h.http.delete('/__admin/deliveries?status=PENDING')).status).toBe(400);
      await driveDeliveries(h, allFinished, 10_000);
      const purged = await h.http.delete(`/__admin/deliveries?status=FAILED&channel_id=${dead.body.id}`);
      expect(purged.status).toBe(200);
      expect(purged.body).toEqual({ purged: 1100 });
      expect((await h.http.get('/__admin/deliveries')).body.counts.FAILED).toBe(0);
      expect(escaped).toEqual([]);
    }, 90_000);

    it('successes are evicted past the caps, dead letters past their own cap, oldest first', async () => {
      await setUp({ webhooks: { maxAttempts: 1, logCapPerChannel: 10, logCapTotal: 15, deadLetterCap: 20 } });
      const r = await startWebhookReceiver();
      const live = (await createChannel(r.url)).body.id as string;
      const dead = (await createChannel(await closedPortUrl())).body.id as string;
      for (let i = 0; i < 25; i++) h.events.publish({ topic: 'ADDRESS', type: 'CREATED', accountId: account.accountId, payload: { i } as unknown as PayloadOf<'ADDRESS'> });
      await driveDeliveries(h, () => h.webhooks.deliveries({ limit: 1 }).counts.PENDING + h.webhooks.deliveries({ limit: 1 }).counts.IN_FLIGHT === 0 && allFinished(), 20_000);

      const page = (await h.http.get('/__admin/deliveries?limit=1000')).body;
      expect(page.counts).toMatchObject({ DELIVERED: 10, FAILED: 20 });
      expect(page).toMatchObject({ evicted: 15, deadLettersEvicted: 5 });
      const kept = h.webhooks.deliveries({ channelId: dead, limit: 100 }).items.map((d) => (d.event.payload as { i: number }).i);
      expect(kept.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 5));
      expect(h.webhooks.deliveries({ channelId: live, limit: 100 }).items).toHaveLength(10);
    });
  });

  it('a background timer that throws is caught, the others still fire, and GET /__admin/clock shows it', async () => {
    await setUp();
    const fired: string[] = [];
    harnessInternals(h).runtime.clock.setTimer(h.clock.epochMs() + 1_000, () => {
      throw new Error('tracker step broke');
    });
    harnessInternals(h).runtime.clock.setTimer(h.clock.epochMs() + 2_000, () => fired.push('later'));
    const advanced = await h.http.post('/__admin/clock/advance').send({ duration: 'PT1M' });
    expect(advanced.status).toBe(200);
    expect(fired).toEqual(['later']);
    const clock = await h.http.get('/__admin/clock');
    expect(clock.body.timerFailures).toEqual({ count: 1, last: { at: '2026-01-01T00:01:00.000Z', error: 'tracker step broke' } });
    expect(escaped).toEqual([]);
  });
});
