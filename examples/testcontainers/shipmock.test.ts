/**
 * shipmock under Testcontainers (Node): one container for the file, one account per test.
 *   npm install --save-dev testcontainers vitest
 * The same steps in Java and Python: README, "Run it as a container".
 * Here (CI) it runs against podman's Docker-compatible API: test/container/global-setup.ts builds
 * the image (SHIPMOCK_TEST_IMAGE) and sets DOCKER_HOST and TESTCONTAINERS_RYUK_DISABLED.
 */
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const IMAGE = process.env.SHIPMOCK_TEST_IMAGE ?? 'shipmock';
// A key of your choosing: the control plane (/__admin) answers only with it.
const ADMIN_KEY = 'testcontainers-admin-key';

describe.skipIf(process.env.SHIPMOCK_TEST_CONTAINER_SKIP)('shipmock in Testcontainers', () => {
  let container: StartedTestContainer;
  let baseUrl: string;

  beforeAll(async () => {
    container = await new GenericContainer(IMAGE)
      .withEnvironment({ SHIPMOCK_ADMIN_KEY: ADMIN_KEY, SHIPMOCK_CLOCK: 'manual' })
      .withExposedPorts(4010)
      .withWaitStrategy(Wait.forHttp('/__admin/health', 4010).forStatusCode(200))
      .start();
    baseUrl = `http://${container.getHost()}:${container.getMappedPort(4010)}`;
  }, 120_000);

  afterAll(async () => {
    await container?.stop();
  });

  async function post(path: string, body: unknown, headers: Record<string, string>) {
    const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  /** A company of its own (control plane), then an account and its token (the API's token dance). */
  async function newAccount(): Promise<{ accountId: string; auth: string }> {
    const company = await post('/__admin/companies', {}, { 'X-Admin-Key': ADMIN_KEY });
    const basic = `Basic ${Buffer.from(`${company.clientId}:${company.clientSecret}`).toString('base64')}`;
    const companyToken = await post(`/v1/companies/${company.companyId}/tokens`, { grantType: 'client_credentials' }, { Authorization: basic });
    const account = await post(
      '/v1/accounts',
      {
        company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
        contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
      },
      { Authorization: `Bearer ${companyToken.accessToken}` },
    );
    const accountToken = await post(`/v1/accounts/${account.id}/tokens`, { grantType: 'client_credentials' }, { Authorization: basic });
    return { accountId: account.id, auth: `Bearer ${accountToken.accessToken}` };
  }

  it('stores an address for one account', async () => {
    const { auth } = await newAccount();
    const address = await post('/v1/addresses', { name: 'Erika', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' }, { Authorization: auth });
    const read = await fetch(`${baseUrl}/v1/addresses/${address.id}`, { headers: { Authorization: auth } });
    expect(read.status).toBe(200);
    expect((await read.json()).city).toBe('Berlin');
  });

  it('keeps another test’s account apart', async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    expect(mine.accountId).not.toBe(theirs.accountId);
    const list = await fetch(`${baseUrl}/v1/addresses`, { headers: { Authorization: mine.auth } });
    expect((await list.json()).items).toEqual([]);
  });

  it('refuses the control plane without the key', async () => {
    const res = await fetch(`${baseUrl}/__admin/state/overview`);
    expect(res.status).toBe(401);
  });
});
