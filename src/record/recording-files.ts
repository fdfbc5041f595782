import { existsSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { exchangesToScenario, exchangeToHarEntry, harDocumentParts, harToExchanges, isHar, type Exchange } from '../recording/index.js';
import type { ScenarioDefinition } from '../scenarios/model.js';
import { createScenarioLoader } from '../scenarios/scenario-file.js';

/** The files of a recording folder: every exchange (HAR 1.2), and the scenario that answers them. */
export const HAR_FILE = 'recording.har';
export const SCENARIO_FILE = 'scenario.json';

/**
 * The exchanges a recording folder holds (its HAR file; none when the folder is new or empty),
 * secrets already shortened. A HAR that cannot be read is an error naming the file: a folder
 * is never silently started over.
 */
export function readFolderExchanges(dir: string): Exchange[] {
  const path = join(dir, HAR_FILE);
  if (!existsSync(path)) return [];
  try {
    return harToExchanges(JSON.parse(readFileSync(path, 'utf8'))).exchanges;
  } catch (error) {
    throw new Error(`${path} cannot be read as a recording (${(error as Error).message}); move it away, or record into another folder`);
  }
}

/** The scenario's name for a folder: its name in kebab-case (`recordings/Staging 2` → `recorded-staging-2`). */
export function scenarioNameOf(dir: string): string {
  const slug = basename(resolve(dir)).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return `recorded-${slug || 'folder'}`.slice(0, 64).replace(/-+$/, '');
}

/**
 * Writes a folder's HAR file and scenario from its exchanges, with the converter of
 * src/recording (every secret shortened there, before anything is written). Each file is written
 * beside its final name and renamed over it, so a crash leaves the previous files whole.
 * The scenario's rules let a request through after its last recorded answer (`afterLast: miss`):
 * a replay that runs out says so (`--on-miss`) instead of repeating itself.
 */
export function writeRecording(dir: string, exchanges: readonly Exchange[], options: { source?: string } = {}): void {
  if (exchanges.length === 0) return;
  const scenario = exchangesToScenario(exchanges, {
    name: scenarioNameOf(dir),
    description: `Recorded by shipmock record: ${exchanges.length} exchange(s). Replay with: shipmock serve --replay ${dir}`,
    source: options.source ?? 'shipmock record',
    afterLast: 'miss',
  });
  const { head, tail } = harDocumentParts('recorded by shipmock record');
  const har = `${head}${exchanges.map((exchange) => JSON.stringify(exchangeToHarEntry(exchange))).join(',')}${tail}`;
  writeAtomically(join(dir, HAR_FILE), har);
  writeAtomically(join(dir, SCENARIO_FILE), `${JSON.stringify(scenario, null, 1)}\n`);
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: 0o600 });
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // never written
    }
    throw error;
  }
}

/**
 * The recorded scenario `serve --replay` serves: a recording folder's scenario.json, a scenario
 * file (JSON or YAML, checked like any scenario), or a HAR file (converted as `shipmock record`
 * converts what it records).
 */
export function readReplayScenario(from: string): ScenarioDefinition {
  const path = statSync(from).isDirectory() ? join(from, SCENARIO_FILE) : from;
  if (!existsSync(path)) throw new Error(`--replay ${from}: the folder holds no ${SCENARIO_FILE}; record into it first (shipmock record --upstream URL --out ${from})`);
  const text = readFileSync(path, 'utf8');
  if (extname(path).toLowerCase() === '.har' || (text.trimStart().startsWith('{') && isHarText(text))) {
    const { exchanges } = harToExchanges(JSON.parse(text));
    return exchangesToScenario(exchanges, { name: scenarioNameOf(path.replace(/\.har$/i, '')), source: basename(path), afterLast: 'miss' });
  }
  return createScenarioLoader().parse(text, { source: `--replay ${path}` });
}

/** A quick look for a HAR's `"log"` without parsing a large scenario twice. */
function isHarText(text: string): boolean {
  if (!/^\s*\{\s*"log"\s*:/.test(text)) return false;
  try {
    return isHar(JSON.parse(text));
  } catch {
    return false;
  }
}
