import type { Contract, ContractOperation, SecuritySchemeName } from '../../src/contract/load-contract.js';

/**
 * Builds a valid request for any contract operation from the contract alone: path and
 * required query parameters from their schemas, the body from the operation's example.
 */
const FIXED_UUID = '3f1c8a52-9d7e-4b21-8f43-1a2b3c4d5e6f';

export function resolveSchema(contract: Contract, schema: any): any {
  let current = schema;
  for (let hops = 0; current?.$ref && hops < 20; hops++) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((node: any, seg: string) => node?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')], contract.document);
  }
  return current;
}

export function sampleValue(contract: Contract, raw: any): unknown {
  const schema = resolveSchema(contract, raw) ?? {};
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'uuid') return FIXED_UUID;
      if (schema.format === 'date-time') return '2026-01-15T09:30:00.000Z';
      if (schema.format === 'date') return '2026-01-15';
      if (schema.pattern === '^[A-Z]{2}$') return 'DE';
      if (schema.pattern === '^[A-Z]{3}$') return 'EUR';
      return 'sample';
    default:
      return 'sample';
  }
}

export interface SampleRequest {
  path: string;
  query: Record<string, unknown>;
  body?: unknown;
}

export function sampleRequest(contract: Contract, operation: ContractOperation): SampleRequest {
  let path = operation.path;
  const query: Record<string, unknown> = {};
  for (const p of operation.parameters) {
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(sampleValue(contract, p.schema))));
    else if (p.in === 'query' && p.required) query[p.name] = sampleValue(contract, p.schema);
  }
  const item = contract.document.paths[operation.path][operation.method];
  const media = resolveSchema(contract, item.requestBody)?.content?.['application/json'];
  return { path, query, body: media ? media.example ?? {} : undefined };
}

/** Preference when an operation accepts several schemes: the most specific first. */
export const SCHEME_PREFERENCE: SecuritySchemeName[] = ['AccountToken', 'CompanyToken', 'ClientCredentials', 'AffiliateToken', 'AdminToken'];

export function preferredScheme(operation: ContractOperation): SecuritySchemeName | undefined {
  return SCHEME_PREFERENCE.find((s) => operation.security.includes(s));
}
