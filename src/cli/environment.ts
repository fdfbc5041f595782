import { parseArgs, type FlagSpec, type ParsedFlags } from './parse-args.js';

/**
 * Configuration by environment, as containers expect it: every flag of a command has a variable
 * SHIPMOCK_<FLAG_IN_UPPER_SNAKE> (`--admin-key` → SHIPMOCK_ADMIN_KEY), derived from the command's
 * own flag list, so a flag added there gets its variable without anyone writing it down.
 * A flag given on the command line wins over its variable (a repeatable flag's values replace the
 * variable's, they are not added to them). An empty variable counts as unset, as compose's
 * `${VAR:-}` produces one.
 *  - boolean   true/false (also 1/0, yes/no, on/off)
 *  - repeatable  a comma list, one value per item (SHIPMOCK_SCENARIO=a,b is --scenario a --scenario b)
 *  - number, string  the value as given on the command line
 * A SHIPMOCK_* variable that names no flag is reported as a warning (a typo must not pass
 * silently), not an error: the same environment may serve several versions of shipmock.
 */
export const ENVIRONMENT_PREFIX = 'SHIPMOCK_';

/**
 * SHIPMOCK_* variables that are not flags of `serve` and must not be reported: the disk cache,
 * the worker number and admin key node:cluster workers get, `shipmock verify`'s own, compose.yaml's
 * (images, ports, the database password) and the test suite's.
 */
const OTHER_VARIABLES = [/^SHIPMOCK_CACHE_DIR$/, /^SHIPMOCK_WORKER(_ADMIN_KEY)?$/, /^SHIPMOCK_VERIFY_/, /^SHIPMOCK_TEST_/, /^SHIPMOCK_CHROMIUM$/, /^SHIPMOCK_CRASH_SEED$/, /^SHIPMOCK_ISOLATION_REPORT$/, /^SHIPMOCK_(IMAGE|POSTGRES_IMAGE|POSTGRES_PASSWORD|PUBLISH_PORT|REPLICA_PUBLISH_PORT)$/];

/** Flags that make no sense as configuration. */
const NOT_FROM_ENVIRONMENT = new Set(['help']);

/**
 * @example environmentName('admin-key') // 'SHIPMOCK_ADMIN_KEY'
 */
