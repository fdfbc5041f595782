import { expect, it } from 'vitest';

/**
 * One conformance suite, run against every way of starting shipmock (in-process startMock and
 * the CLI), so the two can never drift apart. `target()` returns the running server's base URL
 * and the default company's credentials.
 */
export interface ConformanceTarget {
  url: string;
  companyId: string;
  clientId: string;
  clientSecret: string;
}

export function defineConformanceSuite(target: () => ConformanceTarget): void {
  const basic = () => `Basic ${Buffer.from(`${target().clientId}:${target().clientSecret}`).toString('base64')}`;
  const post = (path: string, auth: string, body: unknown) =>
    fetch(`${target().url}${path}`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  it('answers health', async () => {
    const res = await fetch(`${target().url}/__admin/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers an unknown path with a 404 problem and CORS', async () => {
    const res = await fetch(`${target().url}/v1/unknown`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('runs the token dance and stores an address per account', async () => {
    const company = await post(`/v1/companies/${target().companyId}/tokens`, basic(), { grantType: 'client_credentials' });
    expect(company.status).toBe(200);
    const companyAuth = `Bearer ${(await company.json()).accessToken}`;
    const account = await post('/v1/accounts', companyAuth, {
      company: { name: 'Muster GmbH', vatNumber: 'DE1', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
      contact: { name: 'Erika', email: 'erika@example.com', phone: '+49301234567' },
    });
    expect(account.status).toBe(201);
    const { id: accountId } = await account.json();
    const token = await post(`/v1/accounts/${accountId}/tokens`, basic(), { grantType: 'client_credentials' });
    const accountAuth = `Bearer ${(await token.json()).accessToken}`;
    const created = await post('/v1/addresses', accountAuth, { name: 'E', street: 'S 1', city: 'Berlin', postalCode: '10115', countryCode: 'DE' });
    expect(created.status).toBe(201);
    const { id } = await created.json();
    const read = await fetch(`${target().url}/v1/addresses/${id}`, { headers: { Authorization: accountAuth } });
    expect(read.status).toBe(200);
    expect((await read.json()).city).toBe('Berlin');
    expect(read.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it('rejects an invalid body with violations', async () => {
    const company = await post(`/v1/companies/${target().companyId}/tokens`, basic(), { grantType: 'password' });
    expect(company.status).toBe(400);
  });
}
