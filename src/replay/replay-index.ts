import { recordedAnswer, isRecordedAnswer } from '../app/recorded-answer.js';
import type { Answer } from '../http/types.js';
import { ruleKey } from '../record/exchange-key.js';
import type { Effect, RespondEffect, ScenarioDefinition } from '../scenarios/model.js';

/** One recorded answer, ready to write, with the violations its rule was marked with (if it broke the contract). */
export interface ReplayAnswer extends Answer {
  violations?: { field: string; message: string }[];
}

/** The recorded answers of one request, in order; `pass` lets that turn through as a miss. */
export interface ReplayEntry {
  key: string;
  /** The rule's name in the scenario (operation, or method and path). */
  name: string;
  answers: (ReplayAnswer | 'pass')[];
  /** After the last answer: false — a miss; true — the answers again; `last` — the last one again (the rule's `repeat`). */
  repeat: boolean | 'last';
}

/**
 * A recorded scenario's answers by matching key (src/record/exchange-key.ts). A lookup is one
 * hash of the request and one Map read, whatever the recording's size.
 */
export interface ReplayIndex {
  lookup(key: string): ReplayEntry | undefined;
  /** Adds an answer after those of its key (a new entry when the key has none): a miss the upstream answered. */
  add(key: string, respond: RespondEffect, violations?: ReplayAnswer['violations']): void;
  /** Recorded answers held. */
  readonly size: number;
}

const answerOf = (respond: RespondEffect, violations?: ReplayAnswer['violations']): ReplayAnswer => ({ ...recordedAnswer(respond), ...(violations?.length ? { violations } : {}) });

/**
 * The index of a recorded scenario (`shipmock record`, `scenario from-har`): every rule that
 * matches one method, one literal path, an exact query and a body digest, and answers recorded
 * responses. A rule of another kind (a glob, a fault) has no place in a replay and is refused,
 * naming it: a replay answers exactly what was recorded.
 *
 * @example createReplayIndex(readReplayScenario('recordings/staging')).lookup(requestKey(request))
 */
export function createReplayIndex(scenario?: ScenarioDefinition): ReplayIndex {
  // An entry's answers are built (headers sorted out, the body serialised) when its request first
  // comes: a start serves its first answer without preparing all 10,000 of a large recording.
  const byKey = new Map<string, ReplayEntry | PendingEntry>();
  let size = 0;
  for (const [i, rule] of (scenario?.rules ?? []).entries()) {
    const key = ruleKey(rule.match);
    const steps: (Effect | 'pass')[] = rule.sequence ?? (rule.effect ? [rule.effect] : []);
    const recorded = steps.every((step) => step === 'pass' || (step.respond !== undefined && isRecordedAnswer(step.respond)));
    if (key === undefined || !recorded || steps.length === 0) {
      throw new Error(`rule ${i}${rule.name ? ` (${rule.name})` : ''} of ${scenario!.name} is not a recorded answer: a replay serves rules that match one method, one path, their query and body digest, and respond with a recorded status and body (shipmock record, scenario from-har)`);
    }
    const violations = rule.recorded?.conforms === false ? (rule.recorded.violations ?? []) : undefined;
    const existing = byKey.get(key) as PendingEntry | undefined;
    if (existing) existing.pending.push({ steps, violations });
    else byKey.set(key, { key, name: rule.name ?? key, pending: [{ steps, violations }], repeat: rule.repeat ?? false });
    size += steps.length;
  }
  /** The entry with its answers built (once). */
  const ready = (key: string): ReplayEntry | undefined => {
    const entry = byKey.get(key);
    if (!entry || !('pending' in entry)) return entry;
    const answers = entry.pending.flatMap(({ steps, violations }) => steps.map((step) => (step === 'pass' ? ('pass' as const) : answerOf(step.respond!, violations))));
    const built: ReplayEntry = { key: entry.key, name: entry.name, answers, repeat: entry.repeat };
    byKey.set(key, built);
    return built;
  };
  return {
    lookup: ready,
    add(key, respond, violations) {
      const entry = ready(key);
      if (entry) entry.answers.push(answerOf(respond, violations));
      else byKey.set(key, { key, name: key, answers: [answerOf(respond, violations)], repeat: false });
      size++;
    },
    get size() {
      return size;
    },
  };
}

/** An entry whose answers are not built yet: the recorded steps of its rules, in order. */
interface PendingEntry {
  key: string;
  name: string;
  pending: { steps: (Effect | 'pass')[]; violations?: ReplayAnswer['violations'] }[];
  repeat: boolean | 'last';
}
