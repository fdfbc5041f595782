import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { diffContracts, diffInputs, type ContractChange } from '../../src/contract-diff/diff.js';

/** Mutations of the project's own contract: what a real edit looks like, and refactors that must report nothing. */
const root = new URL('../..', import.meta.url).pathname;
const base = yaml.load(readFileSync(`${root}contract/openapi.yaml`, 'utf8'), { schema: yaml.CORE_SCHEMA }) as Record<string, any>;
const mutated = (edit: (doc: Record<string, any>) => void) => {
  const doc = structuredClone(base);
  edit(doc);
  return doc;
};
const rulesOf = (changes: ContractChange[]) => [...new Set(changes.map((c) => c.rule))].sort();

describe('the real contract against mutations of itself', () => {
  it('finds nothing between the contract and a JSON round trip of it', () => {
    expect(diffContracts(base, JSON.parse(JSON.stringify(base))).changes).toEqual([]);
  });

  it('reports a renamed response property as removed (breaking) wherever the schema is read, and the new name as added', () => {
    const after = mutated((doc) => {
      const document = doc.components.schemas.Document;
      document.properties.mediaKind = document.properties.mediaType;
      delete document.properties.mediaType;
      document.required = document.required.map((name: string) => (name === 'mediaType' ? 'mediaKind' : name));
    });
    const { changes } = diffContracts(base, after);
    const removed = changes.filter((c) => c.rule === 'response-property-removed');
    expect(removed.length).toBeGreaterThan(0);
    expect(removed.every((c) => c.class === 'breaking' && c.location === 'response' && c.pointer.old === '#/components/schemas/Document/properties/mediaType')).toBe(true);
    expect(removed.map((c) => `${c.operation!.method} ${c.operation!.path}`)).toContain('GET /v1/documents/{document-id}');
    expect(removed.find((c) => c.operation!.path === '/v1/documents/{document-id}')).toMatchObject({ status: '200', schemaPath: 'mediaType' });
    expect(rulesOf(changes)).toEqual(['response-property-removed', 'response-property-added-closed'].sort());
  });

  it('reports a removed operation as breaking with its method and path', () => {
    const after = mutated((doc) => delete doc.paths['/v1/addresses/{address-id}'].delete);
    const { changes } = diffContracts(base, after);
    expect(changes).toEqual([expect.objectContaining({ rule: 'operation-removed', class: 'breaking', operation: { method: 'DELETE', path: '/v1/addresses/{address-id}' } })]);
  });

  it('reports a narrowed request enum as breaking, and the same enum widened in responses as may-break', () => {
    const enumHolder = Object.entries<any>(base.components.schemas).find(([, s]) => Array.isArray(s.enum) && s.enum.length > 2 && s.type === 'string')!;
    const [name, schema] = enumHolder;
    // EventTopic-like enums are sent (request bodies, query parameters) and read (responses, webhook payloads).
    const narrowed = diffContracts(base, mutated((doc) => (doc.components.schemas[name].enum = schema.enum.slice(1)))).changes;
    expect(narrowed.length).toBeGreaterThan(0);
    for (const c of narrowed) expect([c.rule, c.class]).toEqual(c.location === 'request' ? ['request-enum-narrowed', 'breaking'] : ['response-enum-narrowed', 'safe']);
    const widened = diffContracts(base, mutated((doc) => doc.components.schemas[name].enum.push('BRAND_NEW'))).changes;
    for (const c of widened) expect([c.rule, c.class]).toEqual(c.location === 'request' ? ['request-enum-widened', 'safe'] : ['response-enum-widened', 'may-break']);
    expect(new Set(widened.map((c) => c.location))).toEqual(new Set(['request', 'response', 'webhook']));
    expect(widened.length).toBeGreaterThan(0);
  });

  it('reports a new error status as may-break and a new required query parameter as breaking', () => {
    const after = mutated((doc) => {
      doc.paths['/v1/addresses'].get.responses['409'] = { description: 'conflict' };
      doc.paths['/v1/addresses'].get.parameters = [...(doc.paths['/v1/addresses'].get.parameters ?? []), { name: 'region', in: 'query', required: true, schema: { type: 'string', maxLength: 8 } }];
    });
    expect(diffContracts(base, after).changes.map((c) => [c.rule, c.class, c.status ?? c.where])).toEqual([
      ['request-parameter-added-required', 'breaking', 'query parameter region'],
      ['response-error-status-added', 'may-break', '409'],
    ]);
  });

  it('finds nothing when every component schema is inlined where it is referenced once, or wrapped in an allOf', () => {
    const after = mutated((doc) => {
      for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
        if (schema.type === 'object' && schema.properties && !schema.oneOf) doc.components.schemas[name] = { allOf: [{ type: 'object', properties: schema.properties }, { ...schema, properties: undefined }].map((part) => JSON.parse(JSON.stringify(part))) };
      }
    });
    expect(diffContracts(base, after).changes).toEqual([]);
  });

  it('finds nothing when a path parameter is declared at path level instead of operation level', () => {
    const path = Object.keys(base.paths).find((p) => p.includes('{') && Object.keys(base.paths[p]).filter((k) => ['get', 'put', 'delete', 'patch', 'post'].includes(k)).length > 1)!;
    const after = mutated((doc) => {
      const item = doc.paths[path];
      const methods = Object.keys(item).filter((k) => ['get', 'put', 'delete', 'patch', 'post'].includes(k));
      const shared = (item[methods[0]].parameters ?? []).filter((p: any) => p.in === 'path' || p.$ref);
      if (!shared.length) return;
      item.parameters = [...(item.parameters ?? []), ...shared];
    });
    expect(diffContracts(base, after).changes).toEqual([]);
  });
});

