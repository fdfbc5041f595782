import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, extname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lazyModule } from '../util/lazy-module.js';
import { parseDuration } from '../clock/duration.js';
import { patternWeight, regexProblem } from './linear-pattern.js';
import { toViolations } from '../contract/validators.js';
import { PROBLEM_TYPES } from '../errors/problem-types.js';
import type { Violation } from '../errors/problem.js';
import { scenarioSchemaValidator } from './scenario-schema.js';
import { lineFinder } from './yaml-lines.js';
import { DOMAIN_EFFECTS, type Effect, type Rule, type RuleKind, type ScenarioDefinition } from './model.js';

// The YAML parser loads when a scenario is first read (start-up budget, src/util/lazy-module.ts).
// js-yaml, not `yaml`: it parses a 16 KiB scenario in ~2–20 ms where `yaml` took 40–170 ms
// (issue 23); `yaml` still finds the lines of violations (yaml-lines.ts), on failures only.
const jsYaml = lazyModule<typeof import('js-yaml')>('js-yaml');
/** YAML 1.2's core schema, as `yaml` reads it: a date stays a string, as the scenario schema expects. */
const parse = (text: string): unknown => jsYaml().load(text, { schema: jsYaml().CORE_SCHEMA });

/** The ready-made scenarios shipped with the package (one YAML file per scenario). */
export const BUILT_IN_SCENARIOS_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));
export const SCENARIO_SCHEMA_PATH = join(BUILT_IN_SCENARIOS_DIR, 'scenario.schema.json');

/** A scenario that cannot be used; `violations` name each failing field (`scenario/rules/0/effect/...`). */
export class ScenarioError extends Error {
  constructor(
    message: string,
    readonly violations: Violation[] = [],
    /** No scenario of that name or file exists (as opposed to one that is invalid). */
    readonly notFound = false,
    /** The document is larger than SCENARIO_BOUNDS.maxBytes (a 413, not a 400). */
    readonly tooLarge = false,
    /** For a scenario given as text: the line a violation's field is on. */
    public lineOf?: (field: string) => number | undefined,
  ) {
    super(violations.length ? `${message}: ${violations.map((v) => `${v.field} ${v.message}`).join('; ')}` : message);
    this.name = 'ScenarioError';
  }
}

export type ParameterValues = Record<string, string | number | boolean>;

export interface ScenarioLoader {
  /** Validates a parsed definition (object) or scenario text (YAML or JSON), substituting parameters. */
  parse(input: unknown, options?: { source?: string; params?: ParameterValues }): ScenarioDefinition;
  /** A built-in scenario name (`rate-limit-burst`) or a path to a .yaml/.yml/.json file. */
  load(nameOrPath: string, options?: { params?: ParameterValues }): ScenarioDefinition;
  /** The built-in scenarios: name and description. */
  available(): { name: string; description?: string }[];
}

const LOOKS_LIKE_PATH = /[\\/]|\.(ya?ml|json)$/i;

/**
 * What a scenario may cost (issue 23: no event-loop stall above ~50 ms for the largest accepted
 * document, on the API and for `--scenario` files alike, and a bounded matching cost per
 * request). Activation is linear in these: the text is parsed and checked once, each pattern
 * compiled once.
 * - `maxBytes`: the document's text (YAML or JSON) or, for a definition object, its JSON. The
 *   ready scenarios are 0.5–2 KB; YAML parses at ~1.5 µs a byte on a loaded machine.
 * - `maxPatternWeight`: the path and body globs and header regular expressions of all rules
 *   together, weighed by patternWeight (about one RE2 instruction a unit: a glob its length, a
 *   regex its program with repetitions expanded).
 * - `maxActiveWeight`: the same, summed over every active scenario (the engine refuses an
 *   activation beyond it): a request is matched against all of them.
 * - `maxMatchedText`: a path, header value or body field longer than this is never matched by a
 *   glob with `*` or a regular expression (RE2 matches in time pattern × text; API paths and
 *   fields are far shorter). Plain text compares whatever its length.
 */
