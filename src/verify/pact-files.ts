import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** The parts of a (V3/V4) pact file the verification harness reads. */
export interface PactInteraction {
  description: string;
  type?: string;
  providerStates?: { name: string; params?: Record<string, unknown> }[];
  providerState?: string;
  [key: string]: unknown;
}

export interface PactFile {
  path: string;
  consumer: string;
  provider: string;
  interactions: PactInteraction[];
  raw: Record<string, unknown>;
}

/**
 * The provider states an interaction needs, in order (V3 `providerStates` or V2 `providerState`).
 * @example statesOf(interaction) // [{ name: 'an address exists', params: { countryCode: 'DE' } }]
 */
export function statesOf(interaction: PactInteraction): { name: string; params: Record<string, unknown> }[] {
  if (interaction.providerStates?.length) return interaction.providerStates.map((s) => ({ name: s.name, params: s.params ?? {} }));
  return interaction.providerState ? [{ name: interaction.providerState, params: {} }] : [];
}

/** @example isMessageInteraction({ description: 'x', type: 'Asynchronous/Messages' }) // true */
export function isMessageInteraction(interaction: PactInteraction): boolean {
  return typeof interaction.type === 'string' && interaction.type.includes('Messages');
}

/**
 * Reads pact files from paths (files or directories of *.json), optionally only those of
 * one provider.
 * @example readPactFiles(['pacts'], 'ShippingPlatformAPI')
 */
export function readPactFiles(paths: string[], provider?: string): PactFile[] {
  const files = paths.flatMap((path) =>
    statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => name.endsWith('.json'))
          .sort()
          .map((name) => join(path, name))
      : [path],
  );
  return files
    .map((path) => {
      const raw = JSON.parse(readFileSync(path, 'utf8')) as { consumer?: { name?: string }; provider?: { name?: string }; interactions?: unknown[]; messages?: unknown[] } & Record<string, unknown>;
      return {
        path,
        consumer: String(raw.consumer?.name ?? ''),
        provider: String(raw.provider?.name ?? ''),
        interactions: (raw.interactions ?? raw.messages ?? []) as PactInteraction[],
        raw,
      };
    })
    .filter((pact) => !provider || pact.provider === provider);
}

/**
 * Copies pact files without the interactions `keep` rejects into a temp directory (skipped
 * interactions must not reach the verifier at all, or they would count as failures).
 * Files left empty are dropped.
 * @example writeFilteredPacts(readPactFiles(['pacts']), (_pact, i) => !i.description.includes('expired'))
 */
export function writeFilteredPacts(pacts: PactFile[], keep: (pact: PactFile, interaction: PactInteraction) => boolean): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-verify-'));
  const out: string[] = [];
  for (const pact of pacts) {
    const interactions = pact.interactions.filter((i) => keep(pact, i));
    if (interactions.length === 0) continue;
    const key = Array.isArray(pact.raw.interactions) ? 'interactions' : 'messages';
    const path = join(dir, basename(pact.path));
    writeFileSync(path, JSON.stringify({ ...pact.raw, [key]: interactions }, null, 2));
    out.push(path);
  }
  return out;
}
