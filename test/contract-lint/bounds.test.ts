import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { boundsOf } from '../../src/contract/bounds.js';
import { DEFAULT_CONTRACT_PATH, parseYaml } from '../../src/contract/load-contract.js';

/**
 * Every value in the contract is bounded (contract/DECISIONS.md, "Bounds"): a string has a
 * maxLength (unless an enum, a const or the uuid/date/date-time format fixes its size), an
 * array a maxItems, an object that takes arbitrary keys a maxProperties, a number or integer
 * both a minimum and a maximum. Walks every schema of the document: components (schemas,
 * parameters, headers, responses, request bodies) and every operation's parameters, bodies,
 * responses and response headers, webhooks included.
 */
const document = parseYaml(readFileSync(DEFAULT_CONTRACT_PATH, 'utf8'));

const SIZE_FIXING_FORMATS = new Set(['uuid', 'date', 'date-time']);


interface Finding {
  at: string;
  problem: string;
}

/** Unbounded values in one schema and everything under it. */
export function unboundedIn(schema: unknown, at: string, out: Finding[] = []): Finding[] {
  if (!schema || typeof schema !== 'object') return out;
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => unboundedIn(s, `${at}/${i}`, out));
    return out;
  }
  const s = schema as Record<string, any>;
  const types: string[] = s.type === undefined ? [] : [].concat(s.type);
  const fixed = s.enum !== undefined || s.const !== undefined;
  if (!fixed) {
    if (types.includes('string') && typeof s.maxLength !== 'number' && !SIZE_FIXING_FORMATS.has(s.format)) out.push({ at, problem: 'string without maxLength' });
    if (types.includes('array') && typeof s.maxItems !== 'number') out.push({ at, problem: 'array without maxItems' });
    const numeric = types.find((t) => t === 'number' || t === 'integer');
    const hasMin = typeof s.minimum === 'number' || typeof s.exclusiveMinimum === 'number';
    const hasMax = typeof s.maximum === 'number' || typeof s.exclusiveMaximum === 'number';
    if (numeric && !(hasMin && hasMax)) {
      out.push({ at, problem: `${numeric} without ${[!hasMin && 'minimum', !hasMax && 'maximum'].filter(Boolean).join(' and ')}` });
    }
    const takesAnyKey = s.additionalProperties !== false && s.unevaluatedProperties !== false;
    if (types.includes('object') && takesAnyKey && typeof s.maxProperties !== 'number') out.push({ at, problem: 'object open to any key without maxProperties' });
  }
  for (const key of ['properties', 'patternProperties', '$defs', 'dependentSchemas']) {
    for (const [name, sub] of Object.entries<unknown>(s[key] ?? {})) unboundedIn(sub, `${at}/${key}/${name}`, out);
  }
  for (const key of ['items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']) {
    if (s[key] && typeof s[key] === 'object') unboundedIn(s[key], `${at}/${key}`, out);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) if (Array.isArray(s[key])) unboundedIn(s[key], `${at}/${key}`, out);
  return out;
}