export function environmentName(flag: string): string {
  return ENVIRONMENT_PREFIX + flag.toUpperCase().replace(/-/g, '_');
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

export interface EnvironmentFlags<S extends Record<string, FlagSpec>> {
  /** The command line's flags over the environment's. */
  flags: ParsedFlags<S>;
  /** Flag name → the variable its value came from, for flags the command line did not give. */
  fromEnvironment: Map<string, string>;
  /** One line per SHIPMOCK_* variable that names no flag. */
  warnings: string[];
}

/**
 * Merges the SHIPMOCK_* variables of `env` under the flags already parsed from the command line.
 * A bad value is an error naming the variable.
 *
 * @example withEnvironment({ port: 4011 }, SERVE_FLAGS, { SHIPMOCK_PORT: '4010', SHIPMOCK_SEED: '7' })
 * // { flags: { port: 4011, seed: 7 }, fromEnvironment: Map { 'seed' => 'SHIPMOCK_SEED' }, warnings: [] }
 */
export function withEnvironment<S extends Record<string, FlagSpec>>(flags: ParsedFlags<S>, spec: S, env: NodeJS.ProcessEnv): EnvironmentFlags<S> {
  const merged: Record<string, unknown> = { ...flags };
  const fromEnvironment = new Map<string, string>();
  const byVariable = new Map(
    Object.keys(spec)
      .filter((name) => !NOT_FROM_ENVIRONMENT.has(name))
      .map((name) => [environmentName(name), name]),
  );
  for (const [variable, name] of byVariable) {
    const raw = env[variable];
    if (raw === undefined || raw.trim() === '' || merged[name] !== undefined) continue;
    merged[name] = valueOf(name, spec[name], variable, raw);
    fromEnvironment.set(name, variable);
  }
  const warnings = Object.keys(env)
    .filter((variable) => variable.startsWith(ENVIRONMENT_PREFIX) && !byVariable.has(variable) && !OTHER_VARIABLES.some((known) => known.test(variable)))
    .sort()
    .map((variable) => `${variable} is not a shipmock setting and is ignored (the variables are the flags of shipmock serve --help, e.g. SHIPMOCK_PORT)`);
  return { flags: merged as ParsedFlags<S>, fromEnvironment, warnings };
}

function valueOf(name: string, flag: FlagSpec, variable: string, raw: string): unknown {
  if (flag.type === 'boolean') {
    const word = raw.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    throw new Error(`${variable} must be true or false (got ${raw})`);
  }
  const values = flag.repeatable ? raw.split(/[,\n]/).map((item) => item.trim()).filter(Boolean) : [raw];
  try {
    // The command line's own parsing (numbers, messages), one flag at a time.
    const { flags } = parseArgs(
      values.map((value) => `--${name}=${value}`),
      { [name]: flag },
    );
    return flags[name];
  } catch (error) {
    throw new Error(`${variable}: ${(error as Error).message}`);
  }
}

/**
 * Says where a value came from when an error names a flag the environment set:
 * "--log-format must be pretty or json (got xml)" → "… (from SHIPMOCK_LOG_FORMAT)".
 */
export function blameEnvironment(error: unknown, fromEnvironment: Map<string, string>): unknown {
  if (!(error instanceof Error)) return error;
  const flag = /--([a-z][a-z0-9-]*)/.exec(error.message)?.[1];
  const variable = flag === undefined ? undefined : fromEnvironment.get(flag);
  if (variable !== undefined && !error.message.includes(variable)) error.message += ` (from ${variable})`;
  return error;
}

interface UsageEntry {
  flags: string[];
  /** Flag → its placeholder (`--port N` → N). */
  values: Map<string, string>;
  text: string;
}

/** A command's --help text as entries: the flags a line names, its placeholder, its description. */
function usageEntries(usage: string): UsageEntry[] {
  const entries: UsageEntry[] = [];
  for (const line of usage.split('\n')) {
    if (line.startsWith('  --')) {
      // `--flag PLACEHOLDER [--flag PLACEHOLDER] description`; placeholders are upper case or a URL.
      const words = line.trim().split(/\s+/);
      const entry: UsageEntry = { flags: [], values: new Map(), text: '' };
      while (words[0]?.startsWith('--')) {
        const flag = words.shift()!.slice(2);
        entry.flags.push(flag);
        if (words[0] && /^([A-Z]|[a-z]+:\/\/)/.test(words[0])) entry.values.set(flag, words.shift()!);
      }
      entry.text = words.join(' ');
      entries.push(entry);
    } else if (/^ {4,}\S/.test(line) && entries.length) {
      const last = entries[entries.length - 1];
      last.text = `${last.text} ${line.trim()}`.trim();
    }
  }
  return entries;
}

/**
 * The README's table of variables: one row per flag of `spec`, its meaning from the command's
 * --help text. A test keeps the README's copy equal to it.
 */
export function environmentTable(spec: Record<string, FlagSpec>, usage: string): string {
  const entries = usageEntries(usage);
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const rows = Object.entries(spec)
    .filter(([name]) => !NOT_FROM_ENVIRONMENT.has(name))
    .map(([name, flag]) => {
      const own = entries.filter((entry) => entry.flags.includes(name));
      const placeholder = own.map((entry) => entry.values.get(name) ?? '').filter(Boolean);
      const value = flag.type === 'boolean' ? 'true / false' : flag.repeatable ? `${placeholder[0] ?? 'VALUE'},… (comma list)` : placeholder.join(' or ') || 'VALUE';
      const text = own.map((entry) => entry.text).join(' Or: ') || '(see shipmock serve --help)';
      return `| \`${environmentName(name)}\` | \`--${name}\` | ${cell(value)} | ${cell(text)} |`;
    });
  return ['| Variable | Flag | Value | Meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
