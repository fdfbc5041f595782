import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { MockState } from '../admin/state.js';
import { savedAsValue, type StateRegistry } from '../store/state-registry.js';

/**
 * --state-file: the state a mock loads at start (when the file exists) and saves on shutdown,
 * as readable JSON (GET /__admin/state plus the durable parts never exported). Not crash-safe: a
 * killed process saves nothing; --data is the durable store.
 * Beside the state the file keeps every durable part of the state registry that GET
 * /__admin/state never shows — the token signing secret, so tokens issued before a restart stay
 * valid after it — each under its part name (the secret under `tokenSecret`, as files always had it).
 */
export interface StateFile {
  state?: MockState;
  /** Part name → saved value, for the durable parts never exported. */
  parts: Record<string, unknown>;
}

/** The field a part is kept under in the file: its name, but the token secret's as earlier files had it. */
const fieldOf = (name: string) => (name === 'token-secret' ? 'tokenSecret' : name);

/** The durable parts a state file keeps beside the exported state. */
const keptBeside = (parts: StateRegistry) => parts.all().filter((part) => savedAsValue(part) && !part.exported);

export function readStateFile(path: string, parts: StateRegistry): StateFile {
  if (!existsSync(path)) return { parts: {} };
  let parsed: MockState & Record<string, unknown>;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`--state-file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const kept: Record<string, unknown> = {};
  for (const part of keptBeside(parts)) {
    const field = fieldOf(part.name);
    if (field in parsed) kept[part.name] = parsed[field];
    delete parsed[field];
  }
  return { state: parsed, parts: kept };
}

/** Gives the kept parts their saved values (a part may ignore one: --token-secret wins). */
export function restoreKeptParts(parts: StateRegistry, kept: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(kept)) parts.get(name)?.restore?.(value);
}

/**
 * Writes atomically (temp file, then rename): a crash mid-write never leaves half a state.
 * Mode 0600: the file holds client secrets, webhook secrets and the token secret.
 */
export function writeStateFile(path: string, state: MockState, parts: StateRegistry): void {
  const temp = `${path}.${process.pid}.tmp`;
  const kept = Object.fromEntries(keptBeside(parts).map((part) => [fieldOf(part.name), part.snapshot()]));
  writeFileSync(temp, `${JSON.stringify({ ...state, ...kept }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}
