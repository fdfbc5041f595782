import type { ContractOperation, HttpMethod } from './load-contract.js';

/**
 * Matches a request path against the contract's path templates. Static segments win over
 * parameters (so /v1/parcels/items is never read as a parcel id), and a known path with an
 * undeclared method is told apart from an unknown path (405 vs 404).
 */
export type RouteMatch =
  | { kind: 'operation'; operation: ContractOperation; pathParams: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

interface Node {
  statics: Map<string, Node>;
  param?: { name: string; node: Node };
  operations: Map<string, ContractOperation>;
}

const newNode = (): Node => ({ statics: new Map(), operations: new Map() });

export interface RouteMatcher {
  match(method: string, path: string): RouteMatch;
}

/**
 * The methods the contract declares for a known path (what a CORS preflight may be allowed),
 * or undefined for a path it does not know. OPTIONS is never declared, so a known path answers
 * `method-not-allowed` with its methods.
 */
export function allowedMethodsOf(routes: RouteMatcher, path: string): string[] | undefined {
  const match = routes.match('OPTIONS', path);
  return match.kind === 'method-not-allowed' ? match.allowed : undefined;
}

/**
 * A segment tree built from the contract's paths: literal segments before parameters, so
 * /v1/pudo-points/queries is never read as /v1/pudo-points/{pudo-point-id}. Hand-written
 * rather than find-my-way or path-to-regexp: it routes by OpenAPI path templates as they stand
 * in the contract and answers 405 with the declared methods, in 80 lines.
 *
 * @example
 * const matcher = createRouteMatcher(contract.operations);
 * matcher.match('GET', '/v1/addresses/0b6f…') // { kind: 'operation', pathParams: { 'address-id': '0b6f…' } }
 */
export function createRouteMatcher(operations: readonly ContractOperation[]): RouteMatcher {
  const root = newNode();
  for (const operation of operations) {
    let node = root;
    for (const segment of operation.path.split('/').slice(1)) {
      const param = /^\{(.+)\}$/.exec(segment);
      if (param) {
        if (node.param && node.param.name !== param[1]) {
          throw new Error(`conflicting path parameters ${node.param.name} and ${param[1]} at ${operation.path}`);
        }
        node.param ??= { name: param[1], node: newNode() };
        node = node.param.node;
      } else {
        let next = node.statics.get(segment);
        if (!next) node.statics.set(segment, (next = newNode()));
        node = next;
      }
    }
    node.operations.set(operation.method, operation);
  }

  function find(node: Node, segments: string[], index: number, params: Record<string, string>): Node | undefined {
    if (index === segments.length) return node.operations.size ? node : undefined;
    const segment = segments[index];
    const staticNode = node.statics.get(segment);
    if (staticNode) {
      const found = find(staticNode, segments, index + 1, params);
      if (found) return found;
    }
    if (node.param && segment !== '') {
      const found = find(node.param.node, segments, index + 1, params);
      if (found) {
        params[node.param.name] = safeDecode(segment);
        return found;
      }
    }
    return undefined;
  }

  return {
    match(method, path) {
      const segments = path.split('/').slice(1);
      if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop(); // tolerate a trailing slash
      const params: Record<string, string> = {};
      const node = find(root, segments, 0, params);
      if (!node) return { kind: 'not-found' };
      const operation = node.operations.get(method.toLowerCase() as HttpMethod);
      if (!operation) return { kind: 'method-not-allowed', allowed: [...node.operations.keys()].map((m) => m.toUpperCase()) };
      return { kind: 'operation', operation, pathParams: params };
    },
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a broken escape is left as is; validation then rejects it as a bad id
  }
}
