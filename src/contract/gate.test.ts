import { describe, expect, it } from 'vitest';
import { ProblemError } from '../errors/problem.js';
import { loadCompiledContract } from './compiled-contract.js';
import { createContractGate, violationsHeaderValue } from './gate.js';
import { createRouteMatcher } from './route-matcher.js';
import { createValidators } from './validators.js';

const { contract, schemas } = loadCompiledContract();
const gate = createContractGate({ contract, validators: createValidators(contract, schemas), routes: createRouteMatcher(contract.operations) });
const createAddress = contract.byId.get('createAddress')!;
const issueCompanyToken = contract.byId.get('issueCompanyToken')!;
const json = { 'content-type': 'application/json' };
const address = { name: 'Erika', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const input = (body: unknown, headers: Record<string, string> = json) => ({
  pathParams: {},
  query: {},
  headers,
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});

describe('contract gate: routes', () => {
  it('finds the operation and its path parameters', () => {
    const match = gate.route('GET', '/v1/addresses/9c5f70b8-3d0e-4bde-9e87-1f2a3b4c5d67');
    expect(match.operation.operationId).toBe('getAddress');
    expect(match.pathParams).toEqual({ 'address-id': '9c5f70b8-3d0e-4bde-9e87-1f2a3b4c5d67' });
  });

  it('refuses an unknown path with 404 and an undeclared method with 405 naming the allowed ones', () => {
    expect(() => gate.route('GET', '/v1/nope')).toThrow(expect.objectContaining({ slug: 'route-not-found' }));
    try {
      gate.route('PATCH', '/v1/addresses');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ProblemError);
      expect((error as ProblemError).init.headers?.Allow).toMatch(/GET.*POST|POST.*GET/);
    }
  });
});

describe('contract gate: requests', () => {
  it('passes a conforming body through, parsed', () => {
    const checked = gate.checkRequest(createAddress, input(address));
    expect(checked.violations).toEqual([]);
    expect(checked.body).toEqual(address);
    expect(gate.requestProblem(checked)).toBeUndefined();
  });

  it('takes an email address as RFC 5321 (and format: email) allow it, a dotless domain too', () => {
    expect(gate.checkRequest(createAddress, input({ ...address, email: 'a@com' })).violations).toEqual([]);
    expect(gate.checkRequest(createAddress, input({ ...address, email: 'not-an-email' })).violations).toEqual([{ field: 'body/email', message: 'must be a valid email' }]);
  });

  it('names every failing field and answers validation-error', () => {
    const checked = gate.checkRequest(createAddress, input({ name: 'Erika', countryCode: 'de' }));
    expect(checked.violations).toEqual(expect.arrayContaining([{ field: 'body/street', message: 'is required' }]));
    const problem = gate.requestProblem(checked)!;
    expect(problem.slug).toBe('validation-error');
    expect(problem.init.violations).toEqual(checked.violations);
  });

  it('refuses a body that is not JSON as malformed-json, and one of another media type as 415', () => {
    const malformed = gate.checkRequest(createAddress, input('{"name":'));
    expect(malformed.refusal?.kind).toBe('unreadable-body');
    expect(gate.requestProblem(malformed)?.slug).toBe('malformed-json');

    const text = gate.checkRequest(createAddress, input('name=Erika', { 'content-type': 'text/plain' }));
    expect(text.violations).toEqual([{ field: 'header/content-type', message: 'must be application/json (got text/plain)' }]);
    const problem = gate.requestProblem(text)!;
    expect(problem.slug).toBe('unsupported-media-type');
    expect(problem.init.detail).toBe('Send the body as application/json (got text/plain)');
  });

  it('requires a required body, and answers a wrong grant type with invalid-grant', () => {
    expect(gate.checkRequest(createAddress, input('')).violations).toEqual([{ field: 'body', message: 'is required' }]);
    const token = { ...input({ grantType: 'password' }), pathParams: { 'company-id': '9c5f70b8-3d0e-4bde-9e87-1f2a3b4c5d67' } };
    expect(gate.requestProblem(gate.checkRequest(issueCompanyToken, token))?.slug).toBe('invalid-grant');
  });

  it('normalizes input before checking it when asked to', () => {
    const checked = gate.checkRequest(createAddress, input({ ...address, countryCode: 'de' }), {
      normalize: (_id, part, value) => (part === 'body' ? { ...(value as object), countryCode: 'DE' } : value),
    });
    expect(checked.violations).toEqual([]);
  });

  it('holds JSON bodies to the shape limits it is given', () => {
    const deep = '['.repeat(40) + ']'.repeat(40);
    expect(gate.checkRequest(createAddress, input(deep)).refusal?.kind).toBe('unreadable-body');
    expect(gate.checkRequest(createAddress, input(deep), { jsonLimits: { depth: 64 } }).refusal).toBeUndefined();
  });
});

describe('contract gate: answers', () => {
  it('accepts a declared answer, names a wrong field, and says when a status is not declared at all', () => {
    expect(gate.checkAnswer('createAddress', { status: 201, mediaType: 'application/json', body: { id: '9c5f70b8-3d0e-4bde-9e87-1f2a3b4c5d67' } })).toEqual({ violations: [], undeclared: false });
    const wrong = gate.checkAnswer('createAddress', { status: 201, mediaType: 'application/json', body: { id: 'x', extra: 1 } });
    expect(wrong.undeclared).toBe(false);
    expect(wrong.violations.map((v) => v.field)).toContain('body/extra');
    expect(gate.checkAnswer('createAddress', { status: 200, mediaType: 'application/json', body: {} })).toEqual({
      violations: [{ field: 'status', message: '200 application/json is not declared for createAddress' }],
      undeclared: true,
    });
  });
});

describe('violationsHeaderValue', () => {
  it('is one line of visible ASCII that stays valid JSON, cut at 4 KiB', () => {
    const value = violationsHeaderValue([{ field: 'body/name', message: 'must not contain ✓\n' }]);
    expect(value).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(value)).toEqual([{ field: 'body/name', message: 'must not contain ✓\n' }]);
    const long = violationsHeaderValue(Array.from({ length: 500 }, (_, i) => ({ field: `body/f${i}`, message: 'is required' })));
    expect(long.length).toBe(4096);
    expect(long.endsWith('...')).toBe(true);
  });
});
