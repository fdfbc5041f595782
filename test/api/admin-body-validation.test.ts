import { describe, expect, it } from 'vitest';
import { loadAdminContract } from '../../src/admin/admin-contract.js';
import type { ContractOperation, JsonSchema } from '../../src/contract/load-contract.js';
import { createHarness, newAccount } from '../support/harness.js';

/**
 * Issue 23: "every control-plane operation validates its body against admin.yaml (no route
 * ignores its schema)". Driven by the contract: every operation of contract/admin.yaml is sent
 * a body its schema refuses — an extra property on a valid body and a body of the wrong type
 * where it declares one, any body where it declares none — and must answer 400 naming the field
 * without changing the state. A route added later is covered without touching this file.
 */
const admin = loadAdminContract();
const { document } = admin.gate.contract;
const operations = admin.gate.contract.operations;

/** The node a JSON pointer into admin.yaml names, $refs followed. */
function resolve(pointer: string): JsonSchema {
  let node: any = document;
  for (const part of pointer.replace(/^#?\//, '').split('/')) node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node.$ref ? resolve(node.$ref) : node;
}

function concretePath(operation: ContractOperation): string {
  return operation.path.replace(/\{delivery-id\}/g, '00000000-0000-4000-8000-000000000000').replace(/\{[^}]+\}/g, 'no-such-thing');
}

/** The operation's own JSON example, if admin.yaml gives one. */
function exampleOf(operation: ContractOperation): unknown {
  const media = document.paths[operation.path][operation.method.toLowerCase()].requestBody?.content?.['application/json'];
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values<{ value?: unknown }>(media.examples ?? {})[0];
  return first?.value;
}

/** A JSON value of a type the schema does not allow. */
function wrongTypeFor(schema: JsonSchema): unknown {
  switch (schema.type) {
    case 'object':
      return ['not', 'an', 'object'];
    case 'array':
      return { not: 'an array' };
    default:
      return { not: 'a scalar' };
  }
}

describe('every control-plane body is held to admin.yaml', () => {
  const withBody = operations.filter((op) => op.requestBody?.schemaPointer);
  const withoutBody = operations.filter((op) => !op.requestBody);

  it('covers the operations of admin.yaml', () => {
    expect(withBody.map((op) => op.operationId)).toEqual(expect.arrayContaining(['createAdminToken', 'resetMock', 'importState', 'activateScenario']));
    expect(withoutBody.map((op) => op.operationId)).toEqual(expect.arrayContaining(['redeliverDelivery', 'getHealth']));
  });

  it.each(withBody.map((op) => [op.operationId, op] as const))('%s: an extra property and a wrong type are 400, nothing changes', async (_id, operation) => {
    const h = createHarness();
    await newAccount(h);
    const state = async () => {
      const res = await h.http.get('/__admin/state');
      expect(res.status).toBe(200);
      return res.body;
    };
    const before = await state();
    const schema = resolve(operation.requestBody!.schemaPointer!);
    // Closed bodies are what makes "an extra property" a mistake; a new open one fails here.
    expect(schema.additionalProperties === false || schema.unevaluatedProperties === false).toBe(true);
    const valid = exampleOf(operation) ?? (operation.operationId === 'importState' ? before : undefined);
    expect(valid, `${operation.operationId} needs a JSON example in admin.yaml`).toBeTypeOf('object');
    const send = (body: unknown) => h.http[operation.method.toLowerCase() as 'post'](concretePath(operation)).set('Content-Type', 'application/json').send(JSON.stringify(body));

    const extra = await send({ ...(valid as object), shipmockExtra: true });
    expect(extra.status).toBe(400);
    expect(extra.body).toMatchObject({ type: 'https://shipmock.dev/problems/validation-error', status: 400 });
    expect(extra.body.properties.violations).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'body/shipmockExtra', message: 'is not allowed' })]));

    const wrong = await send(wrongTypeFor(schema));
    expect(wrong.status).toBe(400);
    expect(wrong.body.properties.violations).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'body' })]));

    expect(await state()).toEqual(before);
  });

  it.each(withoutBody.map((op) => [op.operationId, op] as const))('%s: declares no body, so a body is 400, nothing changes', async (_id, operation) => {
    const h = createHarness();
    await newAccount(h);
    const before = (await h.http.get('/__admin/state')).body;
    const res = await h.http[operation.method.toLowerCase() as 'post'](concretePath(operation)).set('Content-Type', 'application/json').send('{"level":"ADMIN"}');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'https://shipmock.dev/problems/validation-error' });
    expect(res.body.properties.violations).toEqual([{ field: 'body', message: expect.stringContaining('takes no body') }]);
    expect((await h.http.get('/__admin/state')).body).toEqual(before);
  });

  it('POST /__admin/tokens still mints with { level: ADMIN } or no body, and names a wrong level', async () => {
    const h = createHarness();
    expect((await h.http.post('/__admin/tokens').send({ level: 'ADMIN' })).status).toBe(200);
    expect((await h.http.post('/__admin/tokens').set('X-Shipmock-Admin', '1')).status).toBe(200);
    const company = await h.http.post('/__admin/tokens').send({ level: 'COMPANY' });
    expect(company.status).toBe(400);
    expect(company.body.properties.violations).toEqual([expect.objectContaining({ field: 'body/level' })]);
  });
});
