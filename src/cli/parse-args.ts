/**
 * Minimal flag parsing for the CLI: `--name value`, `--name=value`, boolean `--flag`,
 * repeatable flags collected into arrays. Unknown flags are errors (typos must not pass).
 */
export interface FlagSpec {
  type: 'string' | 'number' | 'boolean';
  repeatable?: boolean;
}

export function parseArgs(argv: string[], spec: Record<string, FlagSpec>): { flags: Record<string, any>; positionals: string[] } {
  const flags: Record<string, any> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const flag = spec[name];
    if (!flag) throw new Error(`unknown flag --${name}`);
    let value: any;
    if (flag.type === 'boolean') value = eq === -1 ? true : arg.slice(eq + 1) !== 'false';
    else {
      const raw = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (raw === undefined) throw new Error(`--${name} needs a value`);
      value = flag.type === 'number' ? Number(raw) : raw;
      if (flag.type === 'number' && !Number.isFinite(value)) throw new Error(`--${name} needs a number, got ${raw}`);
    }
    if (flag.repeatable) (flags[name] ??= []).push(value);
    else flags[name] = value;
  }
  return { flags, positionals };
}
