import { diffInputs } from '../contract-diff/diff.js';
import { DIFF_FORMATS, renderReport } from '../contract-diff/render.js';
import { readRulesFile } from '../contract-diff/rules-file.js';
import { severityOf, type ChangeClass } from '../contract-diff/rules.js';
import { oneOf, parseArgs, type FlagSpec } from './parse-args.js';

const DIFF_FLAGS = {
  format: { type: 'string' },
  'fail-on': { type: 'string' },
  rules: { type: 'string' },
  help: { type: 'boolean' },
} satisfies Record<string, FlagSpec>;

export const CONTRACT_DIFF_USAGE = `Usage: shipmock contract diff OLD NEW [options]

Every change between two OpenAPI 3.1 contracts, classified for a client as breaking, may-break
or safe, with the operation, where in it, the JSON pointer and a one-line reason
(the rules: docs/contract-diff.md).

OLD and NEW are each
  a file                    contract/openapi.yaml (YAML or JSON; $refs to other files are read too)
  a URL                     http://127.0.0.1:4010 (a running shipmock serves its contract at /openapi.json)
  a git revision            git:REV:PATH, e.g. git:origin/main:contract/openapi.yaml (read with git show;
                            $refs to other files are read from the same revision)

  --format text|json|markdown   text for people (default), JSON for tools, Markdown for a pull-request comment
  --fail-on CLASS               breaking|may-break|never: exit 1 when a change of that class or worse
                                is found (default breaking)
  --rules FILE                  YAML/JSON file that sets rules' classes, e.g.
                                rules: { response-enum-widened: safe }

Exit status: 0 nothing at or above --fail-on, 1 something is, 2 bad usage or an unreadable input.
`;

const CONTRACT_USAGE = `Usage: shipmock contract <command>

  diff OLD NEW    what changed between two contract versions, and what breaks clients (--help for more)
`;

/** `shipmock contract …`: the contract subcommands (diff). */
export async function contractCommand(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'diff') return contractDiff(rest);
  if (command === undefined || command === '--help' || command === 'help') {
    process.stdout.write(CONTRACT_USAGE);
    return;
  }
  throw new Error(`unknown contract command ${command}; commands: diff (try: shipmock contract diff --help)`);
}

async function contractDiff(argv: string[]): Promise<void> {
  const { flags, positionals } = parseArgs(argv, DIFF_FLAGS);
  if (flags.help) {
    process.stdout.write(CONTRACT_DIFF_USAGE);
    return;
  }
  if (positionals.length !== 2) throw new Error(`contract diff needs two contracts, OLD and NEW (got ${positionals.length}); see shipmock contract diff --help`);
  const format = oneOf('--format', flags.format, DIFF_FORMATS) ?? 'text';
  const failOn = oneOf('--fail-on', flags['fail-on'], ['breaking', 'may-break', 'never'] as const) ?? 'breaking';
  const overrides = flags.rules ? readRulesFile(flags.rules) : {};
  const report = await diffInputs(positionals[0], positionals[1], { overrides });
  process.stdout.write(renderReport(report, format));
  process.exitCode = failOn !== 'never' && report.changes.some((c) => severityOf(c.class) >= severityOf(failOn as ChangeClass)) ? 1 : 0;
}
