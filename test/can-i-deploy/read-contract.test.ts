import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readContract } from '../../src/can-i-deploy/read-contract.js';
import { DEFAULT_CONTRACT_PATH, parseYaml } from '../../src/contract/load-contract.js';

// can-i-deploy parses with js-yaml (speed); it must read a contract exactly as the mock does.
const dir = mkdtempSync(join(tmpdir(), 'shipmock-read-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readContract', () => {
  it('reads contract/openapi.yaml exactly as the mock loader does', () => {
    expect(readContract(DEFAULT_CONTRACT_PATH).document).toEqual(parseYaml(readFileSync(DEFAULT_CONTRACT_PATH, 'utf8')));
  });

  it('reads YAML 1.2 core: no timestamps, NO stays a string; JSON as JSON', () => {
    const yamlPath = join(dir, 'c.yaml');
    writeFileSync(yamlPath, 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\nx-when: 2026-01-15T09:30:00.000Z\nx-country: NO\npaths: {}\n');
    const document = readContract(yamlPath).document;
    expect(document['x-when']).toBe('2026-01-15T09:30:00.000Z');
    expect(document['x-country']).toBe('NO');
    expect(document).toEqual(parseYaml(readFileSync(yamlPath, 'utf8')));
    const jsonPath = join(dir, 'c.json');
    writeFileSync(jsonPath, JSON.stringify({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} }));
    expect(readContract(jsonPath).operations).toEqual([]);
  });

  it('refuses what is not an OpenAPI 3.1 document, naming why', () => {
    const path = join(dir, 'bad.yaml');
    writeFileSync(path, 'openapi: 3.0.3\npaths: {}\n');
    expect(() => readContract(path)).toThrow('OpenAPI 3.1');
    writeFileSync(path, 'a: [1,\n');
    expect(() => readContract(path)).toThrow(/bad\.yaml/);
  });
});
