import { isLoopbackHost } from '../admin/admin-access.js';
import type { ClockOptions } from '../clock/clock.js';
import type { FlagSpec } from './parse-args.js';

/** Flags of the QA control plane (README, section qa). */
export const CONTROL_PLANE_FLAGS: Record<string, FlagSpec> = {
  clock: { type: 'string' },
  'clock-start': { type: 'string' },
  scenario: { type: 'string', repeatable: true },
  'state-file': { type: 'string' },
  'admin-key': { type: 'string' },
  'journal-size': { type: 'number' },
};

export const CONTROL_PLANE_USAGE = `  --clock MODE             real|manual: wall time plus offset, or time that stands still until
                           advanced (POST /__admin/clock/advance) (default real)
  --clock-start ISO        virtual time at start (default: now; manual: 2026-01-01T00:00:00Z)
  --scenario NAME|FILE     activate a ready scenario (scenarios/NAME.yaml) or a scenario file
                           (repeatable)
  --state-file FILE        load this state at start when it exists, save to it on shutdown
  --admin-key KEY          the control plane (/__admin) requires X-Admin-Key: KEY; without it,
                           only callers on this machine may use it
  --journal-size N         requests kept in the journal (default 1000)
`;

export interface ControlPlaneFlags {
  clock?: ClockOptions;
  scenarios?: string[];
  stateFile?: string;
  adminKey?: string;
  journalSize?: number;
}

/** Maps the flags onto startMock options; a wrong value is an error naming the flag. */
export function controlPlaneOptions(flags: Record<string, any>): ControlPlaneFlags {
  const out: ControlPlaneFlags = {};
  const mode = flags.clock;
  if (mode !== undefined && mode !== 'real' && mode !== 'manual') throw new Error(`--clock must be real or manual (got ${mode})`);
  if (mode !== undefined || flags['clock-start'] !== undefined) {
    const start = flags['clock-start'];
    if (start !== undefined && !Number.isFinite(Date.parse(start))) throw new Error(`--clock-start must be an ISO 8601 date-time (got ${start})`);
    out.clock = { mode: mode ?? 'real', ...(start !== undefined ? { start } : {}) };
  }
  if (flags.scenario) out.scenarios = flags.scenario;
  if (flags['state-file']) out.stateFile = flags['state-file'];
  if (flags['admin-key'] !== undefined) {
    if (String(flags['admin-key']).length < 8) throw new Error('--admin-key must be at least 8 characters');
    out.adminKey = flags['admin-key'];
  }
  if (flags['journal-size'] !== undefined) {
    const size = flags['journal-size'];
    if (!Number.isInteger(size) || size < 1 || size > 1_000_000) throw new Error('--journal-size must be an integer from 1 to 1000000');
    out.journalSize = size;
  }
  return out;
}

/** What the start banner says about the control plane: who may use it, the clock, active scenarios. */
export function controlPlaneBanner(options: { host: string; adminKey?: string; clockMode: string; scenarios: string[]; stateFile?: string }): string[] {
  const access = options.adminKey
    ? 'requires X-Admin-Key (--admin-key)'
    : isLoopbackHost(options.host)
      ? 'open to this machine (loopback)'
      : `answers only callers on this machine: bound to ${options.host} without --admin-key; start with --admin-key to use it remotely`;
  return [
    `  control plane  /__admin ${access}`,
    `  clock          ${options.clockMode}`,
    ...(options.scenarios.length ? [`  scenarios      ${options.scenarios.join(', ')}`] : []),
    ...(options.stateFile ? [`  state file     ${options.stateFile} (loaded at start if present, saved on shutdown)`] : []),
  ];
}