export const SCENARIO_BOUNDS = { maxBytes: 16 * 1024, maxPatternWeight: 4_096, maxActiveWeight: 8_192, maxMatchedText: 2_048, maxRules: 50, maxSteps: 100 } as const;

/**
 * A recorded scenario (every rule carries `recorded`: a converted HAR, `shipmock record`) answers
 * what a recording saw, so it is as large as the recording. It may exceed the bounds above
 * because the engine never scans it: each of its rules matches one method and one literal path
 * (an index lookup per request, src/scenarios/rule-index.ts), and no rule holds a pattern.
 * Above `maxBytes` such a document must be JSON (parsed at ~0.5 GB/s, where YAML manages ~1 MB/s).
 * - `maxBytes`: its text or JSON; 10,000 exchanges of 1–2 KiB take 15–25 MiB.
 * - `maxRules` / `maxSteps`: rules, and answers of one rule's sequence.
 */
export const RECORDED_BOUNDS = { maxBytes: 64 * 1024 * 1024, maxRules: 100_000, maxSteps: 10_000 } as const;

/** Every rule of the (unchecked) document carries a `recorded` block: the bounds of RECORDED_BOUNDS apply. */
export function isRecordedDocument(raw: unknown): boolean {
  const rules = (raw as { rules?: unknown } | null)?.rules;
  return Array.isArray(rules) && rules.length > 0 && rules.every((rule) => rule !== null && typeof rule === 'object' && typeof (rule as { recorded?: unknown }).recorded === 'object');
}

/** Every pattern a rule compiles, with the field that names it. */
function patternsOf(rule: Rule, at: string): { field: string; pattern: string; kind: 'glob' | 'regex' }[] {
  const out: { field: string; pattern: string; kind: 'glob' | 'regex' }[] = [];
  const match = rule.match ?? {};
  const paths = match.path === undefined ? [] : Array.isArray(match.path) ? match.path : [match.path];
  paths.forEach((path, i) => out.push({ field: `${at}/match/path${Array.isArray(match.path) ? `/${i}` : ''}`, pattern: path, kind: 'glob' }));
  for (const [name, value] of Object.entries(match.body ?? {})) if (typeof value === 'string') out.push({ field: `${at}/match/body/${name}`, pattern: value, kind: 'glob' });
  for (const [name, value] of Object.entries(match.headers ?? {})) {
    if (value.length > 1 && value.startsWith('/') && value.endsWith('/')) out.push({ field: `${at}/match/headers/${name}`, pattern: value.slice(1, -1), kind: 'regex' });
  }
  return out;
}

/**
 * The patterns' cost, checked before any of them is compiled: a counted repetition above
 * MAX_REPEAT is refused where it stands, and all of them together must stay within
 * SCENARIO_BOUNDS.maxPatternWeight.
 */
/** The pattern weight of a whole (valid) scenario: what its activation adds to the engine's. */
export function scenarioWeight(definition: ScenarioDefinition): number {
  return definition.rules.reduce((sum, rule, i) => sum + patternsOf(rule, `scenario/rules/${i}`).reduce((w, p) => w + patternWeight(p.pattern, p.kind).weight, 0), 0);
}

function checkPatternCost(definition: ScenarioDefinition): Violation[] {
  const out: Violation[] = [];
  let total = 0;
  definition.rules.forEach((rule, i) => {
    for (const { field, pattern, kind } of patternsOf(rule, `scenario/rules/${i}`)) {
      const { weight, problem } = patternWeight(pattern, kind);
      if (problem) out.push({ field, message: problem });
      total += weight;
    }
  });
  if (total > SCENARIO_BOUNDS.maxPatternWeight) {
    out.push({
      field: 'scenario/rules',
      message: `weigh ${total} pattern units; the path and body globs and header regular expressions of one scenario weigh at most ${SCENARIO_BOUNDS.maxPatternWeight} together (a glob with * its length, a regular expression its size with repetitions expanded): split the rules over several scenarios or shorten the patterns`,
    });
  }
  return out;
}

