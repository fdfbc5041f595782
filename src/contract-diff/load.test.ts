import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDocumentSet, parseSource } from './load.js';
import { refTarget } from './resolve.js';

describe('contract inputs', () => {
  it('parses files, URLs (a base URL means the served /openapi.json) and git revisions', () => {
    expect(parseSource('api.yaml', '/repo')).toEqual({ kind: 'file', path: '/repo/api.yaml' });
    expect(parseSource('http://127.0.0.1:4010')).toEqual({ kind: 'url', url: 'http://127.0.0.1:4010/openapi.json' });
    expect(parseSource('http://127.0.0.1:4010/openapi.yaml')).toEqual({ kind: 'url', url: 'http://127.0.0.1:4010/openapi.yaml' });
    expect(parseSource('git:HEAD~1:contract/openapi.yaml', '/repo')).toEqual({ kind: 'git', rev: 'HEAD~1', path: 'contract/openapi.yaml', cwd: '/repo' });
    expect(() => parseSource('git:HEAD')).toThrow(/git:REV:PATH/);
  });

  it('reads every file the $refs reach, relative to the file that holds them, and keeps unquoted dates and NO as strings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'load-'));
    mkdirSync(join(dir, 'schemas'));
    writeFileSync(join(dir, 'openapi.yaml'), 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths: {}\ncomponents:\n  schemas:\n    A: {$ref: "schemas/a.yaml"}\n');
    writeFileSync(join(dir, 'schemas/a.yaml'), 'type: object\nproperties:\n  b: {$ref: "./b.json#/B"}\nexamples:\n  - at: 2026-01-15T09:30:00.000Z\n    country: NO\n');
    writeFileSync(join(dir, 'schemas/b.json'), '{"B": {"type": "string"}}');
    const set = await loadDocumentSet('openapi.yaml', 'old', dir);
    expect([...set.documents.keys()].map((id) => set.nameOf(id)).sort()).toEqual(['', 'schemas/a.yaml', 'schemas/b.json']);
    const a = refTarget(set, set.root, 'schemas/a.yaml');
    expect((a.node as { examples: unknown[] }).examples).toEqual([{ at: '2026-01-15T09:30:00.000Z', country: 'NO' }]);
    expect(refTarget(set, a.doc, './b.json#/B').node).toEqual({ type: 'string' });
    expect(() => refTarget(set, a.doc, './b.json#/C')).toThrow(/dangling \$ref \.\/b\.json#\/C in schemas\/a\.yaml/);
  });

  it('says which side and file cannot be read or is no OpenAPI document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'load-'));
    writeFileSync(join(dir, 'swagger.yaml'), 'swagger: "2.0"\n');
    writeFileSync(join(dir, 'broken.yaml'), 'openapi: [3.1\n');
    await expect(loadDocumentSet('nope.yaml', 'old', dir)).rejects.toThrow(/^cannot read the old contract .*nope\.yaml: no such file$/);
    await expect(loadDocumentSet('swagger.yaml', 'new', dir)).rejects.toThrow(/^the new contract swagger\.yaml is not an OpenAPI 3\.1 \(or 3\.0\) document \(no openapi field\)$/);
    await expect(loadDocumentSet('broken.yaml', 'new', dir)).rejects.toThrow(/^the new contract .*broken\.yaml is neither YAML nor JSON/);
  });
});