describe('recursive and multi-file contracts', () => {
  const recursive = (leafType: string) => ({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/trees': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } } } } } },
      '/nodes': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } } } },
    },
    components: {
      schemas: {
        Tree: { type: 'object', properties: { root: { $ref: '#/components/schemas/Node' }, label: { type: leafType } } },
        Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } }, tree: { $ref: '#/components/schemas/Tree' } } },
      },
    },
  });

  it('terminates on cycles and reports a change inside them from every operation that reaches it', () => {
    const { changes } = diffContracts(recursive('string'), recursive('integer'));
    expect(changes.map((c) => `${c.operation!.path} ${c.schemaPath}`).sort()).toEqual(['/nodes tree.label', '/trees label']);
    expect(changes.every((c) => c.rule === 'response-type-changed' && c.pointer.new === '#/components/schemas/Tree/properties/label/type')).toBe(true);
  });

  it('follows $refs into other files on both sides, and reports the file in the pointer', () => {
    const root = (schemaRef: string) => ({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: { '/a': { post: { requestBody: { required: true, content: { 'application/json': { schema: { $ref: schemaRef } } } }, responses: { '204': { description: 'ok' } } } } },
    });
    const common = (required: string[]) => ({ components: { schemas: { A: { type: 'object', properties: { x: { type: 'string' }, y: { $ref: '#/components/schemas/B' } }, required }, B: { type: 'string' } } } });
    const report = diffContracts(root('schemas/common.yaml#/components/schemas/A'), root('schemas/common.yaml#/components/schemas/A'), {
      oldFiles: { 'schemas/common.yaml': common([]) },
      newFiles: { 'schemas/common.yaml': common(['x']) },
    });
    expect(report.changes).toEqual([expect.objectContaining({ rule: 'request-property-became-required', schemaPath: 'x', pointer: expect.objectContaining({ new: 'schemas/common.yaml#/components/schemas/A/required' }) })]);
  });

  it('refuses a dangling $ref with a message naming it', () => {
    const doc = recursive('string');
    (doc.components.schemas.Tree.properties as any).label = { $ref: '#/components/schemas/Missing' };
    expect(() => diffContracts(recursive('string'), doc)).toThrow(/dangling \$ref #\/components\/schemas\/Missing/);
  });
});

/**
 * The project's own history (issue 28): every commit that changed contract/openapi.yaml, diffed in
 * order, with what the gate should say — judged against each commit's message in
 * docs/contract-history.md. Skipped where the history is not there (a shallow clone).
 */
const HISTORY: [string, string, { breaking: number; 'may-break': number }, string[]][] = [
  ['4e25685', '8a74f81', { breaking: 0, 'may-break': 2 }, []],
  ['8a74f81', 'c462660', { breaking: 0, 'may-break': 0 }, []],
  ['c462660', 'e52848c', { breaking: 6, 'may-break': 4 }, ['request-format-narrowed', 'request-pattern-added', 'response-property-removed']],
  ['e52848c', '3a21798', { breaking: 2, 'may-break': 2 }, ['request-format-narrowed']],
  ['3a21798', '2d69613', { breaking: 2, 'may-break': 0 }, ['request-condition-added']],
  ['2d69613', '8c34cc2', { breaking: 0, 'may-break': 0 }, []],
  ['8c34cc2', 'cecd140', { breaking: 2, 'may-break': 0 }, ['response-property-removed']],
];
const hasHistory = (() => {
  try {
    execFileSync('git', ['cat-file', '-e', `${HISTORY[0][0]}:contract/openapi.yaml`], { cwd: root, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasHistory)("the project's contract history", () => {
  for (const [from, to, counts, breakingRules] of HISTORY) {
    it(`${from} → ${to}: ${counts.breaking} breaking (${breakingRules.join(', ') || 'none'}), ${counts['may-break']} may-break`, async () => {
      const report = await diffInputs(`git:${from}:contract/openapi.yaml`, `git:${to}:contract/openapi.yaml`, { cwd: root });
      expect({ breaking: report.summary.breaking, 'may-break': report.summary['may-break'] }).toEqual(counts);
      expect(rulesOf(report.changes.filter((c) => c.class === 'breaking'))).toEqual([...breakingRules].sort());
    }, 60_000);
  }
});