/**
 * Refuses a document above SCENARIO_BOUNDS.maxBytes before it is parsed — unless it is a
 * recorded scenario within RECORDED_BOUNDS.maxBytes: then it is JSON text (parsed here and
 * returned) or a definition object whose rules all carry `recorded`.
 */
function checkSize(input: unknown, source: string): { parsed?: unknown; text?: string } {
  const text = typeof input === 'string' ? input : input && typeof input === 'object' ? JSON.stringify(input) : '';
  const bytes = Buffer.byteLength(text);
  if (bytes <= SCENARIO_BOUNDS.maxBytes) return { text };
  if (bytes <= RECORDED_BOUNDS.maxBytes) {
    if (typeof input !== 'string' && isRecordedDocument(input)) return { text };
    if (typeof input === 'string' && /^\s*\{/.test(input)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(input);
      } catch (error) {
        throw new ScenarioError(`${source} is not valid JSON: ${(error as Error).message}`, [{ field: 'scenario', message: 'is not valid JSON (a scenario above 16 KiB must be JSON)' }]);
      }
      if (isRecordedDocument(parsed)) return { parsed, text };
    }
  }
  throw new ScenarioError(
    `${source} is too large`,
    [
      {
        field: 'scenario',
        message: `is ${bytes} bytes; a scenario is at most ${SCENARIO_BOUNDS.maxBytes} bytes (${SCENARIO_BOUNDS.maxBytes / 1024} KiB): split it into several scenarios (a recorded scenario, every rule with \`recorded\`, may be JSON of up to ${RECORDED_BOUNDS.maxBytes / 1024 / 1024} MiB)`,
      },
    ],
    false,
    true,
  );
}

/** JSON text is read as JSON (much faster than YAML, which it also is); anything else as YAML. */
function parseText(text: string): unknown {
  if (/^\s*\{/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // Not strict JSON (a comment, a trailing comma): YAML may still read it, and names the line.
    }
  }
  return parse(text);
}

/**
 * Reads and checks scenario files. Validation is two-fold: the JSON Schema (shape, with the
 * failing field named), then rules the schema cannot say (which effects combine, durations).
 *
 * @example
 * const loader = createScenarioLoader();
 * loader.load('carrier-outage', { params: { carrier: 'DHL_EXPRESS' } }).rules.length // 1
 */
