import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../../src/logging/logger.js';
import { startMock, type RunningMock } from '../../../src/server/start-mock.js';
import { readPactFiles, type PactInteraction } from '../../../src/verify/pact-files.js';
import type { InteractionOutcome } from '../../../src/verify/run-verification.js';

export const PACT_DIR = fileURLToPath(new URL('../../../pacts', import.meta.url));

/**
 * shipmock as the provider under test: a real socket, no Prism fallback (an operation without a
 * stateful handler answers 501, so a missing family shows as exactly that, never as a lucky
 * generated answer), quiet logs.
 */
export function startProviderMock(): Promise<RunningMock> {
  return startMock({ port: 0, unhandled: 'error', logger: createLogger({ level: 'silent', format: 'json' }) });
}

/** Writes copies of the committed pacts that keep only the interactions `keep` accepts. */
export function pactSubset(keep: (interaction: PactInteraction) => boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-pact-subset-'));
  for (const pact of readPactFiles([PACT_DIR])) {
    const interactions = pact.interactions.filter(keep);
    if (interactions.length) writeFileSync(join(dir, basename(pact.path)), JSON.stringify({ ...pact.raw, interactions }, null, 2));
  }
  return dir;
}

/** An interaction that failed only because shipmock does not implement an operation it needs yet. */
export function blockedByMissingOperation(outcome: InteractionOutcome): boolean {
  return outcome.status === 'failed' && outcome.reasons.length > 0 && outcome.reasons.some((r) => /answered 501 \(not-implemented|but was 501/.test(r));
}

export const descriptionsOf = (outcomes: InteractionOutcome[]) => outcomes.map((o) => o.description).sort();
