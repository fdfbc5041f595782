import type { Contract, ContractOperation } from '../contract/load-contract.js';
import type { OperationResult } from '../resources/shared/operation-handler.js';

/**
 * Answers an operation that has no stateful handler from the contract alone, through
 * @stoplight/prism-http (dynamic bodies, seeded: the same seed gives the same bodies).
 * Prism is loaded on first use: most runs never need it, and it would cost start-up time.
 */
export interface PrismFallback {
  answer(operation: ContractOperation, request: { path: string; query: Record<string, unknown>; headers: Record<string, string>; body?: unknown }): Promise<OperationResult>;
}

export interface PrismFallbackOptions {
  contract: Contract;
  seed: number;
  /**
   * Checks a generated answer against the contract. Prism's generator ignores some keywords
   * (exclusiveMinimum, dependentRequired, …); when a dynamic body breaks the contract the
   * fallback answers the contract's own example instead (the examples are tested to be valid).
   */
  conforms(operation: ContractOperation, result: OperationResult): boolean;
}

/**
 * What this fallback uses of Prism. Prism's own types (fp-ts TaskEither, the IHttpConfig union,
 * IHttpOperation) are far wider than this boundary; its values are read through these shapes.
 */
interface PrismOperation {
  iid?: string;
  method: string;
  path: string;
}
interface PrismOutput {
  statusCode: number;
  headers?: Record<string, unknown>;
  body?: unknown;
}
type PrismResult = { _tag: 'Left'; left: unknown } | { _tag: 'Right'; right: { output: PrismOutput } };
interface PrismInstance {
  request(input: unknown, resources: PrismOperation[], config?: unknown): () => Promise<PrismResult>;
}
type PrismConfig = Parameters<typeof import('@stoplight/prism-http')['createInstance']>[0];

export function createPrismFallback(options: PrismFallbackOptions): PrismFallback {
  let ready: Promise<{ operations: PrismOperation[]; prism: PrismInstance; staticConfig: PrismConfig }> | undefined;

  async function load() {
    const [{ createInstance, getHttpOperationsFromSpec }, { createLogger }] = await Promise.all([
      import('@stoplight/prism-http'),
      import('@stoplight/prism-core'),
    ]);
    const operations = await getHttpOperationsFromSpec(capForGeneration(structuredClone(options.contract.document)));
    const logger = createLogger('shipmock-prism', undefined, undefined);
    logger.level = 'silent';
    const config = (dynamic: boolean): PrismConfig => ({
      mock: { dynamic, seed: String(options.seed) },
      validateRequest: false,
      validateResponse: false,
      checkSecurity: false,
      errors: false,
      upstreamProxy: undefined,
      isProxy: false,
    });
    const prism: PrismInstance = createInstance(config(true), { logger });
    return { operations, prism, staticConfig: config(false) };
  }

  return {
    async answer(operation, request) {
      ready ??= load();
      const { operations, prism, staticConfig } = await ready;
      const target = operations.filter((o) => o.iid === operation.operationId || (o.method === operation.method && o.path === operation.path));
      const query: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(request.query)) query[k] = Array.isArray(v) ? v.map(String) : String(v);
      const input = { method: operation.method, url: { path: request.path, query }, headers: request.headers, body: request.body };
      const resources = target.length ? target : operations;
      const dynamic = toResult(await prism.request(input, resources)());
      if (options.conforms(operation, dynamic)) return dynamic;
      return toResult(await prism.request(input, resources, staticConfig)());
    },
  };
}

/**
 * Every value of the contract is bounded (contract/DECISIONS.md, "Bounds"), and Prism's
 * generator picks sizes anywhere up to the bound: a list of 100 Services with 250 countries
 * each, a 10 MiB document. For generation only, arrays get at most 3 items (or their
 * minItems), strings at most 256 characters (or their minLength), open objects 5 keys; what
 * Prism generates stays within the contract's own bounds.
 */
export function capForGeneration<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(capForGeneration);
  else if (node && typeof node === 'object') {
    const s = node as Record<string, unknown>;
    const at = (key: string) => (typeof s[key] === 'number' ? (s[key] as number) : 0);
    if (typeof s.maxItems === 'number') s.maxItems = Math.min(s.maxItems, Math.max(at('minItems'), 3));
    if (typeof s.maxLength === 'number') s.maxLength = Math.min(s.maxLength, Math.max(at('minLength'), 256));
    if (typeof s.maxProperties === 'number') s.maxProperties = Math.min(s.maxProperties, Math.max(at('minProperties'), 5));
    for (const value of Object.values(s)) capForGeneration(value);
  }
  return node;
}

function toResult(result: PrismResult): OperationResult {
  if (result._tag === 'Left') throw result.left;
  const output = result.right.output;
  const headers: Record<string, string> = {};
  let contentType: string | undefined;
  for (const [name, value] of Object.entries(output.headers ?? {})) {
    if (name.toLowerCase() === 'content-type') contentType = String(value).split(';')[0];
  }
  const isJson = !contentType || contentType.endsWith('json');
  if (output.body === undefined) return { status: output.statusCode, headers };
  return isJson
    ? { status: output.statusCode, body: output.body, contentType, headers }
    : { status: output.statusCode, raw: typeof output.body === 'string' ? output.body : JSON.stringify(output.body), contentType, headers };
}
