import { readFileSync, writeFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { loadContract } from '../contract/load-contract.js';
import { createRouteMatcher } from '../contract/route-matcher.js';
import { HarError } from '../recording/har.js';
import { harToScenario } from '../recording/har-to-scenario.js';
import { RecordingError, type AfterLast } from '../recording/to-scenario.js';
import { createScenarioLoader, ScenarioError } from '../scenarios/scenario-file.js';
import { oneOf, parseArgs, type FlagSpec } from './parse-args.js';

const FROM_HAR_FLAGS = {
  out: { type: 'string' },
  name: { type: 'string' },
  contract: { type: 'string' },
  'after-last': { type: 'string' },
  help: { type: 'boolean' },
} satisfies Record<string, FlagSpec>;

export const FROM_HAR_USAGE = `Usage: shipmock scenario from-har FILE [options]

Turns a HAR file (a browser's devtools or recordHar, another tool, GET /__admin/journal.har) into
a recorded scenario: each request of the contract's operations answered as recorded, repeated
requests in order (README, "Recorded answers"). Secrets are shortened; entries that are no
operation of the contract, have no answer or are not exact recordings are left out and listed.

  --out FILE             write the scenario here (JSON; default: standard output)
  --name NAME            the scenario's name (default: the file's name, kebab-cased)
  --after-last WHAT      after a rule's last recorded answer: last (keep answering it, default),
                         miss (let requests through to the mock), cycle (start again)
  --contract FILE        the OpenAPI contract whose operations are kept (default: the bundled one)

Then: shipmock serve --scenario FILE, or POST it to /__admin/scenarios.
Exit status: 0 written, 2 bad usage or a HAR that cannot be read (each bad field named).
`;

const SCENARIO_USAGE = `Usage: shipmock scenario <command>

  from-har FILE    a HAR file as a recorded scenario (--help for more)
`;

/** `shipmock scenario …`: scenario file tools (from-har). */
export async function scenarioCommand(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'from-har') return fromHar(rest);
  if (command === undefined || command === '--help' || command === 'help') {
    process.stdout.write(SCENARIO_USAGE);
    return;
  }
  throw new Error(`unknown scenario command ${command}; commands: from-har (try: shipmock scenario from-har --help)`);
}

function fromHar(argv: string[]): void {
  const { flags, positionals } = parseArgs(argv, FROM_HAR_FLAGS);
  if (flags.help) {
    process.stdout.write(FROM_HAR_USAGE);
    return;
  }
  if (positionals.length !== 1) throw new Error(`scenario from-har needs one HAR file (got ${positionals.length}); see shipmock scenario from-har --help`);
  const file = positionals[0];
  const afterLast = oneOf('--after-last', flags['after-last'], ['last', 'miss', 'cycle'] as const) as AfterLast | undefined;
  const name = flags.name ?? kebab(basename(file, extname(file)));
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(name)) throw new Error(`--name ${name.slice(0, 80)} is not a scenario name (kebab-case, at most 64 characters)`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  let har: unknown;
  try {
    har = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new Error(`${file} is not JSON (a HAR file is): ${(error as Error).message}`);
  }
  const routes = createRouteMatcher(loadContract(flags.contract).operations);
  const operationOf = (method: string, path: string) => {
    const match = routes.match(method, path);
    return match.kind === 'operation' ? match.operation.operationId : undefined;
  };
  let converted: ReturnType<typeof harToScenario>;
  try {
    converted = harToScenario(har, { name, source: basename(file), operationOf, afterLast });
  } catch (error) {
    if (error instanceof HarError || error instanceof RecordingError) {
      throw new Error(`${file}: ${error.message}`);
    }
    throw error;
  }
  // The scenario is checked as `serve --scenario` will read it, so a file written here always loads.
  try {
    createScenarioLoader().parse(converted.scenario, { source: file });
  } catch (error) {
    if (error instanceof ScenarioError) throw new Error(`${file} became a scenario the mock would refuse: ${error.message}`);
    throw error;
  }
  const out = `${JSON.stringify(converted.scenario, null, 2)}\n`;
  if (flags.out) writeFileSync(flags.out, out);
  else process.stdout.write(out);
  const report = [
    `${file}: ${converted.exchanges} exchanges → ${converted.scenario.rules.length} rules${flags.out ? ` in ${flags.out}` : ''}`,
    ...converted.scenario.rules.filter((r) => r.recorded?.conforms === false).map((r) => `  ${r.name}: a recorded answer breaks the contract (${r.recorded!.violations?.[0]?.field ?? '?'} ${r.recorded!.violations?.[0]?.message ?? ''})`),
    ...(converted.skipped.length ? [`left out ${converted.skipped.length} entries:`, ...converted.skipped.slice(0, 20).map((s) => `  entry ${s.entry}: ${s.reason}`)] : []),
    ...(converted.skipped.length > 20 ? [`  … and ${converted.skipped.length - 20} more`] : []),
  ];
  process.stderr.write(`${report.join('\n')}\n`);
}

function kebab(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return name || 'har';
}