export function createScenarioLoader(options: { dirs?: string[] } = {}): ScenarioLoader {
  const dirs = [...(options.dirs ?? []), BUILT_IN_SCENARIOS_DIR];

  function schemaCheck(value: unknown): Violation[] {
    const validate = scenarioSchemaValidator(SCENARIO_SCHEMA_PATH);
    return validate(value) ? [] : cleanViolations(toViolations(validate.errors, 'scenario'));
  }

  function parseDefinition(input: unknown, source: string, params: ParameterValues = {}): ScenarioDefinition {
    const { parsed, text } = checkSize(input, source);
    // Nothing to substitute in a document without `${` (a recording): its copy is skipped.
    const plain = text !== undefined && !text.includes('${');
    if (parsed !== undefined) return checkDefinition(parsed, source, params, plain);
    if (typeof input !== 'string') return checkDefinition(input, source, params, plain);
    let raw: unknown;
    try {
      raw = parseText(input);
    } catch (error) {
      throw new ScenarioError(`${source} is not valid YAML or JSON: ${(error as Error).message}`, [{ field: 'scenario', message: 'is not valid YAML or JSON' }]);
    }
    try {
      return checkDefinition(raw, source, params, plain);
    } catch (error) {
      // Parsed again, with positions, only when a violation's line is asked for.
      if (error instanceof ScenarioError) error.lineOf = lineFinder(input);
      throw error;
    }
  }

  function checkDefinition(raw: unknown, source: string, params: ParameterValues = {}, plain = false): ScenarioDefinition {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new ScenarioError(`${source} is not a scenario`, [{ field: 'scenario', message: 'must be an object with name and rules' }]);
    }
    // Parameters are checked (and their defaults read) before substitution, rules after it.
    const declared = (raw as { parameters?: Record<string, { default?: unknown }> }).parameters;
    const shapeOfParameters = schemaCheck({ name: 'x', rules: [{}], parameters: declared });
    if (shapeOfParameters.length) throw new ScenarioError(`${source} is not a valid scenario`, shapeOfParameters);
    const values = resolveParameters(declared ?? {}, params);
    const substituted = plain && Object.keys(params).length === 0 ? raw : substitute(raw, values, 'scenario');
    const violations = schemaCheck(substituted);
    if (violations.length) throw new ScenarioError(`${source} is not a valid scenario`, violations);
    const definition = substituted as ScenarioDefinition;
    const cost = checkPatternCost(definition);
    if (cost.length) throw new ScenarioError(`${source} is not a valid scenario`, cost);
    const semantic = [...checkRecordedBounds(definition), ...definition.rules.flatMap((rule, i) => checkRule(rule, `scenario/rules/${i}`))];
    if (semantic.length) throw new ScenarioError(`${source} is not a valid scenario`, semantic);
    return definition;
  }

  function findFile(nameOrPath: string): string {
    if (LOOKS_LIKE_PATH.test(nameOrPath)) {
      const path = isAbsolute(nameOrPath) ? nameOrPath : resolve(nameOrPath);
      if (!existsSync(path)) throw new ScenarioError(`scenario file ${nameOrPath} does not exist`, [], true);
      return path;
    }
    if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(nameOrPath)) throw new ScenarioError(`${nameOrPath} is not a scenario name or file`);
    for (const dir of dirs) {
      for (const ext of ['.yaml', '.yml', '.json']) {
        const path = join(dir, nameOrPath + ext);
        if (existsSync(path)) return path;
      }
    }
    const names = listNames().join(', ');
    throw new ScenarioError(`no scenario named ${nameOrPath}; ready scenarios: ${names}`, [], true);
  }

  function listNames(): string[] {
    const names = new Set<string>();
    for (const dir of dirs) {
      if (!existsSync(dir)) continue;
      for (const file of readdirSync(dir)) {
        if (/\.(ya?ml)$/.test(file)) names.add(basename(file, extname(file)));
      }
    }
    return [...names].sort();
  }

  return {
    parse: (input, opts = {}) => parseDefinition(input, opts.source ?? 'scenario', opts.params),
    load(nameOrPath, opts = {}) {
      const path = findFile(nameOrPath);
      const definition = parseDefinition(readFileSync(path, 'utf8'), basename(path), opts.params);
      if (!LOOKS_LIKE_PATH.test(nameOrPath) && definition.name !== nameOrPath) {
        throw new ScenarioError(`${basename(path)} declares name ${definition.name}; the file name and the name must agree`);
      }
      return definition;
    },
    available() {
      return listNames().map((name) => {
        try {
          const path = findFile(name);
          const raw = parseText(readFileSync(path, 'utf8')) as { description?: string };
          return raw?.description ? { name, description: raw.description } : { name };
        } catch {
          return { name };
        }
      });
    },
  };
}

/**
 * oneOf branches report every alternative that failed; keep the most specific messages so a
 * person reads "latency/min is required", not three lines about each possible shape.
 */
function cleanViolations(violations: Violation[]): Violation[] {
  // Linear in the violations: a field is not the deepest when another one lies below it.
  const parents = new Set<string>();
  for (const v of violations) for (let at = v.field.lastIndexOf('/'); at > 0; at = v.field.lastIndexOf('/', at - 1)) parents.add(v.field.slice(0, at));
  const deepest = violations.filter((v) => !parents.has(v.field));
  const seen = new Set<string>();
  return deepest.filter((v) => {
    if (seen.has(v.field)) return false;
    seen.add(v.field);
    return true;
  });
}

