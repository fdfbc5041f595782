import type { Clock } from '../clock/clock.js';
import type { Random } from '../random/random.js';
import { createRateLimiter, type RateLimiter } from '../rate-limit/rate-limiter.js';
import type { ActivateOptions, ActivationSource, ActivationView, FiredEffect, ScenarioSnapshot } from './engine.js';
import type { Effect, RuleKind, ScenarioDefinition, When } from './model.js';
import { compileMatch, type CompiledMatch } from './rule-matcher.js';
import { RuleIndex } from './rule-index.js';
import { effectKind, ScenarioError, toMs, type ParameterValues } from './scenario-file.js';

/**
 * An active scenario and the state of its rules: counters, window, sequence position and the
 * rule's own seeded random stream. The engine (engine.ts) keeps the activations and decides
 * which to ask; here is what one activation and one rule do.
 */
export interface RuleState {
  index: number;
  label: string;
  name?: string;
  kind: RuleKind;
  match: CompiledMatch;
  when: When;
  effect?: Effect;
  sequence?: (Effect | 'pass')[];
  repeat: boolean | 'last';
  matched: number;
  fired: number;
  step: number;
  draws: number;
  /** The rule's seeded stream, derived on its first draw (most rules never draw). */
  random: () => Random;
  limiter?: RateLimiter;
  from?: number;
  until?: number;
}

export interface Activation {
  definition: ScenarioDefinition;
  accountId?: string;
  params?: ParameterValues;
  source: ActivationSource;
  activatedAt: number;
  rules: RuleState[];
  /** Its request rules by phase, found by lookup (rule-index.ts). */
  requestRules: Record<'request' | 'body', RuleIndex<RuleState>>;
  hasDomainRules: boolean;
}

/** A scenario activated: its rules compiled, counters at zero, each with its own seeded stream. */
export function buildActivation(deps: { clock: Clock; random: Random }, definition: ScenarioDefinition, options: ActivateOptions, activatedAt = deps.clock.now()): Activation {
  const scope = options.accountId ?? '*';
  const rules = definition.rules.map((rule, index): RuleState => {
    const first = rule.effect ?? rule.sequence!.find((e): e is Effect => e !== 'pass');
    const kind = first ? (effectKind(first) as RuleKind) : 'request';
    const rateLimit = rule.effect?.rateLimit;
    return {
      index,
      name: rule.name,
      label: rule.name ?? `rule ${index}`,
      kind,
      match: compileMatch(rule.match),
      when: rule.when ?? {},
      effect: rule.effect,
      sequence: rule.sequence,
      repeat: rule.repeat ?? false,
      matched: 0,
      fired: 0,
      step: 0,
      draws: 0,
      random: lazily(() => deps.random.derive(`scenario:${definition.name}:${scope}:${index}`)),
      limiter: rateLimit ? createRateLimiter({ clock: deps.clock, limit: rateLimit.limit, windowMs: toMs(rateLimit.window) }) : undefined,
      from: instant(rule.when?.from, activatedAt),
      until: instant(rule.when?.until, activatedAt),
    };
  });
  const requestRules = (phase: 'request' | 'body') =>
    new RuleIndex(rules.filter((r) => r.kind === 'request' && r.match.needsBody === (phase === 'body')).map((rule) => ({ rule, match: definition.rules[rule.index].match })));
  return {
    definition,
    accountId: options.accountId,
    params: options.params,
    source: options.source ?? 'api',
    activatedAt,
    rules,
    requestRules: { request: requestRules('request'), body: requestRules('body') },
    hasDomainRules: rules.some((r) => r.kind !== 'request'),
  };
}

export function draw(rule: RuleState): number {
  rule.draws++;
  return rule.random().next();
}

