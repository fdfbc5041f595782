import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../../src/server/start-mock.js';

/** The real `shipmock contract diff` (bin/shipmock.js → dist/, built before the tests). */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));

/** Runs the CLI without blocking this process (a mock served from here must keep answering). */
function shipmock(args: string[], cwd = root): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const contract = (schema: Record<string, unknown>, extraResponses: Record<string, unknown> = {}) => ({
  openapi: '3.1.0',
  info: { title: 'Things', version: '1.0.0' },
  paths: {
    '/things/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: { responses: { '200': { description: 'a thing', content: { 'application/json': { schema } } }, ...extraResponses } },
    },
  },
});
const thing = { type: 'object', required: ['id', 'status'], properties: { id: { type: 'string' }, status: { enum: ['OPEN', 'CLOSED'] } } };

let dir: string;
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : name.endsWith('.json') ? JSON.stringify(content) : yaml.dump(content));
  return path;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'shipmock-contract-diff-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('shipmock contract diff (real process)', () => {
  it('prints its usage with --help', async () => {
    const { code, stdout } = await shipmock(['contract', 'diff', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: shipmock contract diff OLD NEW/);
    expect(stdout).toContain('--fail-on');
  });

  it('exits 0 with nothing to report between a YAML file and the same contract in JSON', async () => {
    const { code, stdout } = await shipmock(['contract', 'diff', file('same.yaml', contract(thing)), file('same.json', contract(thing))]);
    expect(code).toBe(0);
    expect(stdout).toContain('0 breaking, 0 may break, 0 safe');
  });

  it('exits 1 on a breaking change and names it; --fail-on never exits 0 with the same report', async () => {
    const old = file('old.yaml', contract(thing));
    const next = file('breaking.yaml', contract({ ...thing, required: ['id'], properties: { id: { type: 'string' }, status: { enum: ['OPEN', 'CLOSED'] } } }));
    const failing = await shipmock(['contract', 'diff', old, next]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('[response-property-became-optional] property status may now be missing');
    expect(failing.stdout).toContain('GET /things/{id} · response 200 (application/json) › status');
    const never = await shipmock(['contract', 'diff', old, next, '--fail-on', 'never']);
    expect(never.code).toBe(0);
    expect(never.stdout).toBe(failing.stdout);
  });

  it('writes the documented JSON and a Markdown comment', async () => {
    const old = file('old.yaml', contract(thing));
    const next = file('enum.yaml', contract({ ...thing, properties: { ...thing.properties, status: { enum: ['OPEN', 'CLOSED', 'HELD'] } } }, { '409': { description: 'conflict' } }));
    const json = await shipmock(['contract', 'diff', old, next, '--format', 'json']);
    expect(json.code).toBe(0); // may-break only; the default --fail-on is breaking
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ formatVersion: 1, summary: { breaking: 0, 'may-break': 2, safe: 0 } });
    expect(report.changes).toEqual([
      { rule: 'response-enum-widened', class: 'may-break', ruleClass: 'may-break', reason: 'new value "HELD"', operation: { method: 'GET', path: '/things/{id}' }, location: 'response', status: '200', where: 'response 200 (application/json)', schemaPath: 'status', pointer: { old: '#/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/status', new: '#/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/status' } },
      { rule: 'response-error-status-added', class: 'may-break', ruleClass: 'may-break', reason: 'new response 409', operation: { method: 'GET', path: '/things/{id}' }, location: 'response', status: '409', where: 'response 409', pointer: { new: '#/paths/~1things~1{id}/get/responses/409' } },
    ]);
    const markdown = await shipmock(['contract', 'diff', old, next, '--format', 'markdown', '--fail-on', 'may-break']);
    expect(markdown.code).toBe(1);
    expect(markdown.stdout).toMatch(/^### Contract diff: \*\*changes that may break clients\*\*/);
    expect(markdown.stdout).toContain('| new value "HELD" | `GET /things/{id}` response 200 (application/json) › status | `response-enum-widened` |');
  });

  it('lowers a rule with --rules so --fail-on may-break passes, and says so in the report', async () => {
    const old = file('old.yaml', contract(thing));
    const next = file('enum-only.yaml', contract({ ...thing, properties: { ...thing.properties, status: { enum: ['OPEN', 'CLOSED', 'HELD'] } } }));
    const rules = file('rules.yaml', 'rules:\n  response-enum-widened: safe\n');
    const { code, stdout } = await shipmock(['contract', 'diff', old, next, '--fail-on', 'may-break', '--rules', rules]);
    expect(code).toBe(0);
    expect(stdout).toContain('0 breaking, 0 may break, 1 safe');
    expect(stdout).toContain('(may-break by default; set by the rules file)');
  });

  it('exits 2 with one clear line on bad usage, a bad rules file or an unreadable input', async () => {
    const old = file('old.yaml', contract(thing));
    const cases: [string[], RegExp][] = [
      [['contract', 'diff', old], /^shipmock: contract diff needs two contracts, OLD and NEW \(got 1\)/],
      [['contract', 'diff', old, old, '--format', 'html'], /^shipmock: --format must be text, json or markdown \(got html\)/],
      [['contract', 'diff', old, old, '--fail-on', 'sometimes'], /^shipmock: --fail-on must be breaking, may-break or never/],
      [['contract', 'diff', old, join(dir, 'missing.yaml')], /^shipmock: cannot read the new contract .*missing\.yaml: no such file/],
      [['contract', 'diff', old, file('not-openapi.yaml', { swagger: '2.0' })], /^shipmock: the new contract .* is not an OpenAPI 3\.1 \(or 3\.0\) document/],
      [['contract', 'diff', old, old, '--rules', file('typo.yaml', 'rules:\n  response-enum-widend: safe\n')], /^shipmock: --rules .*: unknown rule response-enum-widend \(did you mean response-enum-widened\?\)/],
      [['contract', 'diff', old, old, '--rules', file('class.yaml', '{"rules": {"response-enum-widened": "ignore"}}')], /must be breaking, may-break or safe \(got "ignore"\)/],
      [['contract', 'diff', 'git:no-such-rev:contract/openapi.yaml', old], /^shipmock: cannot read the old contract git:no-such-rev:contract\/openapi\.yaml: /],
      [['contract', 'frobnicate'], /^shipmock: unknown contract command frobnicate/],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = await shipmock(args);
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(stderr).toMatch(message);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stdout).toBe('');
    }
  });
});

