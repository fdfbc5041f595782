import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCompiledContract } from './compiled-contract.js';
import { createValidators } from './validators.js';

/** A tiny contract, so compiling it takes milliseconds. */
function contract(version: string) {
  return {
    openapi: '3.1.0',
    info: { title: 't', version },
    paths: {
      '/things': {
        post: {
          operationId: 'createThing',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string' } } } } } },
          responses: { '204': { description: 'ok' } },
        },
      },
    },
    components: { schemas: {} },
  };
}

describe('compiled contract cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-cache-test-'));
  process.env.SHIPMOCK_CACHE_DIR = dir;
  afterAll(() => {
    delete process.env.SHIPMOCK_CACHE_DIR;
    rmSync(dir, { recursive: true, force: true });
  });

  it('compiles on a miss, then serves the same validators from the cache', () => {
    const first = loadCompiledContract(contract('1'));
    expect(first.source).toBe('compiled');
    const second = loadCompiledContract(contract('1'));
    expect(second.source).toBe('cache');
    const body = createValidators(second.contract, second.schemas).forOperation('createThing').body!;
    expect(body({ name: 'x' })).toEqual([]);
    expect(body({})).toEqual([{ field: 'body/name', message: 'is required' }]);
  });

  it('keys the cache by content: an edited contract compiles again', () => {
    expect(loadCompiledContract(contract('2')).source).toBe('compiled');
  });

  it('keeps only the most recent entries', () => {
    for (let i = 0; i < 12; i++) loadCompiledContract(contract(`prune-${i}`));
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(8);
  });
});