function resolveParameters(declared: Record<string, { default?: unknown }>, given: ParameterValues): ParameterValues {
  const out: ParameterValues = {};
  for (const [name, spec] of Object.entries(declared)) {
    if (spec.default !== undefined) out[name] = spec.default as string | number | boolean;
  }
  for (const [name, value] of Object.entries(given)) {
    if (!(name in declared)) {
      throw new ScenarioError('unknown scenario parameter', [{ field: `params/${name}`, message: `is not a parameter of this scenario (declared: ${Object.keys(declared).join(', ') || 'none'})` }]);
    }
    out[name] = value;
  }
  return out;
}

/** `"${name}"` becomes the value itself (keeping numbers numbers); `${name}` inside text is interpolated. */
function substitute(value: unknown, params: ParameterValues, at: string): unknown {
  if (typeof value === 'string') {
    const whole = /^\$\{([A-Za-z][A-Za-z0-9_]*)\}$/.exec(value);
    if (whole) return lookup(whole[1], params, at);
    return value.replace(/\$\{([A-Za-z][A-Za-z0-9_]*)\}/g, (_m, name: string) => String(lookup(name, params, at)));
  }
  if (Array.isArray(value)) return value.map((v, i) => substitute(v, params, `${at}/${i}`));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    // Declared parameters are read as they are; a recorded answer's body is data, not a template.
    const verbatim = (k: string) => (k === 'parameters' && at === 'scenario') || (at.endsWith('/respond') && ANSWER_BODY_FORMS.includes(k)) || k === 'recorded';
    for (const [k, v] of Object.entries(value)) out[k] = verbatim(k) ? v : substitute(v, params, `${at}/${k}`);
    return out;
  }
  return value;
}

function lookup(name: string, params: ParameterValues, at: string): string | number | boolean {
  const value = params[name];
  if (value === undefined) throw new ScenarioError('missing scenario parameter', [{ field: at, message: `uses \${${name}}, which has no default and was not given` }]);
  return value;
}

const TERMINAL = ['respond', 'reset', 'corrupt'] as const;
/** The forms of a recorded answer's body in a respond effect (one at most). */
const ANSWER_BODY_FORMS: readonly string[] = ['body', 'text', 'base64'];
/** A respond effect's fields that only a problem answer has. */
const PROBLEM_FIELDS = ['problem', 'title', 'detail', 'retryAfter'] as const;

/**
 * The bounds of hand-written scenarios, and what lets a recorded one exceed them: every rule
 * carries `recorded`, matches one method and one literal path, and holds no pattern (so the
 * engine finds its rules by lookup, never by scanning them).
 */
function checkRecordedBounds(definition: ScenarioDefinition): Violation[] {
  const recorded = definition.rules.every((rule) => rule.recorded);
  const out: Violation[] = [];
  if (!recorded && definition.rules.length > SCENARIO_BOUNDS.maxRules) {
    out.push({ field: 'scenario/rules', message: `must NOT have more than ${SCENARIO_BOUNDS.maxRules} items (a recorded scenario, every rule with \`recorded\`, may have ${RECORDED_BOUNDS.maxRules})` });
  }
  definition.rules.forEach((rule, i) => {
    const steps = rule.sequence?.length ?? 0;
    if (!rule.recorded && steps > SCENARIO_BOUNDS.maxSteps) out.push({ field: `scenario/rules/${i}/sequence`, message: `must NOT have more than ${SCENARIO_BOUNDS.maxSteps} items (a recorded rule may have ${RECORDED_BOUNDS.maxSteps})` });
  });
  if (recorded && definition.rules.length > SCENARIO_BOUNDS.maxRules) {
    definition.rules.forEach((rule, i) => {
      const match = rule.match ?? {};
      const literal = typeof match.method === 'string' && typeof match.path === 'string' && !match.path.includes('*') && !Object.values(match.headers ?? {}).some((v) => v.startsWith('/')) && !Object.values(match.body ?? {}).some((v) => typeof v === 'string' && v.includes('*'));
      if (!literal && out.length < 20) out.push({ field: `scenario/rules/${i}/match`, message: `must name one method and one literal path, without patterns, in a recorded scenario of more than ${SCENARIO_BOUNDS.maxRules} rules (so a request finds its rules by lookup)` });
    });
  }
  return out;
}

