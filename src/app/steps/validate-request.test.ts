import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCompiledContract } from '../../contract/compiled-contract.js';
import { createContractGate } from '../../contract/gate.js';
import { createRouteMatcher } from '../../contract/route-matcher.js';
import { createValidators } from '../../contract/validators.js';
import { ProblemError } from '../../errors/problem.js';
import { pipeline } from '../../http/pipeline.js';
import { requestState } from '../../http/request-state.js';
import { createLogger } from '../../logging/logger.js';
import { requestId } from './request-id.js';
import { routeMatch } from './route-match.js';
import { validateRequest } from './validate-request.js';

/**
 * The step on a tiny node:http server behind request id and route match: a request it passes is
 * answered 200 with what it checked; one it refuses, with the problem's status, slug and violations.
 */
const { contract, schemas } = loadCompiledContract();
const gate = createContractGate({ contract, validators: createValidators(contract, schemas), routes: createRouteMatcher(contract.operations) });
const steps = pipeline([
  requestId({ logger: createLogger({ level: 'silent', format: 'json' }), now: () => 0 }),
  routeMatch({ gate }),
  validateRequest({ gate, bodyLimit: 1024 }),
  (req, res) => {
    const state = requestState(req);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ query: state.params?.query, body: state.body, checked: state.requestChecked }));
  },
]);
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) =>
    steps(req, res, (error) => {
      const problem = error instanceof ProblemError ? error : new ProblemError('internal-error');
      const state = requestState(req);
      res.writeHead(problem.status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ slug: problem.slug, violations: problem.init.violations, kept: state.requestViolations, checked: state.requestChecked }));
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const address = { name: 'Erika', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const post = (body: string, contentType = 'application/json') => fetch(`${base}/v1/addresses`, { method: 'POST', headers: { 'Content-Type': contentType }, body });

describe('validateRequest step', () => {
  it('reads and checks the body, then hands the checked body and parameters on', async () => {
    const res = await post(JSON.stringify(address));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ query: {}, body: address, checked: true });
  });

  it('applies the contract defaults to the query of a list operation', async () => {
    const res = await fetch(`${base}/v1/addresses?limit=3`);
    expect(res.status).toBe(200);
    expect((await res.json()).query).toMatchObject({ limit: 3, sort: expect.any(String) });
  });

  it('refuses a body breaking the schema with 400 naming every field, and keeps the violations for the journal', async () => {
    const res = await post(JSON.stringify({ ...address, city: undefined, countryCode: 'Germany' }));
    expect(res.status).toBe(400);
    const problem = await res.json();
    expect(problem.slug).toBe('validation-error');
    expect([...new Set(problem.violations.map((v: { field: string }) => v.field))].sort()).toEqual(['body/city', 'body/countryCode']);
    expect(problem.kept).toEqual(problem.violations);
    expect(problem.checked).toBe(false);
  });

  it('refuses a body over the limit with 413, malformed JSON with 400, another media type with 415', async () => {
    expect((await post(JSON.stringify({ ...address, name: 'x'.repeat(2000) }))).status).toBe(413);
    expect((await post('{"name":')).status).toBe(400);
    expect((await post('name=Erika', 'application/x-www-form-urlencoded')).status).toBe(415);
  });

  it('refuses a query parameter out of its bounds', async () => {
    const res = await fetch(`${base}/v1/addresses?limit=0`);
    expect(res.status).toBe(400);
    expect((await res.json()).violations).toEqual([expect.objectContaining({ field: 'query/limit' })]);
  });
});