/** Every schema of an OpenAPI document with a readable location. */
function everySchema(doc: Record<string, any>): { at: string; schema: unknown }[] {
  const out: { at: string; schema: unknown }[] = [];
  const media = (content: any, at: string) => {
    for (const [type, m] of Object.entries<any>(content ?? {})) if (m?.schema) out.push({ at: `${at} ${type}`, schema: m.schema });
  };
  const headers = (hs: any, at: string) => {
    for (const [name, h] of Object.entries<any>(hs ?? {})) if (h?.schema) out.push({ at: `${at} header ${name}`, schema: h.schema });
  };
  const parameters = (ps: any[] | undefined, at: string) => {
    for (const p of ps ?? []) if (p?.schema) out.push({ at: `${at} ${p.in} ${p.name}`, schema: p.schema });
  };
  const c = doc.components ?? {};
  for (const [name, s] of Object.entries<unknown>(c.schemas ?? {})) out.push({ at: `#/components/schemas/${name}`, schema: s });
  for (const [name, p] of Object.entries<any>(c.parameters ?? {})) if (p.schema) out.push({ at: `#/components/parameters/${name}`, schema: p.schema });
  headers(c.headers, '#/components/headers');
  for (const [name, r] of Object.entries<any>(c.responses ?? {})) {
    media(r.content, `#/components/responses/${name}`);
    headers(r.headers, `#/components/responses/${name}`);
  }
  for (const [name, r] of Object.entries<any>(c.requestBodies ?? {})) media(r.content, `#/components/requestBodies/${name}`);
  for (const section of ['paths', 'webhooks']) {
    for (const [path, item] of Object.entries<any>(doc[section] ?? {})) {
      parameters(item.parameters, `${section} ${path}`);
      for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
        const op = item[method];
        if (!op) continue;
        const at = `${section} ${path} ${method}`;
        parameters(op.parameters, at);
        media(op.requestBody?.content, `${at} request`);
        for (const [code, r] of Object.entries<any>(op.responses ?? {})) {
          media(r.content, `${at} ${code}`);
          headers(r.headers, `${at} ${code}`);
        }
      }
    }
  }
  return out;
}

describe('every value in the contract is bounded', () => {
  it('walks a real number of schemas (the walker is not vacuous)', () => {
    expect(everySchema(document).length).toBeGreaterThan(300);
  });

  it('no string, array, open object or number without its bound', () => {
    const findings = everySchema(document)
      .flatMap(({ at, schema }) => unboundedIn(schema, at))
      .map((f) => `${f.at}: ${f.problem}`);
    expect(findings).toEqual([]);
  });

  it('the walker finds each kind of unbounded value', () => {
    const findings = unboundedIn(
      {
        type: 'object',
        properties: {
          name: { type: 'string' },
          tags: { type: 'array', items: { type: 'string', maxLength: 5 } },
          meta: { type: 'object', additionalProperties: { type: 'string', maxLength: 5 } },
          count: { type: 'integer', minimum: 0 },
          ok: { type: 'string', enum: ['A'] },
          id: { type: 'string', format: 'uuid' },
          nested: { oneOf: [{ type: 'number', maximum: 1 }] },
        },
        additionalProperties: false,
      },
      '#',
    );
    expect(findings.map((f) => `${f.at}: ${f.problem}`)).toEqual([
      '#/properties/name: string without maxLength',
      '#/properties/tags: array without maxItems',
      '#/properties/meta: object open to any key without maxProperties',
      '#/properties/count: integer without maximum',
      '#/properties/nested/oneOf/0: number without minimum',
    ]);
  });

  it('declares minimum and maximum on every integer query parameter', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
        for (const p of [...(item.parameters ?? []), ...(item[method]?.parameters ?? [])]) {
          const param = p.$ref ? document.components.parameters[p.$ref.split('/').pop()] : p;
          if (item[method] && param.in === 'query' && param.schema?.type === 'integer' && (param.schema.minimum === undefined || param.schema.maximum === undefined)) {
            missing.push(`${method} ${path} ${param.name}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('the size pre-check derived from each component keeps its bounds (bounds.ts)', () => {
    // A schema with a bound somewhere must not derive to `true` (nothing checked).
    const lost: string[] = [];
    for (const [name, schema] of Object.entries<any>(document.components.schemas)) {
      const hasBound = /"max(Length|Items|Properties)"/.test(JSON.stringify(schema));
      if (hasBound && boundsOf(schema) === true) lost.push(name);
    }
    expect(lost).toEqual([]);
    expect(boundsOf({ type: 'array', maxItems: 50, uniqueItems: true, items: { $ref: '#/components/schemas/Id' } })).toEqual({
      maxItems: 50,
      items: { $ref: 'https://shipmock.dev/schemas/bounds.json#/$defs/Id' },
    });
  });
});
