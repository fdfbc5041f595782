import { describe, expect, it } from 'vitest';
import { createHarness, newAccount, type Harness } from '../support/harness.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Issue 23: "a web page the developer visits cannot make the mock send requests into their
 * network". The API answers CORS for pages of this machine and --cors-origin ones only (`*`
 * restores the open API); other pages get the mock's own origin, so the browser withholds the
 * answer and fails every preflight a token needs. Beneath that, a channel a page --cors-origin
 * does not name asks for may not target this machine or a private network unless
 * --webhook-hosts allows it; curl, SDK and test callers (no Origin) keep local receivers.
 */
const HOST = 'localhost:4010';
const OWN = `http://${HOST}`;

const LOOPBACK_ORIGINS = ['http://localhost:3000', 'https://localhost', 'http://app.localhost:5173', 'http://127.0.0.1:8080', 'http://127.1.2.3', 'http://[::1]:3000'];
const FOREIGN_ORIGINS = ['https://evil.example', 'http://192.168.1.10:3000', 'null', 'http://localhost.evil.example', 'http://127.0.0.1.nip.io', 'file://', 'http://10.0.0.1'];

async function addressesFrom(h: Harness, auth: string, origin?: string) {
  const req = h.http.get('/v1/addresses').set('Host', HOST).set('Authorization', auth);
  return origin === undefined ? req : req.set('Origin', origin);
}

async function preflightFrom(h: Harness, origin: string) {
  return h.http
    .options('/v1/event-channels')
    .set('Host', HOST)
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST')
    .set('Access-Control-Request-Headers', 'authorization,content-type');
}

describe('CORS: which pages may use the API', () => {
  it('answers callers without an Origin (curl, SDKs) with *', async () => {
    const h = createHarness();
    const { auth } = await newAccount(h);
    const res = await addressesFrom(h, auth);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers.vary).toBe('Origin');
  });

  it.each(LOOPBACK_ORIGINS)('allows a page of this machine (%s): its origin comes back, preflight too', async (origin) => {
    const h = createHarness();
    const { auth } = await newAccount(h);
    expect((await addressesFrom(h, auth, origin)).headers['access-control-allow-origin']).toBe(origin);
    const preflight = await preflightFrom(h, origin);
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
  });

  it.each(FOREIGN_ORIGINS)('does not allow %s: it gets the mock own origin (answer withheld by the browser), preflight too', async (origin) => {
    const h = createHarness();
    const { auth } = await newAccount(h);
    const res = await addressesFrom(h, auth, origin);
    expect(res.headers['access-control-allow-origin']).toBe(OWN);
    expect(res.headers.vary).toBe('Origin');
    const preflight = await preflightFrom(h, origin);
    expect(preflight.headers['access-control-allow-origin']).toBe(OWN);
  });

  it('--cors-origin (corsOrigins) names more pages; the others stay out', async () => {
    const h = createHarness({ corsOrigins: ['https://App.Example:443/'] });
    const { auth } = await newAccount(h);
    expect((await addressesFrom(h, auth, 'https://app.example')).headers['access-control-allow-origin']).toBe('https://app.example');
    expect((await addressesFrom(h, auth, 'http://localhost:3000')).headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect((await addressesFrom(h, auth, 'https://evil.example')).headers['access-control-allow-origin']).toBe(OWN);
  });

  it("--cors-origin '*' opens the API to every page, as before", async () => {
    const h = createHarness({ corsOrigins: ['*'] });
    const { auth } = await newAccount(h);
    expect((await addressesFrom(h, auth, 'https://evil.example')).headers['access-control-allow-origin']).toBe('*');
    expect((await preflightFrom(h, 'https://evil.example')).headers['access-control-allow-origin']).toBe('*');
  });

  it.each(['evil.example', 'https://app.example/path', 'ftp://app.example', 'null'])('refuses the --cors-origin value %j at start, naming it', (value) => {
    expect(() => createHarness({ corsOrigins: [value] })).toThrow(new RegExp(`cors origin "${value.replace(/[/.]/g, '\\$&')}"`));
  });
});

