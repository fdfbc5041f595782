import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAjv } from '../../src/contract/compiled-contract.js';
import { DEFAULT_CONTRACT_PATH, escapePointer, loadContract, parseYaml } from '../../src/contract/load-contract.js';
import { CONTRACT_SCHEMA_ID, toViolations } from '../../src/contract/validators.js';
import { PROBLEM_BASE_URI, PROBLEM_TYPES } from '../../src/errors/problem-types.js';
import { quoteYaml11Strings, yaml11Differences } from './yaml11.js';

const SCENARIOS_DIR = fileURLToPath(new URL('../../scenarios', import.meta.url));

const document = parseYaml(readFileSync(DEFAULT_CONTRACT_PATH, 'utf8'));
const contract = loadContract(document);
const ajv = createAjv(false);
ajv.addSchema({ ...document, $id: CONTRACT_SCHEMA_ID });

interface Example {
  where: string;
  schemaPointer: string;
  value: unknown;
}

/** Every example on a JSON media type: request bodies, responses (inline and components), webhooks. */
function collectExamples(): Example[] {
  const out: Example[] = [];
  const visitMedia = (content: any, pointer: string) => {
    for (const [mediaType, media] of Object.entries<any>(content ?? {})) {
      if (!mediaType.endsWith('json') || !media?.schema) continue;
      const at = `${pointer}/content/${escapePointer(mediaType)}`;
      if (media.example !== undefined) out.push({ where: at, schemaPointer: `${at}/schema`, value: media.example });
      for (const [name, ex] of Object.entries<any>(media.examples ?? {})) {
        out.push({ where: `${at}/examples/${name}`, schemaPointer: `${at}/schema`, value: ex.value });
      }
    }
  };
  const visitOperations = (items: Record<string, any>, base: string) => {
    for (const [path, item] of Object.entries<any>(items ?? {})) {
      for (const method of ['get', 'post', 'put', 'delete', 'patch']) {
        const op = item[method];
        if (!op) continue;
        const at = `${base}/${escapePointer(path)}/${method}`;
        if (op.requestBody?.content) visitMedia(op.requestBody.content, `${at}/requestBody`);
        for (const [code, response] of Object.entries<any>(op.responses ?? {})) visitMedia(response.content, `${at}/responses/${code}`);
      }
    }
  };
  visitOperations(document.paths, '#/paths');
  visitOperations(document.webhooks, '#/webhooks');
  for (const [name, response] of Object.entries<any>(document.components.responses ?? {})) {
    visitMedia(response.content, `#/components/responses/${name}`);
  }
  return out;
}

const examples = collectExamples();

