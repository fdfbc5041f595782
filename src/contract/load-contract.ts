import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lazyModule } from '../util/lazy-module.js';
import { followRefs } from './json-pointer.js';

const yaml = lazyModule<typeof import('yaml')>('yaml');

/**
 * Loads contract/openapi.yaml once and indexes its operations. Everything else (routing,
 * security, validation, the Prism fallback) reads the contract through this index.
 */
export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';
export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'post', 'put', 'delete', 'patch'];

export type SecuritySchemeName = 'CompanyToken' | 'AccountToken' | 'AffiliateToken' | 'AdminToken' | 'ClientCredentials';

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface ResponseSpec {
  status: number;
  /** Media type → JSON pointer of its schema inside the contract ('#/…'); null when no schema. */
  content: Map<string, string | null>;
}

export interface ContractOperation {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template, e.g. /v1/addresses/{address-id}. */
  path: string;
  /** Schemes accepted (any one of them). Empty: no authentication. */
  security: SecuritySchemeName[];
  parameters: ParameterSpec[];
  requestBody?: { required: boolean; mediaTypes: string[]; schemaPointer?: string };
  responses: Map<number, ResponseSpec>;
  tags: string[];
}

export type JsonSchema = Record<string, unknown>;
// `any`: a parsed OpenAPI document is user-supplied YAML/JSON — the one untyped boundary of the
// contract code; the loader reads it through the node shapes below, tools and tests walk it freely.
export type OpenApiDocument = Record<string, any>;

/** The parts of OpenAPI objects the loader reads (after $refs are followed). */
interface ParameterNode {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}
interface MediaNode {
  schema?: JsonSchema;
}
interface BodyNode {
  required?: boolean;
  content?: Record<string, MediaNode>;
}
interface OperationNode {
  operationId: string;
  parameters?: unknown[];
  requestBody?: unknown;
  responses?: Record<string, unknown>;
  security?: Record<string, unknown>[];
  tags?: string[];
}
type PathItemNode = Partial<Record<HttpMethod, OperationNode>> & { parameters?: unknown[] };

export interface Contract {
  document: OpenApiDocument;
  operations: ContractOperation[];
  byId: Map<string, ContractOperation>;
}

export const DEFAULT_CONTRACT_PATH = fileURLToPath(new URL('../../contract/openapi.yaml', import.meta.url));

/** JSON pointer escaping (RFC 6901). */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * @example
 * const contract = loadContract(); // the bundled contract
 * contract.byId.get('getAddress')?.path // '/v1/addresses/{address-id}'
 */
export function loadContract(source: string | OpenApiDocument = DEFAULT_CONTRACT_PATH): Contract {
  const document: OpenApiDocument =
    typeof source === 'string' ? parseYaml(readFileSync(source, 'utf8')) : source;
  if (!String(document.openapi ?? '').startsWith('3.1')) throw new Error('the contract must be OpenAPI 3.1');
  const defaultSecurity = securityNames(document.security ?? []);
  const operations: ContractOperation[] = [];

  for (const [path, rawItem] of Object.entries<unknown>(document.paths ?? {})) {
    const itemPointer = `#/paths/${escapePointer(path)}`;
    const item = followRefs(document, rawItem, itemPointer).value as PathItemNode;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const opPointer = `${itemPointer}/${method}`;
      const parameters = new Map<string, ParameterSpec>();
      for (const [list, base] of [
        [item.parameters ?? [], `${itemPointer}/parameters`],
        [op.parameters ?? [], `${opPointer}/parameters`],
      ] as const) {
        list.forEach((raw, i) => {
          const p = followRefs(document, raw, `${base}/${i}`).value as ParameterNode;
          if (p.in === 'cookie') return;
          parameters.set(`${p.in}:${p.name}`, {
            name: p.in === 'header' ? String(p.name).toLowerCase() : p.name,
            in: p.in,
            required: p.in === 'path' ? true : Boolean(p.required),
            schema: p.schema ?? {},
          });
        });
      }
      let requestBody: ContractOperation['requestBody'];
      if (op.requestBody) {
        const { value, pointer } = followRefs(document, op.requestBody, `${opPointer}/requestBody`);
        const body = value as BodyNode;
        const mediaTypes = Object.keys(body.content ?? {});
        const json = mediaTypes.find((m) => m === 'application/json');
        requestBody = {
          required: Boolean(body.required),
          mediaTypes,
          schemaPointer: json && body.content?.[json].schema ? `${pointer}/content/${escapePointer(json)}/schema` : undefined,
        };
      }
      const responses = new Map<number, ResponseSpec>();
      for (const [code, raw] of Object.entries(op.responses ?? {})) {
        const status = Number(code);
        if (!Number.isInteger(status)) continue;
        const { value, pointer } = followRefs(document, raw, `${opPointer}/responses/${code}`);
        const response = value as BodyNode;
        const content = new Map<string, string | null>();
        for (const [mediaType, media] of Object.entries(response.content ?? {})) {
          content.set(mediaType, media?.schema ? `${pointer}/content/${escapePointer(mediaType)}/schema` : null);
        }
        responses.set(status, { status, content });
      }
      operations.push({
        operationId: op.operationId,
        method,
        path,
        security: op.security ? securityNames(op.security) : defaultSecurity,
        parameters: [...parameters.values()],
        requestBody,
        responses,
        tags: op.tags ?? [],
      });
    }
  }
  return { document, operations, byId: new Map(operations.map((o) => [o.operationId, o])) };
}

/** YAML parser loaded on demand (start-up reads the cached JSON instead; see compiled-contract.ts). */
export function parseYaml(text: string): OpenApiDocument {
  return yaml().parse(text, { maxAliasCount: -1 });
}

function securityNames(requirements: Record<string, unknown>[]): SecuritySchemeName[] {
  const names = new Set<SecuritySchemeName>();
  for (const requirement of requirements) {
    for (const name of Object.keys(requirement)) names.add(name as SecuritySchemeName);
  }
  return [...names];
}
