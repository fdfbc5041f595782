/**
 * JSON paths of body fields, as drift names them (`$.items[0].name`), and the patterns a user
 * gives with `--ignore` to call more fields volatile: the JSONPath subset that names fields —
 * `$.a.b`, `$['a b']`, `[*]` / `.*` (any index or member), `[2]`, and `..name` (at any depth).
 * Filters and slices select by value, which a field's name cannot: they are refused.
 */

export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `['items', 0, 'name']` → `$.items[0].name` */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '$';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += IDENTIFIER.test(segment) ? `.${segment}` : `[${JSON.stringify(segment).replace(/^"|"$/g, "'")}]`;
  }
  return out;
}

type PatternStep = { kind: 'member'; name: string } | { kind: 'index'; index: number } | { kind: 'any' } | { kind: 'descend' };

export interface PathPattern {
  source: string;
  matches(segments: readonly PathSegment[]): boolean;
}

/**
 * @example parsePathPattern('$.items[*].createdAt').matches(['items', 3, 'createdAt']) // true
 * @example parsePathPattern('$..trackingNumber').matches(['parcels', 0, 'trackingNumber']) // true
 */
export function parsePathPattern(source: string): PathPattern {
  const steps = parseSteps(source);
  return { source, matches: (segments) => matchFrom(steps, 0, segments, 0) };
}

function parseSteps(source: string): PatternStep[] {
  const fail = (why: string): never => {
    throw new Error(`--ignore ${source}: ${why} (a JSON path such as $.items[*].createdAt or $..trackingNumber)`);
  };
  if (!source.startsWith('$')) fail('must start with $');
  const steps: PatternStep[] = [];
  let i = 1;
  while (i < source.length) {
    if (source.startsWith('..', i)) {
      steps.push({ kind: 'descend' });
      i += 2;
      const name = /^(\*|[A-Za-z_$][A-Za-z0-9_$-]*)/.exec(source.slice(i))?.[0];
      if (!name) {
        if (source[i] === '[') continue;
        fail('.. needs a member name after it');
      }
      steps.push(name === '*' ? { kind: 'any' } : { kind: 'member', name: name! });
      i += name!.length;
    } else if (source[i] === '.') {
      const name = /^(\*|[A-Za-z_$][A-Za-z0-9_$-]*)/.exec(source.slice(i + 1))?.[0];
      if (!name) fail(`no member name at character ${i + 1}`);
      steps.push(name === '*' ? { kind: 'any' } : { kind: 'member', name: name! });
      i += 1 + name!.length;
    } else if (source[i] === '[') {
      const close = source.indexOf(']', i);
      if (close < 0) fail('a [ is not closed');
      const inner = source.slice(i + 1, close).trim();
      if (inner === '*') steps.push({ kind: 'any' });
      else if (/^\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'[^']*'$|^"[^"]*"$/.test(inner)) steps.push({ kind: 'member', name: inner.slice(1, -1) });
      else fail(`[${inner}] is not supported: use [*], [N] or ['name'] (filters and slices select by value, not by field)`);
      i = close + 1;
    } else {
      fail(`unexpected ${JSON.stringify(source[i])} at character ${i + 1}`);
    }
  }
  return steps;
}

function matchFrom(steps: PatternStep[], s: number, segments: readonly PathSegment[], p: number): boolean {
  if (s === steps.length) return p === segments.length;
  const step = steps[s];
  if (step.kind === 'descend') {
    for (let q = p; q <= segments.length; q++) if (matchFrom(steps, s + 1, segments, q)) return true;
    return false;
  }
  if (p === segments.length) return false;
  const segment = segments[p];
  const ok = step.kind === 'any' || (step.kind === 'member' && segment === step.name) || (step.kind === 'index' && segment === step.index);
  return ok && matchFrom(steps, s + 1, segments, p + 1);
}