describe('contract/openapi.yaml', () => {
  it('is OpenAPI 3.1.0, version 2.3.0, with the 2020-12 dialect', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('2.3.0');
    expect(document.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(
      ['AccountToken', 'AdminToken', 'AffiliateToken', 'ClientCredentials', 'CompanyToken'],
    );
  });

  it('lints clean with Redocly', () => {
    const output = execFileSync('npx', ['redocly', 'lint', 'contract/openapi.yaml', '--format', 'json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const report = JSON.parse(output.slice(output.indexOf('{')));
    const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error');
    expect(errors).toEqual([]);
  }, 60_000);

  it('has an example for every request body and every 2xx JSON response', () => {
    const missing: string[] = [];
    for (const op of contract.operations) {
      const item = document.paths[op.path][op.method];
      const body = item.requestBody?.content?.['application/json'];
      if (body && body.example === undefined && !body.examples) missing.push(`${op.operationId} request`);
      for (const [code, raw] of Object.entries<any>(item.responses)) {
        if (!code.startsWith('2') || raw.$ref) continue;
        const json = raw.content?.['application/json'];
        if (json && json.example === undefined && !json.examples) missing.push(`${op.operationId} ${code}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it.each(examples.map((e) => [e.where, e] as const))('example %s validates against its schema', (_where, example) => {
    const validate = ajv.getSchema(`${CONTRACT_SCHEMA_ID}${example.schemaPointer}`)!;
    const ok = validate(example.value);
    expect(toViolations(validate.errors, 'example')).toEqual([]);
    expect(ok).toBe(true);
  });

  it('closes every object schema (drift is caught)', () => {
    const open: string[] = [];
    const visit = (schema: any, at: string) => {
      if (!schema || typeof schema !== 'object') return;
      if (Array.isArray(schema)) return schema.forEach((s, i) => visit(s, `${at}/${i}`));
      const isObject = schema.type === 'object' || schema.properties;
      if (isObject && schema.additionalProperties === undefined && schema.unevaluatedProperties === undefined) open.push(at);
      for (const [key, value] of Object.entries<any>(schema)) {
        if (key === 'example' || key === 'examples') continue;
        // if/then/else only condition properties the enclosing schema declares (and closes);
        // a closed `then` would refuse every other property.
        if ((key === 'if' || key === 'then' || key === 'else') && isObject) continue;
        // keywords whose value is a map of name → schema, not a schema
        if (key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'dependentSchemas') {
          for (const [name, inner] of Object.entries(value ?? {})) visit(inner, `${at}/${key}/${name}`);
        } else visit(value, `${at}/${key}`);
      }
    };
    for (const [name, schema] of Object.entries(document.components.schemas)) visit(schema, name);
    expect(open).toEqual([]);
  });

  it('declares problem+json errors and the rate-limit and CORS headers on every operation', () => {
    const problems: string[] = [];
    for (const op of contract.operations) {
      const item = document.paths[op.path][op.method];
      for (const status of [400, 401, 403, 404, 429, 500]) {
        const spec = op.responses.get(status);
        if (!spec?.content.has('application/problem+json')) problems.push(`${op.operationId} ${status}`);
      }
      for (const [code, raw] of Object.entries<any>(item.responses)) {
        const response = raw.$ref ? document.components.responses[raw.$ref.split('/').pop()] : raw;
        const headers = Object.keys(response.headers ?? {});
        if (!headers.includes('Access-Control-Allow-Origin')) problems.push(`${op.operationId} ${code} lacks Access-Control-Allow-Origin`);
        const rateHeaders = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].filter((n) => headers.includes(n));
        if (code === '500' ? rateHeaders.length : rateHeaders.length !== 3) problems.push(`${op.operationId} ${code} rate-limit headers`);
        if (code === '429' && !headers.includes('Retry-After')) problems.push(`${op.operationId} 429 lacks Retry-After`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives every operation an operationId, summary, tags and security', () => {
    const incomplete = contract.operations
      .filter((op) => {
        const item = document.paths[op.path][op.method];
        return !item.operationId || !item.summary || !item.tags?.length || op.security.length === 0;
      })
      .map((op) => op.operationId ?? `${op.method} ${op.path}`);
    expect(incomplete).toEqual([]);
  });

  it('describes every operation in more than its summary (the /docs reference shows it), in both contracts', () => {
    const admin = parseYaml(readFileSync(new URL('../../contract/admin.yaml', import.meta.url), 'utf8'));
    const thin: string[] = [];
    for (const [name, doc] of [['openapi.yaml', document], ['admin.yaml', admin]] as const) {
      for (const [path, item] of Object.entries<Record<string, { summary?: string; description?: string; operationId?: string }>>(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          if (!['get', 'put', 'post', 'delete', 'patch'].includes(method)) continue;
          // A sentence at least, and not the summary again.
          const description = op.description?.trim() ?? '';
          if (description.length < 40 || description === op.summary) thin.push(`${name} ${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect(thin).toEqual([]);
  });
});

describe('problem type registry', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const decisions = readFileSync(new URL('../../contract/DECISIONS.md', import.meta.url), 'utf8');

  it.each(Object.entries(PROBLEM_TYPES))('%s is in the README error table with its status', (slug, { status }) => {
    expect(readme).toMatch(new RegExp(`^\\| \`${slug}\` \\| ${status} \\|`, 'm'));
  });

  it('documents the type URI base in DECISIONS.md', () => {
    expect(decisions).toContain(PROBLEM_BASE_URI.replace(/\/$/, ''));
  });
});

describe('contract hygiene for other tools', () => {
  it('declares every tag its operations use, and uses every tag it declares', () => {
    const declared = (document.tags as { name: string }[]).map((t) => t.name);
    const used = new Set(contract.operations.flatMap((op) => op.tags));
    expect([...used].filter((t) => !declared.includes(t))).toEqual([]);
    expect(declared.filter((t) => !used.has(t))).toEqual([]);
  });

  it('quotes every time, date and version-like value (YAML 1.1 parsers read them as numbers or timestamps)', () => {
    const text = readFileSync(DEFAULT_CONTRACT_PATH, 'utf8');
    const bare = text
      .split('\n')
      .map((line, i) => [i + 1, line] as const)
      .filter(([, line]) => /^\s+(?:- )?(?:[\w-]+: |- )(?:\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}(?::\d{2})?|\d+\.\d+\.\d+)\s*$/.test(line))
      .map(([n, line]) => `${n}: ${line.trim()}`);
    expect(bare).toEqual([]);
  });

  // PyYAML and the tools built on it are YAML 1.1 loaders: a bare 2026-01-15T09:30:00.000Z is a
  // timestamp there, NO/on/y a boolean, 1:20 the number 80, 0777 octal, 1_000 a thousand. The
  // stricter form of the test above: no plain scalar, key or value, may read differently in 1.1.
  it.each([
    ['contract/openapi.yaml', DEFAULT_CONTRACT_PATH],
    ['contract/admin.yaml', fileURLToPath(new URL('../../contract/admin.yaml', import.meta.url))],
    ...readdirSync(SCENARIOS_DIR)
      .filter((name) => name.endsWith('.yaml'))
      .map((name) => [`scenarios/${name}`, join(SCENARIOS_DIR, name)]),
  ])('%s reads the same in YAML 1.1 as in YAML 1.2 (every such scalar is quoted)', (_name, path) => {
    const differences = yaml11Differences(readFileSync(path, 'utf8')).map(
      (d) => `${d.line}:${d.column} ${d.source} (YAML 1.1: ${d.yaml11 instanceof Date ? 'a timestamp' : JSON.stringify(d.yaml11)})`,
    );
    expect(differences).toEqual([]);
  });
});

describe('yaml11Differences (the detector of the test above)', () => {
  it.each([
    ['a: 2026-01-15T09:30:00.000Z', 'timestamp'],
    ['a: 2026-01-15', 'date'],
    ['countries: [SE, NO]', 'NO'],
    ['a: on', 'on'],
    ['a: Off', 'Off'],
    ['a: y', 'y'],
    ['N: 1', 'key N'],
    ['a: YES', 'YES'],
    ['a: 1:20', 'sexagesimal'],
    ['a: 0777', 'octal'],
    ['a: 1_000', 'underscores'],
    ['a: 0b101', 'binary'],
  ])('finds %s (%s)', (text) => {
    expect(yaml11Differences(`${text}\n`)).toHaveLength(1);
  });

  it.each([['a: "2026-01-15T09:30:00.000Z"'], ["a: 'NO'"], ['a: true'], ['a: ~'], ['a: .inf'], ['a: 0x1F'], ['a: 12'], ['a: 1.5'], ['a: Norway']])(
    'leaves %s alone (quoted, or the same in both)',
    (text) => {
      expect(yaml11Differences(`${text}\n`)).toEqual([]);
    },
  );

  it('quotes only the scalars that differ, and the document parses the same afterwards', () => {
    const text = 'a: 2026-01-15T09:30:00.000Z # when\nlist:\n  - NO\n  - DE\nb: 0777\n';
    const { text: quoted, quoted: count, left } = quoteYaml11Strings(text);
    expect(quoted).toBe('a: "2026-01-15T09:30:00.000Z" # when\nlist:\n  - "NO"\n  - DE\nb: 0777\n');
    expect(count).toBe(2);
    expect(left.map((d) => d.source)).toEqual(['0777']); // 777 in YAML 1.2: quoting would change it
    expect(parseYaml(quoted)).toEqual({ ...parseYaml(text) });
  });
});