/** What a respond effect may combine: a problem's fields, or one body form of a recorded answer. */
function checkRespond(respond: NonNullable<Effect['respond']>, effectAt: () => string): Violation[] {
  const out: Violation[] = [];
  const where = () => `${effectAt()}/respond`;
  const forms = ANSWER_BODY_FORMS.filter((k) => (respond as unknown as Record<string, unknown>)[k] !== undefined);
  if (forms.length > 1) out.push({ field: where(), message: `combines ${forms.join(' and ')}; a recorded answer has one body form` });
  if (forms.length === 0) {
    if (respond.status < 400) out.push({ field: `${where()}/status`, message: 'must be >= 400 for a problem answer (a recorded answer of another status gives body, text or base64)' });
    return out;
  }
  if (respond.problem !== undefined || respond.title !== undefined || respond.detail !== undefined || respond.retryAfter !== undefined) {
    const problemFields = PROBLEM_FIELDS.filter((k) => respond[k] !== undefined);
    out.push({ field: where(), message: `combines ${problemFields.join(', ')} (a problem answer) with ${forms[0]} (a recorded answer); use one or the other` });
  }
  if (respond.base64 !== undefined && respond.base64.length % 4 !== 0) out.push({ field: `${where()}/base64`, message: 'is not base64: its length must be a multiple of 4' });
  return out;
}
/** Effects whose moment knows the carrier (the booking's), so `match.carrier` can select them. */
const CARRIER_AWARE: readonly string[] = ['carrier', 'label', 'tracker'];

/** The part of the mock an effect acts in (request pipeline or one domain hook). */
export function effectKind(effect: Effect): RuleKind | 'mixed' {
  const domain = DOMAIN_EFFECTS.filter((k) => effect[k] !== undefined);
  const hasRequest = Object.keys(effect).some((k) => !(DOMAIN_EFFECTS as readonly string[]).includes(k));
  if (domain.length > 1 || (domain.length === 1 && hasRequest)) return 'mixed';
  return domain[0] ?? 'request';
}

/**
 * Durations that keep a request or a carrier call waiting are capped like their numeric form in
 * scenario.schema.json (86,400,000 ms): a longer timer would overflow setTimeout and a request held
 * for weeks is a stalled connection, not a scenario.
 */
const MAX_HOLD_MS = 86_400_000;
const HOLDS_A_REQUEST = /^(?:latency|carrier\/delay)/;

/**
 * Rules the schema cannot express; each violation names the field. A recorded scenario runs this
 * for each of its (up to 100,000) rules at start, so the path of a valid rule allocates little:
 * an effect's place is spelled out only when it has something to say.
 */
