import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { MockState } from '../admin/state.js';

/**
 * --state-file: the state a mock loads at start (when the file exists) and saves on shutdown,
 * as readable JSON (GET /__admin/state plus the token secret). Not crash-safe: a killed process
 * saves nothing; --data is the durable store.
 * Next to the state the file keeps the token signing secret (never part of GET /__admin/state),
 * so tokens issued before a restart stay valid after it.
 */
export interface StateFile {
  state?: MockState;
  tokenSecret: string;
}

export function readStateFile(path: string, tokenSecret?: string): StateFile {
  if (!existsSync(path)) return { tokenSecret: tokenSecret ?? randomBytes(32).toString('hex') };
  let parsed: MockState & { tokenSecret?: string };
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`--state-file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const { tokenSecret: saved, ...state } = parsed;
  return { state: state as MockState, tokenSecret: tokenSecret ?? saved ?? randomBytes(32).toString('hex') };
}

/**
 * Writes atomically (temp file, then rename): a crash mid-write never leaves half a state.
 * Mode 0600: the file holds client secrets, webhook secrets and the token secret.
 */
export function writeStateFile(path: string, state: MockState, tokenSecret: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ ...state, tokenSecret }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}
