import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../clock/clock.js';
import { ProblemError } from '../errors/problem.js';
import type { Random } from '../random/random.js';
import { exportedAs, type StateRegistry } from '../store/state-registry.js';
import { createRateLimiter, type RateLimiter } from '../rate-limit/rate-limiter.js';
import type { DomainFacts, DomainKind, Effect, RuleKind, ScenarioDefinition, When } from './model.js';
import { compileMatch, type CompiledMatch, type RequestFacts } from './rule-matcher.js';
import { effectKind, SCENARIO_BOUNDS, ScenarioError, scenarioWeight, toMs, type ParameterValues, type ScenarioLoader } from './scenario-file.js';

/**
 * The scenario engine of one mock instance: which scenarios are active (globally, for one
 * account, or for the requests that name them in X-Shipmock-Scenario), and which of their rules
 * fire for a request or a domain moment. Counting, windows, probabilities and sequences live
 * here; applying an effect is the job of the pipeline step or the domain hook that asked.
 */
export type ActivationSource = 'start' | 'api' | 'header' | 'state';

export interface ActivateOptions {
  /** Only requests (and domain moments) of this account are affected. */
  accountId?: string;
  params?: ParameterValues;
  source?: ActivationSource;
}

export interface RuleView {
  index: number;
  name?: string;
  kind: RuleKind;
  /** Requests (or moments) that matched the rule's `match` within its window. */
  matched: number;
  /** Times the rule's effect was applied. */
  fired: number;
}

export interface ActivationView {
  name: string;
  description?: string;
  accountId?: string;
  source: ActivationSource;
  activatedAt: string;
  params?: ParameterValues;
  /** Total firings of all rules. */
  hits: number;
  rules: RuleView[];
}

/** One rule's decision to act: the effect and where it came from. */
export interface FiredEffect {
  scenario: string;
  rule: string;
  effect: Effect;
  /** Latency in ms sampled from the rule's seeded stream (0 when the effect has none). */
  latencyMs: number;
  /** The rule's own rate limiter when the effect overrides the rate limit. */
  limiter?: RateLimiter;
}

export interface ScenarioSnapshot {
  activations: {
    definition: ScenarioDefinition;
    accountId?: string;
    params?: ParameterValues;
    source: ActivationSource;
    activatedAt: number;
    rules: { matched: number; fired: number; step: number; draws: number }[];
  }[];
}

export interface ScenarioEngine {
  /** Activates a ready scenario by name or file, or a definition (object or YAML text). Replaces an activation of the same name and scope. */
  activate(scenario: string | object, options?: ActivateOptions): ActivationView;
  /** Removes the activations of `name` (only the one of `accountId` when given); returns how many. */
  deactivate(name: string, accountId?: string): number;
  list(): ActivationView[];
  /** Built-in scenarios that can be activated by name. */
  available(): { name: string; description?: string }[];
  /** Fast check for the pipeline: is any request rule active for this phase? */
  hasRequestRules(phase: 'request' | 'body'): boolean;
  /** Every request rule that fires, in activation order. `headerScenarios` come from X-Shipmock-Scenario. */
  evaluateRequest(facts: RequestFacts, phase: 'request' | 'body', header?: { names: string[]; scope: string }): FiredEffect[];
  /** The first domain rule of this kind that fires, if any. */
  evaluate(kind: DomainKind, facts: DomainFacts): FiredEffect | undefined;
  /** Fast check for the dispatch step: is any domain rule active (worth tracking per request)? */
  hasDomainRules(): boolean;
  /**
   * Runs `fn` (a request's handler) and tells which domain rules fired while it ran — a carrier
   * call, a label, a quote — as "scenario/rule", whether it returned or threw. Work it sets off
   * that outlives it (a webhook retried later) is not counted.
   */
  collectHits<T>(fn: () => T | Promise<T>): Promise<{ outcome: { value: T } | { error: unknown }; hits: string[] }>;
  /** The scenario a name (never a path) stands for: activated inline before, or ready-made (for the header). */
  resolve(name: string): ScenarioDefinition;
  /**
   * Back to start: activations made over the API and the header are removed (all, or those of
   * one account); activations given at start stay, with their counters restarted.
   */
  reset(accountId?: string): void;
  snapshot(): ScenarioSnapshot;
  restore(snapshot: ScenarioSnapshot): void;
}

interface RuleState {
  index: number;
  label: string;
  name?: string;
  kind: RuleKind;
  match: CompiledMatch;
  when: When;
  effect?: Effect;
  sequence?: (Effect | 'pass')[];
  repeat: boolean;
  matched: number;
  fired: number;
  step: number;
  draws: number;
  random: Random;
  limiter?: RateLimiter;
  from?: number;
  until?: number;
}

interface Activation {
  definition: ScenarioDefinition;
  accountId?: string;
  params?: ParameterValues;
  source: ActivationSource;
  activatedAt: number;
  rules: RuleState[];
}

/** Header activations are kept per scenario and caller so sequences span requests; bounded. */
const MAX_HEADER_ACTIVATIONS = 1000;

