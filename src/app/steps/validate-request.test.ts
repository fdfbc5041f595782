import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadCompiledContract } from '../../contract/compiled-contract.js';
import { createContractGate, type ContractGate } from '../../contract/gate.js';
import { createRouteMatcher } from '../../contract/route-matcher.js';
import { createValidators } from '../../contract/validators.js';
import { ProblemError } from '../../errors/problem.js';
import { pipeline } from '../../http/pipeline.js';
import { readBody } from '../../http/read-request.js';
import type { Step } from '../../http/types.js';
import { initRequestState, requestState } from '../../http/request-state.js';
import { createLogger } from '../../logging/logger.js';
import { requestId } from './request-id.js';
import { routeMatch } from './route-match.js';
import { precheckRequest, validateRequest } from './validate-request.js';

/**
 * The step on a tiny node:http server behind request id and route match: a request it passes is
 * answered 200 with what it checked; one it refuses, with the problem's status, slug and
 * violations. Twice: as the step alone, and as a store that locks per account runs it (the
 * unit of work reads a declared body within the limit off the wire and checks the request with
 * precheckRequest before the unit starts; the step then uses that check). Every case below must
 * answer the same either way, and the contract is asked once per request.
 */
const { contract, schemas } = loadCompiledContract();
const contractGate = createContractGate({ contract, validators: createValidators(contract, schemas), routes: createRouteMatcher(contract.operations) });
let checks = 0;
const gate: ContractGate = {
  ...contractGate,
  checkRequest: (...args) => {
    checks++;
    return contractGate.checkRequest(...args);
  },
};
const BODY_LIMIT = 1024;
const precheck = precheckRequest({ gate });
const checkedBeforeTheUnit = new WeakSet<object>();
/** What unit-of-work.ts does before a unit on a store that locks per account. */
const beforeTheUnit: Step = (req, _res, next) => {
  const length = Number(req.headers['content-length']);
  const read = length > 0 && length <= BODY_LIMIT ? readBody(req, BODY_LIMIT) : Promise.resolve(undefined);
  read.then((body) => {
    requestState(req).preReadBody = body;
    precheck(req);
    if (requestState(req).prechecked) checkedBeforeTheUnit.add(req);
    next();
  }, next);
};
const stepsOf = (checkedBefore: boolean) =>
  pipeline([
    requestId({ logger: createLogger({ level: 'silent', format: 'json' }), now: () => 0 }),
    ...(checkedBefore ? [beforeTheUnit] : []),
    routeMatch({ gate }),
    validateRequest({ gate, bodyLimit: BODY_LIMIT }),
    (req, res) => {
      const state = requestState(req);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ query: state.params?.query, body: state.body, checked: state.requestChecked, checkedBefore: checkedBeforeTheUnit.has(req) }));
    },
  ]);
const servers: Server[] = [];
const bases: Record<'step' | 'before', string> = { step: '', before: '' };

beforeAll(async () => {
  for (const mode of ['step', 'before'] as const) {
    const steps = stepsOf(mode === 'before');
    const server = createServer((req, res) =>
      steps(req, res, (error) => {
        const problem = error instanceof ProblemError ? error : new ProblemError('internal-error');
        const state = requestState(req);
        res.writeHead(problem.status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ slug: problem.slug, violations: problem.init.violations, kept: state.requestViolations, checked: state.requestChecked }));
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    bases[mode] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
});
afterAll(() => Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))));
beforeEach(() => {
  checks = 0;
});

const address = { name: 'Erika', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
describe.each(['step', 'before'] as const)('validateRequest step (checked in the %s)', (mode) => {
  const base = () => bases[mode];
  const post = (body: string, contentType = 'application/json') => fetch(`${base()}/v1/addresses`, { method: 'POST', headers: { 'Content-Type': contentType }, body });

  it(mode === 'before' ? 'asks the contract once, before the unit: the step uses that check' : 'asks the contract in the step', async () => {
    const res = await post(JSON.stringify(address));
    expect(await res.json()).toMatchObject({ checked: true, checkedBefore: mode === 'before' });
    expect(checks).toBe(1);
  });

  if (mode === 'before') {
    it('uses the check made before the unit once: a request that runs again is checked again', async () => {
      const req = { headers: { 'content-type': 'application/json' } } as unknown as Parameters<typeof precheck>[0];
      initRequestState(req, { requestId: 'r', startedAt: 0, method: 'POST', url: '/v1/addresses', pathname: '/v1/addresses', search: new URLSearchParams(), preReadBody: Buffer.from(JSON.stringify(address)) });
      precheck(req);
      const step = validateRequest({ gate, bodyLimit: BODY_LIMIT });
      const run = async () => {
        requestState(req).operation = gate.route('POST', '/v1/addresses').operation;
        requestState(req).params = { path: {}, query: {}, headers: {} };
        await step(req, {} as never, () => {});
      };
      await run();
      await run();
      expect(checks).toBe(2);
    });
  }

  it('reads and checks the body, then hands the checked body and parameters on', async () => {
    const res = await post(JSON.stringify(address));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ query: {}, body: address, checked: true, checkedBefore: mode === 'before' });
  });

  it('applies the contract defaults to the query of a list operation', async () => {
    const res = await fetch(`${base()}/v1/addresses?limit=3`);
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
    const res = await fetch(`${base()}/v1/addresses?limit=0`);
    expect(res.status).toBe(400);
    expect((await res.json()).violations).toEqual([expect.objectContaining({ field: 'query/limit' })]);
  });
});
