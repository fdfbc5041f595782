import { describe, expect, it } from 'vitest';
import type { ContractOperation, HttpMethod } from './load-contract.js';
import { allowedMethodsOf, createRouteMatcher } from './route-matcher.js';

const op = (method: HttpMethod, path: string, operationId = `${method} ${path}`): ContractOperation => ({
  operationId,
  method,
  path,
  security: [],
  parameters: [],
  responses: new Map(),
  tags: [],
});

const routes = createRouteMatcher([
  op('get', '/v1/addresses', 'listAddresses'),
  op('post', '/v1/addresses', 'createAddress'),
  op('get', '/v1/addresses/{address-id}', 'getAddress'),
  op('delete', '/v1/addresses/{address-id}', 'deleteAddress'),
  op('get', '/v1/pudo-points/{pudo-point-id}', 'getPudoPoint'),
  op('post', '/v1/pudo-points/queries', 'queryPudoPoints'),
  op('get', '/v1/accounts/{account-id}/tokens/{token-id}', 'getToken'),
]);

const operationOf = (method: string, path: string) => {
  const match = routes.match(method, path);
  return match.kind === 'operation' ? { id: match.operation.operationId, params: match.pathParams } : match;
};

describe('route matcher', () => {
  it('matches literal paths and templates, with the path parameters', () => {
    expect(operationOf('GET', '/v1/addresses')).toEqual({ id: 'listAddresses', params: {} });
    expect(operationOf('POST', '/v1/addresses')).toEqual({ id: 'createAddress', params: {} });
    expect(operationOf('GET', '/v1/addresses/abc')).toEqual({ id: 'getAddress', params: { 'address-id': 'abc' } });
    expect(operationOf('GET', '/v1/accounts/a1/tokens/t1')).toEqual({ id: 'getToken', params: { 'account-id': 'a1', 'token-id': 't1' } });
  });

  it('prefers a literal segment over a parameter, and falls back to the parameter for other methods', () => {
    expect(operationOf('POST', '/v1/pudo-points/queries')).toEqual({ id: 'queryPudoPoints', params: {} });
    expect(operationOf('GET', '/v1/pudo-points/p1')).toEqual({ id: 'getPudoPoint', params: { 'pudo-point-id': 'p1' } });
    // A literal path whose method is not declared answers 405 with its own methods, not the template's.
    expect(routes.match('GET', '/v1/pudo-points/queries')).toEqual({ kind: 'method-not-allowed', allowed: ['POST'] });
  });

  it('answers 405 with the declared methods of a known path, and 404 for an unknown one', () => {
    expect(routes.match('PUT', '/v1/addresses/abc')).toEqual({ kind: 'method-not-allowed', allowed: ['GET', 'DELETE'] });
    expect(routes.match('GET', '/v1/nope')).toEqual({ kind: 'not-found' });
    expect(routes.match('GET', '/v1/addresses/abc/extra')).toEqual({ kind: 'not-found' });
    expect(routes.match('GET', '/')).toEqual({ kind: 'not-found' });
  });

  it('takes methods in any case and tolerates one trailing slash', () => {
    expect(operationOf('get', '/v1/addresses/')).toEqual({ id: 'listAddresses', params: {} });
    expect(routes.match('GET', '/v1/addresses//')).toEqual({ kind: 'not-found' });
  });

  it('does not let an empty segment fill a parameter', () => {
    expect(routes.match('GET', '/v1/accounts//tokens/t1')).toEqual({ kind: 'not-found' });
  });

  it('percent-decodes parameters, and leaves a broken escape as sent', () => {
    expect(operationOf('GET', '/v1/addresses/a%20b')).toEqual({ id: 'getAddress', params: { 'address-id': 'a b' } });
    expect(operationOf('GET', '/v1/addresses/%E0%A4%A')).toEqual({ id: 'getAddress', params: { 'address-id': '%E0%A4%A' } });
  });

  it('refuses a contract whose paths name one position differently', () => {
    expect(() => createRouteMatcher([op('get', '/v1/a/{x}'), op('delete', '/v1/a/{y}')])).toThrow('conflicting path parameters x and y at /v1/a/{y}');
  });

  it('tells the methods of a path for preflights, nothing for an unknown path', () => {
    expect(allowedMethodsOf(routes, '/v1/addresses')).toEqual(['GET', 'POST']);
    expect(allowedMethodsOf(routes, '/v1/nope')).toBeUndefined();
  });
});
