import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CONSUMER, PACT_DIR, PROVIDER, WEBHOOK_CONSUMER } from './pact.js';

/**
 * Pact merges new interactions into an existing pact file, so an interaction deleted from a
 * test would live on in pacts/. The consumer run therefore starts from empty files: what it
 * writes is exactly what the tests describe, and the provider project's drift check compares
 * that with the committed copy.
 */
export default function removeStalePacts(): void {
  mkdirSync(PACT_DIR, { recursive: true });
  for (const consumer of [CONSUMER, WEBHOOK_CONSUMER]) rmSync(join(PACT_DIR, `${consumer}-${PROVIDER}.json`), { force: true });
}
