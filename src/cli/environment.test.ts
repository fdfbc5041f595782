import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { blameEnvironment, environmentName, environmentTable, withEnvironment } from './environment.js';
import { SERVE_FLAGS, USAGE } from './main.js';
import { parseArgs, type FlagSpec } from './parse-args.js';

const SPEC = {
  port: { type: 'number' },
  'admin-key': { type: 'string' },
  stateless: { type: 'boolean' },
  scenario: { type: 'string', repeatable: true },
  'journal-size': { type: 'number' },
  help: { type: 'boolean' },
} satisfies Record<string, FlagSpec>;

const fromCommandLine = (argv: string[]) => parseArgs(argv, SPEC).flags;

describe('configuration by environment', () => {
  it('names every flag SHIPMOCK_<FLAG_IN_UPPER_SNAKE>', () => {
    expect(environmentName('port')).toBe('SHIPMOCK_PORT');
    expect(environmentName('admin-key')).toBe('SHIPMOCK_ADMIN_KEY');
    expect(environmentName('address-rate-limit')).toBe('SHIPMOCK_ADDRESS_RATE_LIMIT');
  });

  it('reads each type as the command line would: numbers checked, strings whole, booleans as words, lists by comma', () => {
    const { flags, fromEnvironment } = withEnvironment(fromCommandLine([]), SPEC, {
      SHIPMOCK_PORT: '4011',
      SHIPMOCK_ADMIN_KEY: 'a key=with, commas',
      SHIPMOCK_STATELESS: 'yes',
      SHIPMOCK_SCENARIO: 'carrier-outage, slow-labels\nthird',
    });
    expect(flags).toEqual({ port: 4011, 'admin-key': 'a key=with, commas', stateless: true, scenario: ['carrier-outage', 'slow-labels', 'third'] });
    expect([...fromEnvironment]).toEqual([
      ['port', 'SHIPMOCK_PORT'],
      ['admin-key', 'SHIPMOCK_ADMIN_KEY'],
      ['stateless', 'SHIPMOCK_STATELESS'],
      ['scenario', 'SHIPMOCK_SCENARIO'],
    ]);
    for (const [word, value] of [['true', true], ['1', true], ['ON', true], ['false', false], ['0', false], ['no', false], ['off', false]] as const) {
      expect(withEnvironment({}, SPEC, { SHIPMOCK_STATELESS: word }).flags.stateless).toBe(value);
    }
  });

  it('lets the command line win, a repeatable flag replacing the variable’s values and --flag=false a true variable', () => {
    const env = { SHIPMOCK_PORT: '4011', SHIPMOCK_SCENARIO: 'a,b', SHIPMOCK_STATELESS: 'true', SHIPMOCK_JOURNAL_SIZE: '50' };
    const { flags, fromEnvironment } = withEnvironment(fromCommandLine(['--port', '5000', '--scenario', 'c', '--stateless=false']), SPEC, env);
    expect(flags).toEqual({ port: 5000, scenario: ['c'], stateless: false, 'journal-size': 50 });
    expect([...fromEnvironment.keys()]).toEqual(['journal-size']);
  });

  it('treats an empty variable as unset', () => {
    expect(withEnvironment({}, SPEC, { SHIPMOCK_ADMIN_KEY: '', SHIPMOCK_PORT: '  ' }).flags).toEqual({});
  });

  it('rejects a bad value naming the variable', () => {
    expect(() => withEnvironment({}, SPEC, { SHIPMOCK_PORT: 'eighty' })).toThrow('SHIPMOCK_PORT: --port needs a number, got eighty');
    expect(() => withEnvironment({}, SPEC, { SHIPMOCK_STATELESS: 'maybe' })).toThrow('SHIPMOCK_STATELESS must be true or false (got maybe)');
    // A bad value the command line gives instead is not the environment's to judge.
    expect(withEnvironment(fromCommandLine(['--port', '1']), SPEC, { SHIPMOCK_PORT: 'eighty' }).flags.port).toBe(1);
  });

  it('warns about a SHIPMOCK_* variable that names no flag, but not about the project’s other variables or other prefixes', () => {
    const { flags, warnings } = withEnvironment({}, SPEC, {
      SHIPMOCK_PROT: '4011',
      SHIPMOCK_HELP: 'true',
      SHIPMOCK_CACHE_DIR: '/tmp/c',
      SHIPMOCK_VERIFY_BASE_URL: 'http://x',
      SHIPMOCK_WORKER: '2',
      PORT: '1',
      shipmock_port: '2',
    });
    expect(flags).toEqual({});
    expect(warnings).toEqual([
      'SHIPMOCK_HELP is not a shipmock setting and is ignored (the variables are the flags of shipmock serve --help, e.g. SHIPMOCK_PORT)',
      'SHIPMOCK_PROT is not a shipmock setting and is ignored (the variables are the flags of shipmock serve --help, e.g. SHIPMOCK_PORT)',
    ]);
  });

  it('adds the variable to an error about a flag it set, and only then', () => {
    const fromEnvironment = new Map([['log-format', 'SHIPMOCK_LOG_FORMAT']]);
    expect((blameEnvironment(new Error('--log-format must be pretty or json (got xml)'), fromEnvironment) as Error).message).toBe('--log-format must be pretty or json (got xml) (from SHIPMOCK_LOG_FORMAT)');
    expect((blameEnvironment(new Error('--port 4010 is in use'), fromEnvironment) as Error).message).toBe('--port 4010 is in use');
  });

  it('gives every flag of shipmock serve a variable (but --help), each documented in the --help text', () => {
    const table = environmentTable(SERVE_FLAGS, USAGE);
    const rows = table.split('\n').slice(2);
    expect(rows).toHaveLength(Object.keys(SERVE_FLAGS).length - 1);
    for (const name of Object.keys(SERVE_FLAGS).filter((flag) => flag !== 'help')) {
      const row = rows.find((line) => line.startsWith(`| \`${environmentName(name)}\` | \`--${name}\` |`));
      expect(row, name).toBeDefined();
      expect(row, `--${name} has no line in shipmock serve --help`).not.toContain('(see shipmock serve --help)');
    }
    expect(rows.find((line) => line.includes('`--port`'))).toBe('| `SHIPMOCK_PORT` | `--port` | N | port to listen on (default 4010; 0 picks a free port) |');
    expect(rows.find((line) => line.includes('`--stateless`'))).toContain('| true / false |');
    expect(rows.find((line) => line.includes('`--scenario`'))).toContain('| NAME\\|FILE,… (comma list) |');
  });

  it('is documented in the README by the table generated from the flag list (SHIPMOCK_TEST_UPDATE_README=1 rewrites it)', () => {
    const readmeUrl = new URL('../../README.md', import.meta.url);
    const readme = readFileSync(readmeUrl, 'utf8');
    const start = '<!-- environment-table:start (generated from shipmock serve\'s flags: src/cli/environment.test.ts) -->\n';
    const end = '\n<!-- environment-table:end -->';
    const from = readme.indexOf(start);
    const to = readme.indexOf(end, from);
    expect(from, 'README has no environment table markers').toBeGreaterThan(-1);
    const expected = environmentTable(SERVE_FLAGS, USAGE);
    if (process.env.SHIPMOCK_TEST_UPDATE_README === '1') writeFileSync(readmeUrl, readme.slice(0, from + start.length) + expected + readme.slice(to));
    else expect(readme.slice(from + start.length, to)).toBe(expected);
  });
});
