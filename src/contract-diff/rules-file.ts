import { readFileSync } from 'node:fs';
import { lazyModule } from '../util/lazy-module.js';
import { CHANGE_CLASSES, isRuleId, RULES, type ChangeClass } from './rules.js';

const yaml = lazyModule<typeof import('yaml')>('yaml');

/**
 * Reads a `--rules` file: a team's decisions that raise or lower rules' classes.
 *
 * ```yaml
 * rules:
 *   response-enum-widened: safe        # our clients ignore unknown enum values
 *   request-pattern-changed: breaking
 * ```
 *
 * Everything is checked: the file must be YAML or JSON with one `rules` map from rule ids to
 * breaking | may-break | safe. The first problem is thrown as one line naming the file.
 *
 * @example readRulesFile('.contract-rules.yaml') // { 'response-enum-widened': 'safe' }
 */
export function readRulesFile(path: string): Record<string, ChangeClass> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`--rules ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = yaml().parse(text);
  } catch (error) {
    throw new Error(`--rules ${path}: not YAML or JSON (${(error as Error).message.split('\n')[0]})`);
  }
  return parseRules(parsed, `--rules ${path}`);
}

/** Checks a parsed rules document (see readRulesFile); `origin` prefixes the errors. */
export function parseRules(parsed: unknown, origin = 'rules'): Record<string, ChangeClass> {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${origin}: expected a map with a "rules" key, e.g. rules: { response-enum-widened: safe }`);
  const extra = Object.keys(parsed).filter((key) => key !== 'rules');
  if (extra.length) throw new Error(`${origin}: unknown key ${extra[0]} (only "rules" is allowed)`);
  const rules = (parsed as { rules?: unknown }).rules;
  if (rules === undefined || rules === null) return {};
  if (typeof rules !== 'object' || Array.isArray(rules)) throw new Error(`${origin}: "rules" must map rule ids to breaking, may-break or safe`);
  const result: Record<string, ChangeClass> = {};
  for (const [id, value] of Object.entries(rules)) {
    if (!isRuleId(id)) {
      const hint = closestRule(id);
      throw new Error(`${origin}: unknown rule ${id}${hint ? ` (did you mean ${hint}?)` : ''}; the rules are listed in docs/contract-diff.md`);
    }
    if (!CHANGE_CLASSES.includes(value as ChangeClass)) throw new Error(`${origin}: rule ${id} must be breaking, may-break or safe (got ${JSON.stringify(value)})`);
    result[id] = value as ChangeClass;
  }
  return result;
}

/** The rule id closest to a misspelt one (edit distance ≤ a third of its length). */
function closestRule(id: string): string | undefined {
  let best: { id: string; distance: number } | undefined;
  for (const rule of RULES) {
    const distance = editDistance(id, rule.id);
    if (!best || distance < best.distance) best = { id: rule.id, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(id.length / 3)) ? best.id : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}
