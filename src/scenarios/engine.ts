import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../clock/clock.js';
import { ProblemError } from '../errors/problem.js';
import type { Random } from '../random/random.js';
import { exportedAs, type StateRegistry } from '../store/state-registry.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import { buildActivation, fire as fireRule, fired, restoreCounters, snapshotOf, viewOf, type Activation, type RuleState } from './activation.js';
import type { DomainFacts, DomainKind, Effect, RuleKind, ScenarioDefinition } from './model.js';
import type { RequestFacts } from './rule-matcher.js';
import { canonicalQuery } from './body-digest.js';
import { SCENARIO_BOUNDS, ScenarioError, scenarioWeight, type ParameterValues, type ScenarioLoader } from './scenario-file.js';

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
  const build = (definition: ScenarioDefinition, options: ActivateOptions, activatedAt?: number) => buildActivation(deps, definition, options, activatedAt);
  const fire = (rule: RuleState) => fireRule(rule, deps.clock.now());

  /** Ready scenarios read for the header, parsed once (the header may come with every request). */
  const loaded = new Map<string, ScenarioDefinition>();
  function resolve(name: string): ScenarioDefinition {
    // Names only: a header must never make the mock read a file path of the caller's choosing.
    if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(name)) throw new ScenarioError(`${name.slice(0, 80)} is not a scenario name`, [], true);
    const found = inline.get(name) ?? loaded.get(name);
    if (found) return withinHeaderBounds(found);
    const definition = deps.loader.load(name);
    loaded.set(name, definition);
    return withinHeaderBounds(definition);
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

  const engine: ScenarioEngine = {
    activate(scenario, options = {}) {
      const { definition, parsedInline } = readScenario(deps.loader, inline, scenario, options.params);
      const existing = active.findIndex((a) => a.definition.name === definition.name && a.accountId === options.accountId);
      // Every request is matched against every active scenario: their patterns together are bounded.
      const weight = active.reduce((sum, a, i) => (i === existing ? sum : sum + weightOf(a.definition)), weightOf(definition));
      checkActiveWeight(definition, weight);
      if (parsedInline) inline.set(definition.name, definition);
      const activation = build(definition, options);
      if (existing === -1) active.push(activation);
      else active[existing] = activation;
      return viewOf(activation);
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
    list: () => [...active.map(viewOf), ...[...byHeader.values()].map(viewOf)],
    available: () => deps.loader.available(),
    hasRequestRules: (phase) => active.some((a) => a.requestRules[phase].size > 0),
    evaluateRequest(facts, phase, header) {
      const activations = [...active.filter((a) => inScope(a, facts.accountId))];
      // A name given twice is one scenario (its rules would otherwise be matched twice).
      const named = [...new Set(header?.names ?? [])];
      // Named scenarios are matched on top of the active ones: together they keep to the same bound.
      const weight = named.reduce((sum, name) => sum + weightOf(resolve(name)), 0);
      checkHeaderWeight(weight);
      for (const name of named) activations.push(headerActivation(name, header!.scope));
      return requestEffects(activations, facts, phase, fire);
    },
    evaluate(kind, facts) {
      const effect = domainEffect(active, kind, facts, fire);
      const collecting = handlerHits.getStore();
      if (effect && collecting?.open) collecting.hits.push(`${effect.scenario}/${effect.rule}`);
      return effect;
    },
    hasDomainRules: () => active.some((a) => a.hasDomainRules),
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
    snapshot: () => snapshotOf(active),
    restore(snapshot) {
      const rebuilt = snapshot.activations.map((saved) =>
        restoreCounters(build(deps.loader.parse(saved.definition, { source: `state scenario ${saved.definition?.name}` }), saved, saved.activatedAt), saved),
      );
      active.splice(0, active.length, ...rebuilt);
      byHeader.clear();
      for (const a of rebuilt) if (a.source !== 'start') inline.set(a.definition.name, a.definition);
    },
  };
  if (deps.parts) registerScenarios(deps.parts, engine);
  return engine;
}