function checkRule(rule: Rule, at: string): Violation[] {
  const out: Violation[] = [];
  if (!rule.effect === !rule.sequence) out.push({ field: at, message: 'needs exactly one of effect or sequence' });
  let kind: string | undefined;
  let kindsDiffer = false;
  const checkEffect = (effect: Effect, where: () => string) => {
    const effectKindOf = effectKind(effect);
    if (effectKindOf === 'mixed') {
      out.push({ field: where(), message: `mixes effects of different parts of the mock; use one of ${DOMAIN_EFFECTS.join(', ')} alone, or request effects only` });
      return;
    }
    if (kind === undefined) kind = effectKindOf;
    else if (kind !== effectKindOf) kindsDiffer = true;
    let terminals = 0;
    for (const k of TERMINAL) if (effect[k] !== undefined) terminals++;
    if (terminals > 1) out.push({ field: where(), message: `combines ${TERMINAL.filter((k) => effect[k] !== undefined).join(' and ')}; use one of them per effect` });
    if (effect.respond) {
      const problems = checkRespond(effect.respond, where);
      if (problems.length) out.push(...problems);
    }
    if (effect.respond?.problem && !(effect.respond.problem in PROBLEM_TYPES)) {
      out.push({ field: `${where()}/respond/problem`, message: `is not a registered problem type (${Object.keys(PROBLEM_TYPES).join(', ')})` });
    }
    if (rule.match?.body && (effect.rateLimit || effect.expireToken)) {
      out.push({ field: `${where()}`, message: 'rateLimit and expireToken act before the body is read; they cannot be combined with match.body' });
    }
    if (effect.latency === undefined && !effect.rateLimit && effect.expireToken === undefined && effect.carrier?.delay === undefined && !effect.quote) return;
    for (const [path, value] of durationsOf(effect)) {
      if (typeof value === 'string') {
        try {
          if (HOLDS_A_REQUEST.test(path) && parseDuration(value) > MAX_HOLD_MS) out.push({ field: `${where()}/${path}`, message: 'must be at most one day (P1D)' });
        } catch {
          out.push({ field: `${where()}/${path}`, message: 'must be an ISO 8601 duration such as PT2S' });
        }
      }
    }
  };
  if (rule.effect) checkEffect(rule.effect, () => `${at}/effect`);
  else if (rule.sequence) {
    const sequence = rule.sequence;
    for (let i = 0; i < sequence.length; i++) {
      const step = sequence[i];
      if (step !== 'pass') checkEffect(step, () => `${at}/sequence/${i}`);
    }
  }
  if (kindsDiffer) out.push({ field: at, message: 'a sequence must keep to effects of one kind' });
  kind ??= 'request';
  if (rule.match?.carrier && !CARRIER_AWARE.includes(kind)) {
    out.push({ field: `${at}/match/carrier`, message: `only ${CARRIER_AWARE.join(', ')} effects know the carrier` });
  }
  if (kind !== 'request' && (rule.match?.body || rule.match?.headers || rule.match?.path || rule.match?.method)) {
    out.push({ field: `${at}/match`, message: `${kind} effects happen inside the mock, not on a request; match them by account${CARRIER_AWARE.includes(kind) ? ', carrier' : ''} or operationId` });
  }
  for (const [name, value] of Object.entries(rule.match?.headers ?? {})) {
    const problem = value.length > 1 && value.startsWith('/') && value.endsWith('/') ? regexProblem(value.slice(1, -1)) : undefined;
    if (problem) out.push({ field: `${at}/match/headers/${name}`, message: `is not a regular expression the mock can run (RE2 syntax: no look-around or back-references): ${problem}` });
  }
  for (const bound of ['from', 'until'] as const) {
    const value = rule.when?.[bound];
    if (value !== undefined && !isInstant(value)) out.push({ field: `${at}/when/${bound}`, message: 'must be an ISO 8601 duration (after activation) or a date-time' });
  }
  return out;
}

function durationsOf(effect: Effect): [string, unknown][] {
  const out: [string, unknown][] = [];
  const latency = effect.latency;
  if (typeof latency === 'object') for (const [k, v] of Object.entries(latency)) out.push([`latency/${k}`, v]);
  else if (latency !== undefined) out.push(['latency', latency]);
  if (effect.rateLimit) out.push(['rateLimit/window', effect.rateLimit.window]);
  if (typeof effect.expireToken === 'object') out.push(['expireToken/olderThan', effect.expireToken.olderThan]);
  if (effect.carrier?.delay !== undefined) out.push(['carrier/delay', effect.carrier.delay]);
  if (effect.quote) out.push(['quote/validity', effect.quote.validity]);
  return out;
}

function isInstant(value: string): boolean {
  if (value.startsWith('P')) {
    try {
      parseDuration(value);
      return true;
    } catch {
      return false;
    }
  }
  return /^\d{4}-\d{2}-\d{2}T/.test(value) && Number.isFinite(Date.parse(value));
}

/** Milliseconds of a duration value (number = ms). */
export function toMs(value: number | string): number {
  return typeof value === 'number' ? value : parseDuration(value);
}