function sampleLatency(rule: RuleState, effect: Effect): number {
  const latency = effect.latency;
  if (latency === undefined) return 0;
  if (typeof latency !== 'object') return toMs(latency);
  if ('min' in latency) {
    const min = toMs(latency.min);
    const max = toMs(latency.max);
    return Math.round(min + draw(rule) * Math.max(0, max - min));
  }
  // Box–Muller: a normal sample from two uniform draws; never negative.
  const u = 1 - draw(rule);
  const v = draw(rule);
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return Math.max(0, Math.round(toMs(latency.mean) + z * toMs(latency.stddev)));
}

/** Counts a match (at `now`) and decides whether the rule fires; returns its effect for this firing. */
export function fire(rule: RuleState, now: number): Effect | 'pass' | undefined {
  if (rule.from !== undefined && now < rule.from) return undefined;
  if (rule.until !== undefined && now >= rule.until) return undefined;
  rule.matched++;
  const n = rule.matched - (rule.when.after ?? 0);
  if (n <= 0) return undefined;
  if (rule.when.every && n % rule.when.every !== 0) return undefined;
  if (rule.when.times !== undefined && rule.fired >= rule.when.times) return undefined;
  if (rule.when.probability !== undefined && draw(rule) >= rule.when.probability) return undefined;
  let effect: Effect | 'pass';
  if (rule.sequence) {
    if (rule.step >= rule.sequence.length) {
      if (!rule.repeat) return undefined;
      if (rule.repeat === true) rule.step = 0;
    }
    // repeat: last keeps answering the last step (the step stays past the end).
    effect = rule.sequence[Math.min(rule.step++, rule.sequence.length - 1)];
  } else {
    effect = rule.effect!;
  }
  rule.fired++;
  return effect;
}

/** What a firing rule hands to whoever asked: the effect, where it came from, its sampled latency. */
export function fired(activation: Activation, rule: RuleState, effect: Effect): FiredEffect {
  return { scenario: activation.definition.name, rule: rule.label, effect, latencyMs: sampleLatency(rule, effect), limiter: effect.rateLimit ? rule.limiter : undefined };
}

export function viewOf(activation: Activation): ActivationView {
  const rules = activation.rules.map((r) => ({ index: r.index, ...(r.name ? { name: r.name } : {}), kind: r.kind, matched: r.matched, fired: r.fired }));
  return {
    name: activation.definition.name,
    ...(activation.definition.description ? { description: activation.definition.description } : {}),
    ...(activation.accountId ? { accountId: activation.accountId } : {}),
    source: activation.source,
    activatedAt: new Date(activation.activatedAt).toISOString(),
    ...(activation.params && Object.keys(activation.params).length ? { params: activation.params } : {}),
    hits: rules.reduce((sum, r) => sum + r.fired, 0),
    rules,
  };
}

/** The activations as plain data: definitions, scope and each rule's counters (the draws replay its seeded stream). */
export function snapshotOf(active: readonly Activation[]): ScenarioSnapshot {
  return {
    activations: active.map((a) => ({
      definition: a.definition,
      ...(a.accountId ? { accountId: a.accountId } : {}),
      ...(a.params ? { params: a.params } : {}),
      source: a.source,
      activatedAt: a.activatedAt,
      rules: a.rules.map((r) => ({ matched: r.matched, fired: r.fired, step: r.step, draws: r.draws })),
    })),
  };
}

function instant(value: string | undefined, activatedAt: number): number | undefined {
  if (value === undefined) return undefined;
  if (value.startsWith('P')) return activatedAt + toMs(value);
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new ScenarioError(`invalid instant ${value}`);
  return ms;
}

/** A rebuilt activation's rules take their saved counters; the seeded streams are replayed to where they were. */
export function restoreCounters(activation: Activation, saved: ScenarioSnapshot['activations'][number]): Activation {
  activation.rules.forEach((rule, i) => {
    const counters = saved.rules[i];
    if (!counters) return;
    Object.assign(rule, { matched: counters.matched, fired: counters.fired, step: counters.step });
    // Replay the seeded stream so probabilities and latencies continue where they were.
    for (let d = 0; d < counters.draws; d++) draw(rule);
  });
  return activation;
}

function lazily<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}
