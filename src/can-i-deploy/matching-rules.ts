/**
 * Pact matching rules (V2 flat `$.body.x` keys, V3/V4 categories) and which of them applies at a
 * place in a body: the rule whose path matches the longest prefix of the place, exact names
 * before wildcards — the way the Pact matching engine lets `like(...)` and `eachLike(...)`
 * cascade to everything below them.
 * https://github.com/pact-foundation/pact-specification/tree/version-3#matchers
 */

/** One matcher of a rule: `{match: 'type', min: 1}`, `{match: 'regex', regex: '…'}`, … */
export interface Matcher {
  match: string;
  regex?: string;
  min?: number;
  max?: number;
  value?: unknown;
  format?: string;
  variants?: { index: number; rules?: Record<string, RuleSpec> }[];
  status?: string;
  [key: string]: unknown;
}

export interface RuleSpec {
  combine?: 'AND' | 'OR';
  matchers: Matcher[];
}

/** A path inside a body: keys and array indexes, root first. */
export type ValuePath = (string | number)[];

type Segment = { kind: 'name'; name: string } | { kind: 'index'; index: number } | { kind: 'any' };

interface Rule {
  segments: Segment[];
  spec: RuleSpec;
  expression: string;
}

/** The rules of one category (body, header, query, path, status) of one request, response or message. */
export interface RuleSet {
  /** The rule that governs `path` and whether it is declared exactly there (min/max apply only then). */
  at(path: ValuePath): { spec: RuleSpec; exact: boolean; expression: string } | undefined;
  /** Rules of a named entry (a header or query parameter), case-insensitive for headers. */
  named(name: string): RuleSpec | undefined;
  /** No rules at all: everything is matched as written. */
  readonly empty: boolean;
}

/**
 * Parses a JSONPath-like rule expression: `$`, `$.a.b`, `$['a b']`, `$.items[*].id`, `$.a.*`, `$[0]`.
 * @example parseRulePath('$.items[*].id') // [{kind:'name',name:'items'},{kind:'any'},{kind:'name',name:'id'}]
 */
export function parseRulePath(expression: string): Segment[] | undefined {
  if (!expression.startsWith('$')) return undefined;
  const out: Segment[] = [];
  let i = 1;
  while (i < expression.length) {
    const c = expression[i];
    if (c === '.') {
      const m = /^\.([^.[\]]+)/.exec(expression.slice(i));
      if (!m) return undefined;
      out.push(m[1] === '*' ? { kind: 'any' } : { kind: 'name', name: m[1] });
      i += m[0].length;
    } else if (c === '[') {
      const rest = expression.slice(i);
      const m = /^\[(\*|\d+|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/.exec(rest);
      if (!m) return undefined;
      if (m[1] === '*') out.push({ kind: 'any' });
      else if (/^\d+$/.test(m[1])) out.push({ kind: 'index', index: Number(m[1]) });
      else out.push({ kind: 'name', name: (m[2] ?? m[3]).replace(/\\(.)/g, '$1') });
      i += m[0].length;
    } else return undefined;
  }
  return out;
}

/** How well a rule matches a prefix of `path`: undefined when it does not; higher is more specific. */
function weightOf(segments: Segment[], path: ValuePath): number | undefined {
  if (segments.length > path.length) return undefined;
  let weight = 0;
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i];
    const step = path[i];
    if (segment.kind === 'any') weight += 1;
    else if (segment.kind === 'name' && segment.name === String(step)) weight += 2;
    else if (segment.kind === 'index' && segment.index === step) weight += 2;
    else return undefined;
  }
  return weight;
}

/** The matchers of a rule in any of the spellings pact files use (`{match}` alone is V2). */
function toSpec(raw: unknown): RuleSpec | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const value = raw as { matchers?: unknown; combine?: unknown; match?: unknown };
  if (Array.isArray(value.matchers)) return { combine: value.combine === 'OR' ? 'OR' : 'AND', matchers: value.matchers as Matcher[] };
  if (typeof value.match === 'string') return { combine: 'AND', matchers: [value as Matcher] };
  return undefined;
}

const NO_RULES: RuleSet = { at: () => undefined, named: () => undefined, empty: true };

/**
 * The rules of `category` from an interaction part's `matchingRules` (V3/V4), or from V2's flat
 * keys (`$.body.a`, `$.headers.X`, `$.query.q`).
 *
 * @example ruleSet({ body: { '$.id': { matchers: [{ match: 'type' }] } } }, 'body').at(['id'])?.spec.matchers[0].match // 'type'
 */
export function ruleSet(matchingRules: unknown, category: 'body' | 'header' | 'query' | 'path' | 'status' | 'metadata'): RuleSet {
  if (!matchingRules || typeof matchingRules !== 'object') return NO_RULES;
  const all = matchingRules as Record<string, unknown>;
  const entries = new Map<string, RuleSpec>();
  const v2Prefix = { body: '$.body', header: '$.headers', query: '$.query', path: '$.path', status: '$.status', metadata: '$.metadata' }[category];
  const categoryRules = all[category];
  if (categoryRules && typeof categoryRules === 'object') {
    const direct = toSpec(categoryRules);
    if (direct) entries.set('$', direct); // `path` and `status` hold one rule, not a map
    else for (const [key, raw] of Object.entries(categoryRules)) { const spec = toSpec(raw); if (spec) entries.set(key, spec); }
  } else {
    for (const [key, raw] of Object.entries(all)) {
      if (key !== v2Prefix && !key.startsWith(`${v2Prefix}.`) && !key.startsWith(`${v2Prefix}[`)) continue;
      const spec = toSpec(raw);
      if (spec) entries.set(`$${key.slice(v2Prefix.length)}`, spec);
    }
  }
  if (entries.size === 0) return NO_RULES;
  const rules: Rule[] = [];
  for (const [expression, spec] of entries) {
    // Header and query rules are keyed by name, not by a path.
    const segments = category === 'header' || category === 'query' ? [{ kind: 'name', name: expression.replace(/^\$\.?/, '') } as Segment] : parseRulePath(expression);
    if (segments) rules.push({ segments, spec, expression });
  }
  return {
    empty: false,
    at(path) {
      let best: { rule: Rule; length: number; weight: number } | undefined;
      for (const rule of rules) {
        const weight = weightOf(rule.segments, path);
        if (weight === undefined) continue;
        const length = rule.segments.length;
        if (!best || length > best.length || (length === best.length && weight > best.weight)) best = { rule, length, weight };
      }
      return best && { spec: best.rule.spec, exact: best.length === path.length, expression: best.rule.expression };
    },
    named(name) {
      const lower = name.toLowerCase();
      const rule = rules.find((r) => r.segments.length === 1 && r.segments[0].kind === 'name' && (category === 'header' ? r.segments[0].name.toLowerCase() === lower : r.segments[0].name === name));
      return rule?.spec;
    },
  };
}

/**
 * Rules of an arrayContains variant, keyed relative to the variant's item (`$.id`), as a rule set.
 * @example variantRules({ '$.id': { matchers: [{ match: 'type' }] } }).at(['id']) !== undefined // true
 */
export function variantRules(rules: Record<string, RuleSpec> | undefined): RuleSet {
  return rules ? ruleSet({ body: rules }, 'body') : NO_RULES;
}

/** `$.items[0].id` for a place in a body (for reports). */
export function formatPath(path: ValuePath): string {
  return `$${path.map((step) => (typeof step === 'number' ? `[${step}]` : /^[A-Za-z_$][\w$-]*$/.test(step) ? `.${step}` : `['${step.replace(/'/g, "\\'")}']`)).join('')}`;
}
