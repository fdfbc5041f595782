import type { Contract, JsonSchema } from '../../contract/load-contract.js';
import { isSecretName } from '../../util/redact.js';
import { formatPath, parsePathPattern, type PathPattern, type PathSegment } from './json-path.js';

/**
 * Which body fields are volatile — values the real service and the mock issue each their own,
 * so that only their presence and JSON type are compared, never their value:
 *  - what the contract says is issued: a schema of `format: uuid` or `format: date-time`
 *    (followed through $ref, allOf, oneOf and anyOf at the field's place in the answer's schema);
 *  - by name, for answers the contract does not describe (or a field it leaves open): `id`,
 *    names ending in `Id` / `Ids` (and their items), names ending in `At` (the spec's timestamp
 *    convention: `expiresAt` is epoch ms), tracking numbers (a carrier issues them), and credentials (`accessToken`, `secret`, … — the
 *    names src/util/redact.ts treats as secrets);
 *  - the user's `--ignore` JSON paths.
 */
export interface Volatility {
  /** Whether the field at this path of the answer of `operationId` with `status` is volatile. */
  isVolatile(operationId: string | undefined, status: number, mediaType: string | undefined, path: readonly PathSegment[]): boolean;
}

const ISSUED_FORMATS = new Set(['uuid', 'date-time']);
const ID_NAME = /^(id|ids|.*[a-z0-9]Ids?)$/;
const TIME_NAME = /^[a-z][A-Za-z0-9]*At$/;
/** Numbers a carrier issues (a booking's parcels, its trackers): each service draws its own. */
const ISSUED_NUMBER = /^(trackingNumbers?|[a-z][A-Za-z0-9]*TrackingNumbers?)$/;

/** The nearest member name along a path (`$.parcelIds[2]` → parcelIds). */
function nearestName(path: readonly PathSegment[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) if (typeof path[i] === 'string') return path[i] as string;
  return undefined;
}

/** Volatile by its name alone (ids, timestamps, credentials). */
export function isVolatileName(name: string | undefined): boolean {
  return name !== undefined && (ID_NAME.test(name) || TIME_NAME.test(name) || ISSUED_NUMBER.test(name) || isSecretName(name));
}

export function createVolatility(contract: Contract, ignore: readonly string[] = []): Volatility {
  const patterns: PathPattern[] = ignore.map(parsePathPattern);
  const cache = new Map<string, boolean>();

  function resolve(schema: unknown, depth = 0): JsonSchema | undefined {
    let node = schema as JsonSchema | undefined;
    for (let hops = 0; node && typeof node.$ref === 'string' && hops < 20 && depth < 50; hops++) node = pointerAt(contract.document, node.$ref as string) as JsonSchema | undefined;
    return node && typeof node === 'object' ? node : undefined;
  }

  /** Every schema that may describe the value at `path` under `schema` (branches of allOf/oneOf/anyOf each). */
  function schemasAt(schema: unknown, path: readonly PathSegment[], depth = 0): JsonSchema[] {
    const node = resolve(schema, depth);
    if (!node || depth > 60) return [];
    const branches = ['allOf', 'oneOf', 'anyOf'].flatMap((k) => (Array.isArray(node[k]) ? (node[k] as unknown[]) : []));
    const fromBranches = branches.flatMap((b) => schemasAt(b, path, depth + 1));
    if (path.length === 0) return [node, ...fromBranches];
    const [head, ...rest] = path;
    const next: unknown[] = [];
    if (typeof head === 'number') {
      if (node.items) next.push(node.items);
      if (Array.isArray(node.prefixItems) && node.prefixItems[head]) next.push(node.prefixItems[head]);
    } else {
      const properties = node.properties as Record<string, unknown> | undefined;
      if (properties && Object.hasOwn(properties, head)) next.push(properties[head]);
      else if (node.additionalProperties && typeof node.additionalProperties === 'object') next.push(node.additionalProperties);
    }
    return [...next.flatMap((n) => schemasAt(n, rest, depth + 1)), ...fromBranches];
  }

  function fromContract(operationId: string | undefined, status: number, mediaType: string | undefined, path: readonly PathSegment[]): boolean {
    const operation = operationId ? contract.byId.get(operationId) : undefined;
    const response = operation?.responses.get(status);
    if (!response) return false;
    const pointer = (mediaType && response.content.get(mediaType)) ?? [...response.content.values()].find(Boolean);
    if (!pointer) return false;
    return schemasAt(pointerAt(contract.document, pointer), path).some((s) => typeof s.format === 'string' && ISSUED_FORMATS.has(s.format));
  }

  return {
    isVolatile(operationId, status, mediaType, path) {
      if (isVolatileName(nearestName(path))) return true;
      if (patterns.some((p) => p.matches(path))) return true;
      const key = `${operationId} ${status} ${mediaType} ${formatPath(path).replace(/\[\d+\]/g, '[*]')}`;
      let volatile = cache.get(key);
      if (volatile === undefined) cache.set(key, (volatile = fromContract(operationId, status, mediaType, path)));
      return volatile;
    },
  };
}

/** The node a local JSON pointer (`#/components/schemas/Id`) names, or undefined. */
function pointerAt(document: unknown, pointer: string): unknown {
  if (!pointer.startsWith('#')) return undefined;
  let node = document;
  for (const raw of pointer.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
