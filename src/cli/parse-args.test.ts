import { describe, expect, it } from 'vitest';
import { oneOf, parseArgs, portOf, wholeNumberOf, type FlagSpec } from './parse-args.js';

const SPEC = {
  port: { type: 'number' },
  host: { type: 'string' },
  stateless: { type: 'boolean' },
  scenario: { type: 'string', repeatable: true },
  retries: { type: 'number', repeatable: true },
} satisfies Record<string, FlagSpec>;

describe('parseArgs', () => {
  it('reads --name value, --name=value, booleans, numbers and positionals', () => {
    const { flags, positionals } = parseArgs(['serve', '--port', '4010', '--host=0.0.0.0', '--stateless', 'extra'], SPEC);
    expect(flags).toEqual({ port: 4010, host: '0.0.0.0', stateless: true });
    expect(positionals).toEqual(['serve', 'extra']);
  });

  it('collects repeatable flags into arrays, in order, and lets the last one win otherwise', () => {
    const { flags } = parseArgs(['--scenario', 'a', '--scenario=b', '--retries', '1', '--retries', '2', '--port', '1', '--port', '2'], SPEC);
    expect(flags).toEqual({ scenario: ['a', 'b'], retries: [1, 2], port: 2 });
  });

  it('accepts --flag=false and --flag=true for booleans', () => {
    expect(parseArgs(['--stateless=false'], SPEC).flags).toEqual({ stateless: false });
    expect(parseArgs(['--stateless=true'], SPEC).flags).toEqual({ stateless: true });
  });

  it('keeps a value with = and spaces whole', () => {
    expect(parseArgs(['--host=a=b c'], SPEC).flags).toEqual({ host: 'a=b c' });
  });

  it('refuses unknown flags, missing values and non-numbers with the flag’s name', () => {
    expect(() => parseArgs(['--prot', '1'], SPEC)).toThrow('unknown flag --prot');
    expect(() => parseArgs(['--port'], SPEC)).toThrow('--port needs a value');
    expect(() => parseArgs(['--port', 'ten'], SPEC)).toThrow('--port needs a number, got ten');
    expect(() => parseArgs(['--retries', '1', '--retries', 'x'], SPEC)).toThrow('--retries needs a number, got x');
  });

  it('takes a negative number after a number flag as its value (for the flag’s own range check), and nothing else that starts with -', () => {
    expect(parseArgs(['--port', '-1'], SPEC).flags).toEqual({ port: -1 });
    expect(parseArgs(['--retries', '-0.5', '--retries', '2'], SPEC).flags).toEqual({ retries: [-0.5, 2] });
    expect(() => parseArgs(['--port', '-Infinity'], SPEC)).toThrow('--port needs a number, got -Infinity');
    expect(() => parseArgs(['--port', '--host', 'x'], SPEC)).toThrow('--port needs a value');
    expect(() => parseArgs(['--host', '-1'], SPEC)).toThrow('--host needs a value');
  });
});

describe('portOf', () => {
  it('passes 0 to 65535 and the default when absent, and names the flag otherwise', () => {
    expect(portOf('--port', undefined, 4010)).toBe(4010);
    expect(portOf('--port', 0, 4010)).toBe(0);
    expect(portOf('--webhook-port', 65535)).toBe(65535);
    expect(portOf('--webhook-port', undefined)).toBeUndefined();
    for (const bad of [-1, 65536, 1.5]) expect(() => portOf('--mock-port', bad, 0)).toThrow(`--mock-port must be a whole number from 0 (any free port) to 65535 (got ${bad})`);
  });
});

describe('wholeNumberOf', () => {
  it('passes whole numbers from its minimum and nothing when absent, and names the flag otherwise', () => {
    expect(wholeNumberOf('--seed', -7)).toBe(-7);
    expect(wholeNumberOf('--seed', undefined)).toBeUndefined();
    expect(wholeNumberOf('--max-connections', 1, { min: 1 })).toBe(1);
    expect(() => wholeNumberOf('--seed', 1.5)).toThrow('--seed must be a whole number (got 1.5)');
    expect(() => wholeNumberOf('--max-connections', 0, { min: 1 })).toThrow('--max-connections must be a whole number of at least 1 (got 0)');
  });
});

describe('oneOf', () => {
  it('passes a listed word or nothing, and names the flag and the words otherwise', () => {
    expect(oneOf('--log-format', 'json', ['pretty', 'json'])).toBe('json');
    expect(oneOf('--log-format', undefined, ['pretty', 'json'])).toBeUndefined();
    expect(() => oneOf('--unhandled', 'maybe', ['prism', 'error'])).toThrow('--unhandled must be prism or error (got maybe)');
    expect(() => oneOf('--level', 'x', ['a', 'b', 'c'])).toThrow('--level must be a, b or c (got x)');
  });
});