describe('shipmock contract diff with git revisions', () => {
  it('reads git:REV:PATH and its $refs to other files from the same revision', async () => {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'api/schemas'), { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, stdio: 'pipe' });
    git('init', '-q');
    const root = { ...contract({ $ref: 'schemas/thing.yaml' }) };
    writeFileSync(join(repo, 'api/openapi.yaml'), yaml.dump(root));
    writeFileSync(join(repo, 'api/schemas/thing.yaml'), yaml.dump(thing));
    git('add', '.');
    git('commit', '-qm', 'one');
    writeFileSync(join(repo, 'api/schemas/thing.yaml'), yaml.dump({ ...thing, properties: { id: { type: 'integer' }, status: thing.properties.status } }));
    git('commit', '-qam', 'two');
    // The working copy has a third version: the git inputs must not read it.
    writeFileSync(join(repo, 'api/schemas/thing.yaml'), 'not: [yaml');
    const { code, stdout } = await shipmock(['contract', 'diff', 'git:HEAD~1:api/openapi.yaml', 'git:HEAD:api/openapi.yaml', '--format', 'json'], repo);
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.changes).toEqual([expect.objectContaining({ rule: 'response-type-changed', schemaPath: 'id', pointer: { old: 'schemas/thing.yaml#/properties/id/type', new: 'schemas/thing.yaml#/properties/id/type' } })]);
  });

  it("diffs this repository's own contract history", async () => {
    const { code, stdout } = await shipmock(['contract', 'diff', 'git:8c34cc2:contract/openapi.yaml', 'git:cecd140:contract/openapi.yaml']);
    if (stdout === '' && code === 2) return; // a shallow clone without that history
    expect(code).toBe(1);
    expect(stdout).toContain('[response-property-removed] property size removed (it was required)');
  });
});

describe('shipmock contract diff against a running mock', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ port: 0, seed: 1, logLevel: 'silent' });
  });
  afterAll(() => mock?.close());

  it('reads the contract the mock serves (its base URL) and finds it equal to the bundled file', async () => {
    const { code, stdout, stderr } = await shipmock(['contract', 'diff', 'contract/openapi.yaml', mock.url]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`→ ${mock.url}`);
    expect(stdout).toContain('0 breaking, 0 may break, 0 safe');
  });

  it('reports what a file changes against the served contract', async () => {
    const served = await (await fetch(`${mock.url}/openapi.json`)).json();
    const methods = Object.keys(served.paths['/v1/addresses']).filter((k) => ['get', 'post', 'put', 'delete', 'patch'].includes(k)).map((k) => k.toUpperCase());
    expect(methods.length).toBeGreaterThan(0);
    delete served.paths['/v1/addresses'];
    const { code, stdout } = await shipmock(['contract', 'diff', `${mock.url}/openapi.yaml`, file('fewer.json', served), '--format', 'json']);
    expect(code).toBe(1);
    const changes: { rule: string; operation: { method: string; path: string } }[] = JSON.parse(stdout).changes;
    expect(changes.map((c) => [c.rule, c.operation.path])).toEqual(methods.map(() => ['operation-removed', '/v1/addresses']));
    expect(changes.map((c) => c.operation.method).sort()).toEqual(methods.sort());
  });
});