/** A scenario named (ready-made, or activated inline before) or given inline (an object or YAML/JSON text). */
function readScenario(loader: ScenarioLoader, inline: ReadonlyMap<string, ScenarioDefinition>, scenario: string | object, params?: ParameterValues) {
  if (typeof scenario === 'string' && !scenario.includes('\n') && !scenario.trimStart().startsWith('{')) {
    const definition = inline.has(scenario) && !params ? inline.get(scenario)! : loader.load(scenario, { params });
    return { definition, parsedInline: false };
  }
  return { definition: loader.parse(scenario, { source: 'scenario', params }), parsedInline: true };
}

/** Every request is matched against every active scenario: their patterns together are bounded. */
function checkActiveWeight(definition: ScenarioDefinition, weight: number): void {
  if (weight <= SCENARIO_BOUNDS.maxActiveWeight) return;
  throw new ScenarioError(`activating ${definition.name} would exceed the active scenarios' pattern bound`, [
    {
      field: 'scenario/rules',
      message: `the active scenarios' globs and regular expressions would weigh ${weight} pattern units together; at most ${SCENARIO_BOUNDS.maxActiveWeight} are active at once: deactivate a scenario first (DELETE /__admin/scenarios/{name})`,
    },
  ]);
}

/** Scenarios named in X-Shipmock-Scenario are matched on top of the active ones: together they keep to the same bound. */
function checkHeaderWeight(weight: number): void {
  if (weight <= SCENARIO_BOUNDS.maxActiveWeight) return;
  throw new ProblemError('validation-error', {
    detail: `X-Shipmock-Scenario names scenarios whose patterns weigh ${weight} units together; at most ${SCENARIO_BOUNDS.maxActiveWeight} per request`,
    violations: [{ field: 'header/X-Shipmock-Scenario', message: `names scenarios weighing ${weight} pattern units; at most ${SCENARIO_BOUNDS.maxActiveWeight} together` }],
  });
}

const inScope = (activation: Activation, accountId: string | undefined) => !activation.accountId || activation.accountId === accountId;

/** Every request rule of these activations (in order) that fires for the request in this phase. */
function requestEffects(activations: readonly Activation[], facts: RequestFacts, phase: 'request' | 'body', fire: (rule: RuleState) => Effect | 'pass' | undefined): FiredEffect[] {
  const out: FiredEffect[] = [];
  const request = { method: facts.method, path: facts.path, queryKey: canonicalQuery(facts.query ?? {}), operationId: facts.operationId };
  for (const activation of activations) {
    for (const rule of activation.requestRules[phase].candidates(request)) {
      if (!rule.match.request(facts)) continue;
      const effect = fire(rule);
      if (effect && effect !== 'pass') out.push(fired(activation, rule, effect));
    }
  }
  return out;
}

/** The first domain rule of this kind, in scope, that fires; a `pass` step of a sequence stops the search. */
function domainEffect(active: readonly Activation[], kind: DomainKind, facts: DomainFacts, fire: (rule: RuleState) => Effect | 'pass' | undefined): FiredEffect | undefined {
  for (const activation of active) {
    if (!inScope(activation, facts.accountId)) continue;
    for (const rule of activation.rules) {
      if (rule.kind !== kind || !rule.match.domain(facts)) continue;
      const effect = fire(rule);
      if (effect === 'pass') return undefined;
      if (effect) return fired(activation, rule, effect);
    }
  }
  return undefined;
}

/**
 * A header activation is built per caller (up to MAX_HEADER_ACTIVATIONS of them): only a
 * scenario within the hand-written bounds may be named, never a recording of thousands of rules.
 */
function withinHeaderBounds(definition: ScenarioDefinition): ScenarioDefinition {
  if (definition.rules.length <= SCENARIO_BOUNDS.maxRules) return definition;
  throw new ScenarioError(`${definition.name} is a recorded scenario of ${definition.rules.length} rules: activate it over the control plane (POST /__admin/scenarios, --scenario), not with X-Shipmock-Scenario`);
}

/** The engine's state part: active scenarios and their counters (src/store/state-registry.ts). */
function registerScenarios(parts: StateRegistry, engine: ScenarioEngine): void {
  parts.register({
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
}
