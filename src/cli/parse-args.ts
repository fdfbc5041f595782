import { parseArgs as parseNodeArgs, type ParseArgsConfig } from 'node:util';

/**
 * The CLI's flags: `--name value`, `--name=value`, boolean `--flag` (or `--flag=false`),
 * repeatable flags collected into arrays, numbers checked. Node's util.parseArgs does the
 * parsing; this adds numbers, `--flag=false`, typed results and the CLI's error messages.
 * Unknown flags are errors (typos must not pass).
 */
export interface FlagSpec {
  type: 'string' | 'number' | 'boolean';
  repeatable?: boolean;
}

type ValueOf<F extends FlagSpec> = F['type'] extends 'number' ? number : F['type'] extends 'boolean' ? boolean : string;

/** The parsed flags of a spec, each typed by its declaration; absent flags are undefined. */
export type ParsedFlags<S extends Record<string, FlagSpec>> = { [K in keyof S]?: S[K]['repeatable'] extends true ? ValueOf<S[K]>[] : ValueOf<S[K]> };

/**
 * @example parseArgs(['--port', '4010', '--scenario', 'a', '--scenario=b'], { port: { type: 'number' }, scenario: { type: 'string', repeatable: true } })
 * // { flags: { port: 4010, scenario: ['a', 'b'] }, positionals: [] }
 */
export function parseArgs<S extends Record<string, FlagSpec>>(argv: string[], spec: S): { flags: ParsedFlags<S>; positionals: string[] } {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, flag] of Object.entries(spec)) options[name] = { type: flag.type === 'boolean' ? 'boolean' : 'string', multiple: flag.repeatable ?? false };
  // util.parseArgs takes no value on a boolean option; `--flag=false` is a documented spelling here.
  const negated = new Set<string>();
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    // -h is what people type first; every command that has --help takes it too.
    if (arg === '-h' && spec.help?.type === 'boolean') {
      args.push('--help');
      continue;
    }
    // util.parseArgs reads `-1` after `--cache-size` as a flag and says the value is missing: a
    // negative number there is the value, and the flag's own check says what it takes.
    const bare = /^--([^=]+)$/.exec(arg)?.[1];
    if (bare !== undefined && spec[bare]?.type === 'number' && /^-(\d|\.\d|Infinity$)/.test(argv[i + 1] ?? '')) {
      args.push(`--${bare}=${argv[++i]}`);
      continue;
    }
    const match = /^--([^=]+)=(.*)$/s.exec(arg);
    if (!match || spec[match[1]]?.type !== 'boolean') args.push(arg);
    else if (match[2] !== 'false') args.push(`--${match[1]}`);
    else negated.add(match[1]);
  }
  let parsed: ReturnType<typeof parseNodeArgs>;
  try {
    parsed = parseNodeArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new Error(messageOf(error as Error & { code?: string }));
  }
  const flags: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    const flag = spec[name];
    flags[name] = flag.type === 'number' ? (Array.isArray(value) ? value.map((v) => toNumber(name, String(v))) : toNumber(name, String(value))) : value;
  }
  for (const name of negated) if (!(name in flags)) flags[name] = false;
  return { flags: flags as ParsedFlags<S>, positionals: parsed.positionals };
}

function toNumber(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number, got ${raw}`);
  return value;
}

/** util.parseArgs' errors in the CLI's words. */
function messageOf(error: Error & { code?: string }): string {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1] ?? '';
  const name = option.split(', ').pop() ?? option;
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown flag ${name}`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `${name} needs a value`;
  return error.message;
}

/**
 * A flag that takes one of a few words; anything else is an error naming the flag and the words.
 * @example oneOf('--log-format', flags['log-format'], ['pretty', 'json'] as const) // 'json' | 'pretty' | undefined
 */
export function oneOf<const Word extends string>(flag: string, value: string | undefined, words: readonly Word[]): Word | undefined {
  if (value === undefined || (words as readonly string[]).includes(value)) return value as Word | undefined;
  throw new Error(`${flag} must be ${words.slice(0, -1).join(', ')}${words.length > 1 ? ' or ' : ''}${words[words.length - 1]} (got ${value})`);
}

/** npm's own settings whose names shipmock's flags share: set in an .npmrc, they are not a swallowed flag. */
const NPM_OWN_SETTINGS = new Set(['cert', 'key', 'help']);

/**
 * Flags npm kept for itself when a script ran as `npm start --port 4011` (without `--`): npm reads
 * `--port` as its own setting and passes it on only as the environment variable npm_config_port
 * (`true`, the value then arriving as a bare argument; or the value, for `--port=4011`).
 * Only under an npm script (npm_lifecycle_event set), where such a variable comes from the command line.
 * @example flagsTakenByNpm({ npm_lifecycle_event: 'start', npm_config_port: 'true' }, ['port', 'seed']) // [{ flag: 'port', value: 'true' }]
 */
export function flagsTakenByNpm(env: NodeJS.ProcessEnv, flags: readonly string[]): { flag: string; value: string }[] {
  if (!env.npm_lifecycle_event) return [];
  return flags.filter((flag) => !NPM_OWN_SETTINGS.has(flag)).flatMap((flag) => {
    const value = env[`npm_config_${flag.replace(/-/g, '_')}`];
    return value === undefined ? [] : [{ flag, value }];
  });
}

/**
 * A whole-number flag's value, within `range` when one is given, else an error naming the flag
 * and the range (`lowest` says what the lowest value means): a fractional --seed drew the same
 * data as its whole part, and --max-connections' and --port's own checks named the option field.
 * @example wholeNumberOf('--max-connections', flags['max-connections'], { min: 1 })
 */
export function wholeNumberOf(flag: string, value: number | undefined, range: { min?: number; max?: number; lowest?: string } = {}): number | undefined {
  if (value === undefined) return undefined;
  const { min, max, lowest } = range;
  if (Number.isSafeInteger(value) && (min === undefined || value >= min) && (max === undefined || value <= max)) return value;
  const from = min === undefined ? '' : `${min}${lowest ? ` (${lowest})` : ''}`;
  const within = max !== undefined ? ` from ${from} to ${max}` : min !== undefined ? ` of at least ${from}` : '';
  throw new Error(`${flag} must be a whole number${within} (got ${value})`);
}

/**
 * A port flag's value: a whole number from 0 (any free port) to 65535.
 * @example portOf('--port', flags.port, 4010) // 4010 when absent
 */
export function portOf(flag: string, value: number | undefined, fallback: number): number;
export function portOf(flag: string, value: number | undefined): number | undefined;
export function portOf(flag: string, value: number | undefined, fallback?: number): number | undefined {
  return wholeNumberOf(flag, value, { min: 0, max: 65535, lowest: 'any free port' }) ?? fallback;
}