/**
 * @example
 * const engine = createScenarioEngine({ clock, random, loader: createScenarioLoader() });
 * engine.activate('carrier-outage', { accountId });
 */
export function createScenarioEngine(deps: { clock: Clock; random: Random; loader: ScenarioLoader; parts?: StateRegistry }): ScenarioEngine {
  const active: Activation[] = [];
  const byHeader = new Map<string, Activation>();
  /** Definitions activated inline (not from a file), so the header can name them too. */
  const inline = new Map<string, ScenarioDefinition>();
  /** The hits of the handler a domain moment happens in, if any (one store per engine, so per mock instance). */
  const handlerHits = new AsyncLocalStorage<{ hits: string[]; open: boolean }>();

  function build(definition: ScenarioDefinition, options: ActivateOptions, activatedAt = deps.clock.now()): Activation {
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
        random: deps.random.derive(`scenario:${definition.name}:${scope}:${index}`),
        limiter: rateLimit ? createRateLimiter({ clock: deps.clock, limit: rateLimit.limit, windowMs: toMs(rateLimit.window) }) : undefined,
        from: instant(rule.when?.from, activatedAt),
        until: instant(rule.when?.until, activatedAt),
      };
    });
    return { definition, accountId: options.accountId, params: options.params, source: options.source ?? 'api', activatedAt, rules };
  }

  function draw(rule: RuleState): number {
    rule.draws++;
    return rule.random.next();
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

  /** Counts a match and decides whether the rule fires; returns its effect for this firing. */
  function fire(rule: RuleState): Effect | 'pass' | undefined {
    const now = deps.clock.now();
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
        rule.step = 0;
      }
      effect = rule.sequence[rule.step++];
    } else {
      effect = rule.effect!;
    }
    rule.fired++;
    return effect;
  }

  function fired(activation: Activation, rule: RuleState, effect: Effect): FiredEffect {
    return { scenario: activation.definition.name, rule: rule.label, effect, latencyMs: sampleLatency(rule, effect), limiter: effect.rateLimit ? rule.limiter : undefined };
  }

  function view(activation: Activation): ActivationView {
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

  /** Ready scenarios read for the header, parsed once (the header may come with every request). */
  const loaded = new Map<string, ScenarioDefinition>();
  function resolve(name: string): ScenarioDefinition {
    // Names only: a header must never make the mock read a file path of the caller's choosing.
    if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(name)) throw new ScenarioError(`${name.slice(0, 80)} is not a scenario name`, [], true);
    const found = inline.get(name) ?? loaded.get(name);
    if (found) return found;
    const definition = deps.loader.load(name);
    loaded.set(name, definition);
    return definition;
  }

  function headerActivation(name: string, scope: string): Activation {
    const key = `${name}\u0000${scope}`;
    let found = byHeader.get(key);
    if (!found) {
      if (byHeader.size >= MAX_HEADER_ACTIVATIONS) byHeader.delete(byHeader.keys().next().value!);
      found = build(resolve(name), { source: 'header' });
      byHeader.set(key, found);
    }
    return found;
  }

  /** Pattern weights of definitions, computed once each. */
  const weights = new WeakMap<ScenarioDefinition, number>();
  function weightOf(definition: ScenarioDefinition): number {
    let weight = weights.get(definition);
    if (weight === undefined) weights.set(definition, (weight = scenarioWeight(definition)));
    return weight;
  }

  const inScope = (activation: Activation, accountId: string | undefined) => !activation.accountId || activation.accountId === accountId;

  const engine: ScenarioEngine = {
    activate(scenario, options = {}) {
      let definition: ScenarioDefinition;
      let parsedInline = false;
      if (typeof scenario === 'string' && !scenario.includes('\n') && !scenario.trimStart().startsWith('{')) {
        definition = inline.has(scenario) && !options.params ? inline.get(scenario)! : deps.loader.load(scenario, { params: options.params });
      } else {
        definition = deps.loader.parse(scenario, { source: 'scenario', params: options.params });
        parsedInline = true;
      }
      const existing = active.findIndex((a) => a.definition.name === definition.name && a.accountId === options.accountId);
      // Every request is matched against every active scenario: their patterns together are bounded.
      const weight = active.reduce((sum, a, i) => (i === existing ? sum : sum + weightOf(a.definition)), weightOf(definition));
      if (weight > SCENARIO_BOUNDS.maxActiveWeight) {
        throw new ScenarioError(`activating ${definition.name} would exceed the active scenarios' pattern bound`, [
          {
            field: 'scenario/rules',
            message: `the active scenarios' globs and regular expressions would weigh ${weight} pattern units together; at most ${SCENARIO_BOUNDS.maxActiveWeight} are active at once: deactivate a scenario first (DELETE /__admin/scenarios/{name})`,
          },
        ]);
      }
      if (parsedInline) inline.set(definition.name, definition);
      const activation = build(definition, options);
      if (existing === -1) active.push(activation);
      else active[existing] = activation;
      return view(activation);
    },
    deactivate(name, accountId) {
      let removed = 0;
      for (let i = active.length - 1; i >= 0; i--) {
        if (active[i].definition.name === name && (accountId === undefined || active[i].accountId === accountId)) {
          active.splice(i, 1);
          removed++;
        }
      }
      for (const [key, activation] of byHeader) if (activation.definition.name === name && accountId === undefined) byHeader.delete(key);
      return removed;
    },
    list: () => [...active.map(view), ...[...byHeader.values()].map(view)],
    available: () => deps.loader.available(),
    hasRequestRules(phase) {
      return active.some((a) => a.rules.some((r) => r.kind === 'request' && r.match.needsBody === (phase === 'body')));
    },
    evaluateRequest(facts, phase, header) {
      const out: FiredEffect[] = [];
      const activations = [...active.filter((a) => inScope(a, facts.accountId))];
      // A name given twice is one scenario (its rules would otherwise be matched twice).
      const named = [...new Set(header?.names ?? [])];
      // Named scenarios are matched on top of the active ones: together they keep to the same bound.
      const weight = named.reduce((sum, name) => sum + weightOf(resolve(name)), 0);
      if (weight > SCENARIO_BOUNDS.maxActiveWeight) {
        throw new ProblemError('validation-error', {
          detail: `X-Shipmock-Scenario names scenarios whose patterns weigh ${weight} units together; at most ${SCENARIO_BOUNDS.maxActiveWeight} per request`,
          violations: [{ field: 'header/X-Shipmock-Scenario', message: `names scenarios weighing ${weight} pattern units; at most ${SCENARIO_BOUNDS.maxActiveWeight} together` }],
        });
      }
      for (const name of named) activations.push(headerActivation(name, header!.scope));
      for (const activation of activations) {
        for (const rule of activation.rules) {
          if (rule.kind !== 'request' || rule.match.needsBody !== (phase === 'body')) continue;
          if (!rule.match.request(facts)) continue;
          const effect = fire(rule);
          if (effect && effect !== 'pass') out.push(fired(activation, rule, effect));
        }
      }
      return out;
    },
    evaluate(kind, facts) {
      for (const activation of active) {
        if (!inScope(activation, facts.accountId)) continue;
        for (const rule of activation.rules) {
          if (rule.kind !== kind || !rule.match.domain(facts)) continue;
          const effect = fire(rule);
          if (effect === 'pass') return undefined;
          if (effect) {
            const collecting = handlerHits.getStore();
            if (collecting?.open) collecting.hits.push(`${activation.definition.name}/${rule.label}`);
            return fired(activation, rule, effect);
          }
        }
      }
      return undefined;
    },
    hasDomainRules: () => active.some((a) => a.rules.some((r) => r.kind !== 'request')),
    async collectHits(fn) {
      const collecting = { hits: [] as string[], open: true };
      try {
        return { outcome: { value: await handlerHits.run(collecting, fn) }, hits: collecting.hits };
      } catch (error) {
        return { outcome: { error }, hits: collecting.hits };
      } finally {
        collecting.open = false;
      }
    },
    resolve,
    reset(accountId) {
      for (let i = active.length - 1; i >= 0; i--) {
        const activation = active[i];
        if (accountId !== undefined && activation.accountId !== accountId) continue;
        if (activation.source === 'start') active[i] = build(activation.definition, activation);
        else active.splice(i, 1);
      }
      if (accountId === undefined) byHeader.clear();
    },
    snapshot() {
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
    },
    restore(snapshot) {
      const rebuilt = snapshot.activations.map((saved) => {
        const definition = deps.loader.parse(saved.definition, { source: `state scenario ${saved.definition?.name}` });
        const activation = build(definition, { accountId: saved.accountId, params: saved.params, source: saved.source }, saved.activatedAt);
        activation.rules.forEach((rule, i) => {
          const counters = saved.rules[i];
          if (!counters) return;
          Object.assign(rule, { matched: counters.matched, fired: counters.fired, step: counters.step });
          // Replay the seeded stream so probabilities and latencies continue where they were.
          for (let d = 0; d < counters.draws; d++) draw(rule);
        });
        return activation;
      });
      active.splice(0, active.length, ...rebuilt);
      byHeader.clear();
      for (const a of rebuilt) if (a.source !== 'start') inline.set(a.definition.name, a.definition);
    },
  };
  deps.parts?.register({
    name: 'scenarios',
    description: 'active scenarios with their rules\' counters (those named by the X-Shipmock-Scenario header are not kept)',
    durable: true,
    storage: 'value',
    sharing: 'shared',
    // --scenario ones stay, their counters restart (README, State).
    reset: 'per-account',
    snapshot: engine.snapshot,
    restore: engine.restore,
    clear: engine.reset,
    exported: exportedAs('scenarios', engine.snapshot, engine.restore),
  });
  return engine;
}

function instant(value: string | undefined, activatedAt: number): number | undefined {
  if (value === undefined) return undefined;
  if (value.startsWith('P')) return activatedAt + toMs(value);
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new ScenarioError(`invalid instant ${value}`);
  return ms;
}