describe('a channel a foreign page asks for may not reach into the network', () => {
  const channel = (url: string) => ({ name: 'hooks', topics: ['ADDRESS'], webhook: { url } });
  const PRIVATE = ['http://192.168.1.1/hook', 'http://10.0.0.8:6379/', 'http://169.254.169.254/latest/meta-data', 'http://[fd00::1]/', 'http://localhost:9000/hook', 'http://[::ffff:172.16.0.1]/'];

  it.each(PRIVATE)('refuses %s from a page --cors-origin does not name, even with --cors-origin *; nothing stored', async (url) => {
    const h = createHarness({ corsOrigins: ['*'] });
    const { auth } = await newAccount(h);
    const res = await h.http.post('/v1/event-channels').set('Authorization', auth).set('Origin', 'https://evil.example').send(channel(url));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'https://shipmock.dev/problems/rule-violation' });
    expect(res.body.properties.violations).toEqual([{ field: 'body/webhook/url', message: expect.stringContaining('https://evil.example') }]);
    expect((await h.http.get('/v1/event-channels').set('Authorization', auth)).body.items).toEqual([]);
  });

  it('refuses a local receiver for a foreign page (Origin, or Sec-Fetch-Site without one), at create and replace; no-Origin callers and local pages keep it', async () => {
    const h = createHarness({ corsOrigins: ['*'] });
    const { auth } = await newAccount(h);
    const receiver = await startWebhookReceiver();
    const create = (headers: Record<string, string>) => h.http.post('/v1/event-channels').set('Authorization', auth).set(headers).send(channel(receiver.url));
    expect((await create({ Origin: 'https://evil.example' })).status).toBe(400);
    expect((await create({ 'Sec-Fetch-Site': 'cross-site' })).status).toBe(400);
    const fromTool = await create({});
    expect(fromTool.status).toBe(201);
    expect((await create({ Origin: 'http://localhost:3000' })).status).toBe(201);
    const replaced = await h.http.put(`/v1/event-channels/${fromTool.body.id}`).set('Authorization', auth).set('Origin', 'https://evil.example').send(channel(receiver.url));
    expect(replaced.status).toBe(400);

    // The tool's channel delivers to the local receiver with no flag.
    await h.http.post('/v1/addresses').set('Authorization', auth).send({ name: 'Erika', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' });
    const hits = await receiver.waitFor((r) => r.body?.topic === 'ADDRESS', { count: 2 });
    expect(hits).toHaveLength(2);
  });

  it('lets a named --cors-origin page, or a host --webhook-hosts allows, reach a private target', async () => {
    const named = createHarness({ corsOrigins: ['https://app.example'] });
    const a = await newAccount(named);
    expect((await named.http.post('/v1/event-channels').set('Authorization', a.auth).set('Origin', 'https://app.example').send(channel('http://192.168.1.1/hook'))).status).toBe(201);

    const listed = createHarness({ webhooks: { allowedHosts: ['192.168.1.1'] } });
    const b = await newAccount(listed);
    expect((await listed.http.post('/v1/event-channels').set('Authorization', b.auth).set('Origin', 'https://evil.example').send(channel('http://192.168.1.1/hook'))).status).toBe(201);
    // Public targets were never the concern: any page may aim a channel at one.
    expect((await named.http.post('/v1/event-channels').set('Authorization', a.auth).set('Origin', 'https://evil.example').send(channel('https://hooks.example.com/hook'))).status).toBe(201);
  });

  it("re-checks a foreign page's channel at each attempt: a target that became private (imported state) fails PRIVATE_TARGET_REFUSED, nothing sent", async () => {
    const h = createHarness({ corsOrigins: ['*'], webhooks: { maxAttempts: 1 } });
    const { auth } = await newAccount(h);
    const receiver = await startWebhookReceiver();
    const made = await h.http.post('/v1/event-channels').set('Authorization', auth).set('Origin', 'https://evil.example').send(channel('https://hooks.example.com/hook'));
    expect(made.status).toBe(201);
    const exported = await h.http.get('/__admin/state');
    const planted = JSON.parse(JSON.stringify(exported.body).split('https://hooks.example.com/hook').join(receiver.url));
    expect((await h.http.put('/__admin/state').send(planted)).status).toBe(204);
    await h.http.post('/v1/addresses').set('Authorization', auth).send({ name: 'Erika', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' });
    const deadline = Date.now() + 10_000;
    let items: any[] = [];
    while (!(items.length && items.every((d) => d.status === 'FAILED'))) {
      if (Date.now() > deadline) throw new Error(`delivery not failed: ${JSON.stringify(items)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      items = (await h.http.get('/__admin/deliveries')).body.items;
    }
    expect(items[0].attempts).toEqual([expect.objectContaining({ url: receiver.url, errorCode: 'PRIVATE_TARGET_REFUSED', error: expect.stringContaining('https://evil.example') })]);
    expect(receiver.received).toEqual([]);
  });
});
