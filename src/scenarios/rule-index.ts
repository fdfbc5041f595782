import { canonicalQuery } from './body-digest.js';
import type { RequestMatch } from './model.js';

/** A request as the index looks it up. */
export interface IndexedRequest {
  method: string;
  path: string;
  /** canonicalQuery of the request's query ('' without one). */
  queryKey: string;
  operationId?: string;
}

/**
 * The request rules of one activation, found by lookup instead of by scanning them all: a rule
 * that names one method and one literal path is filed under both (with its exact query when it
 * has `match.query`), one that names only one operationId under it; the rest (globs, lists,
 * rules matching any request) are scanned as before. A recorded scenario of 10,000 exchanges
 * thus costs a request two map lookups and the few rules of its path, not 10,000 comparisons.
 * Candidates come back in rule order, so rules fire in the order they are written.
 *
 * @example
 * const index = new RuleIndex([{ rule: r0, match: { method: 'GET', path: '/v1/a' } }]);
 * index.candidates({ method: 'GET', path: '/v1/a', queryKey: '' }) // [r0]
 */
export class RuleIndex<R extends { index: number }> {
  private readonly byKey = new Map<string, R[]>();
  private readonly scanned: R[] = [];
  readonly size: number;

  constructor(rules: { rule: R; match?: RequestMatch }[]) {
    for (const { rule, match } of rules) {
      const key = indexKey(match);
      if (key === undefined) this.scanned.push(rule);
      else {
        const list = this.byKey.get(key);
        if (list) list.push(rule);
        else this.byKey.set(key, [rule]);
      }
    }
    this.size = rules.length;
  }

  /** The rules that may match the request (each still checks its whole `match`), in rule order. */
  candidates(request: IndexedRequest): R[] {
    if (this.byKey.size === 0) return this.scanned;
    const method = request.method.toUpperCase();
    const lists = [
      this.scanned,
      this.byKey.get(`${method} ${request.path}`),
      this.byKey.get(`${method} ${request.path}?${request.queryKey}`),
      request.operationId === undefined ? undefined : this.byKey.get(`op ${request.operationId}`),
    ].filter((list): list is R[] => list !== undefined && list.length > 0);
    if (lists.length <= 1) return lists[0] ?? [];
    return lists.flat().sort((a, b) => a.index - b.index);
  }
}

/** Where a rule is filed, or undefined when it must be scanned. */
function indexKey(match: RequestMatch | undefined): string | undefined {
  if (!match) return undefined;
  const { method, path, operationId } = match;
  const literalPath = typeof path === 'string' && !path.includes('*');
  if (typeof method === 'string' && literalPath) return `${method.toUpperCase()} ${path}${match.query === undefined ? '' : `?${canonicalQuery(match.query)}`}`;
  // A path list or glob matches other paths: such a rule is scanned even when it names an operation.
  if (typeof operationId === 'string' && path === undefined) return `op ${operationId}`;
  return undefined;
}
