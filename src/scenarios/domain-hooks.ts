import type { DomainFacts, TrackerOutcome, WebhookOutcome } from './model.js';
import type { ScenarioEngine } from './engine.js';
import { toMs } from './scenario-file.js';

/**
 * The questions domain code asks the scenario engine at the moments scenarios can change
 * (carrier calls have their own interceptor, carrier-faults.ts). Each answer is undefined when
 * no active scenario has a say, and the caller then does what it always does.
 */

/** quote-expiry: the validity of a quote batch created now, in ms. */
export function scenarioQuoteValidity(engine: ScenarioEngine, facts: DomainFacts): number | undefined {
  const validity = engine.evaluate('quote', facts)?.effect.quote?.validity;
  return validity === undefined ? undefined : toMs(validity);
}

/** tracker outcomes: where a tracker's journey should end instead of DELIVERED. */
export function scenarioTrackerOutcome(engine: ScenarioEngine, facts: DomainFacts): TrackerOutcome | undefined {
  return engine.evaluate('tracker', facts)?.effect.tracker?.outcome;
}

/** label rendering failure: the reason a label cannot be rendered now. */
export function scenarioLabelFailure(engine: ScenarioEngine, facts: DomainFacts): string | undefined {
  const fired = engine.evaluate('label', facts);
  if (!fired?.effect.label) return undefined;
  return fired.effect.label.reason ?? `The label could not be rendered (scenario ${fired.scenario}, ${fired.rule})`;
}

/** webhook faults: what happens to this delivery attempt instead of a normal POST. */
export function scenarioWebhookFault(engine: ScenarioEngine, facts: DomainFacts): { outcome: WebhookOutcome; status: number; origin: string } | undefined {
  const fired = engine.evaluate('webhook', facts);
  const effect = fired?.effect.webhook;
  if (!fired || !effect) return undefined;
  return { outcome: effect.outcome, status: effect.status ?? 503, origin: `scenario ${fired.scenario}, ${fired.rule}` };
}
