import { hostnameOf, isLoopbackHost, normalizeAdminOrigin } from '../admin/admin-access.js';
import { isPostgresUrl, maskUrl } from '../store/data-location.js';
import type { ClockOptions } from '../clock/clock.js';
import type { FlagSpec, ParsedFlags } from './parse-args.js';

/** Flags of the QA control plane (README, section qa). */
export const CONTROL_PLANE_FLAGS = {
  clock: { type: 'string' },
  'clock-start': { type: 'string' },
  scenario: { type: 'string', repeatable: true },
  'state-file': { type: 'string' },
  data: { type: 'string' },
  'admin-key': { type: 'string' },
  'admin-origin': { type: 'string', repeatable: true },
  'admin-host': { type: 'string', repeatable: true },
  'journal-size': { type: 'number' },
  'cache-size': { type: 'number' },
} satisfies Record<string, FlagSpec>;

export const CONTROL_PLANE_USAGE = `  --clock MODE             real|manual: wall time plus offset, or time that stands still until
                           advanced (POST /__admin/clock/advance) (default real)
  --clock-start ISO        virtual time at start (default: now; manual: 2026-01-01T00:00:00Z)
  --scenario NAME|FILE     activate a ready scenario (scenarios/NAME.yaml) or a scenario file
                           (repeatable)
  --data FILE              keep the state in this SQLite file (created 0600; WAL): every write is
                           committed before its response, so a killed mock loses nothing it
                           acknowledged; holds client, webhook and token secrets (docs/storage.md)
  --data postgres://USER[:PASSWORD]@HOST:PORT/DB
                           keep the state in this PostgreSQL database, shared by every shipmock
                           process started on it: they behave as one mock (docs/scaling.md)
  --state-file FILE        load this JSON state at start when it exists, save to it on shutdown
                           (a readable snapshot, not crash-safe; use --data for durable state)
  --admin-key KEY          the control plane (/__admin) requires X-Admin-Key: KEY from everyone and
                           then accepts any Host; without it, only callers on this machine may use it;
                           auto: a key generated at start, printed once (the container image's default)
  --admin-origin ORIGIN    a web page origin allowed to call /__admin from a browser, e.g.
                           http://localhost:3000 (repeatable or comma list; default none: every
                           page of another origin gets 403; secrets are never given to a browser)
  --admin-host NAME        a Host name /__admin accepts besides localhost, 127.0.0.0/8 and [::1]
                           (repeatable or comma list; --host NAME counts too) (DNS rebinding)
  --journal-size N         requests kept in the journal (default 1000)
  --cache-size N           accounts a --data mock keeps in memory (each process, with --workers
                           or on PostgreSQL), least recently used out; the others are read from
                           the file or database when used (default 100)
`;

export interface ControlPlaneFlags {
  clock?: ClockOptions;
  scenarios?: string[];
  stateFile?: string;
  data?: string;
  adminKey?: string;
  adminOrigins?: string[];
  adminHosts?: string[];
  journalSize?: number;
  cacheSize?: number;
}

/** Values of a repeatable flag that also takes comma lists. */
function listOf(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((value) => String(value).split(',')).map((value) => value.trim()).filter(Boolean);
}

// A wildcard bind address names no host a request could carry.
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** Maps the flags onto startMock options; a wrong value is an error naming the flag. */
export function controlPlaneOptions(flags: ParsedFlags<typeof CONTROL_PLANE_FLAGS> & { host?: string }): ControlPlaneFlags {
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
  if (flags.data) out.data = flags.data;
  if (out.data && out.stateFile) throw new Error('--data and --state-file cannot be combined: --data keeps the state durably, --state-file is a JSON snapshot saved on shutdown');
  if (flags['admin-key'] !== undefined) {
    if (String(flags['admin-key']).length < 8) throw new Error('--admin-key must be at least 8 characters');
    out.adminKey = flags['admin-key'];
  }
  if (flags['admin-origin'] !== undefined) {
    out.adminOrigins = listOf(flags['admin-origin']).map((origin) => {
      try {
        return normalizeAdminOrigin(origin);
      } catch (error) {
        throw new Error(`--admin-origin: ${(error as Error).message}`);
      }
    });
  }
  const hosts = listOf(flags['admin-host']);
  for (const host of hosts) if (!hostnameOf(host)) throw new Error(`--admin-host must be a host name or address (got ${host})`);
  // The address the server was told to listen on is a name its users may send as Host.
  if (typeof flags.host === 'string' && !WILDCARD_HOSTS.has(flags.host) && !isLoopbackHost(flags.host)) hosts.push(flags.host);
  if (hosts.length) out.adminHosts = hosts;
  if (flags['journal-size'] !== undefined) {
    const size = flags['journal-size'];
    if (!Number.isInteger(size) || size < 1 || size > 1_000_000) throw new Error('--journal-size must be an integer from 1 to 1000000');
    out.journalSize = size;
  }
  if (flags['cache-size'] !== undefined) {
    const size = flags['cache-size'];
    if (!Number.isInteger(size) || size < 1 || size > 10_000_000) throw new Error(`--cache-size must be an integer from 1 to 10000000 (accounts kept in memory; got ${size})`);
    if (!out.data) throw new Error('--cache-size needs --data FILE (a SQLite file) or --data postgres://…: without --data every account is in memory');
    out.cacheSize = size;
  }
  return out;
}

/** What the start banner says about the control plane: who may use it, the clock, active scenarios. */
export function controlPlaneBanner(options: { host: string; adminKey?: string; adminKeyGenerated?: boolean; adminOrigins?: string[]; clockMode: string; scenarios: string[]; stateFile?: string; data?: string }): string[] {
  const access = options.adminKey
    ? 'requires X-Admin-Key (--admin-key)'
    : isLoopbackHost(options.host)
      ? 'open to this machine (loopback)'
      : `answers only callers on this machine: bound to ${options.host} without --admin-key; start with --admin-key to use it remotely`;
  return [
    `  control plane  /__admin ${access}`,
    // Printed once, here: a generated key exists nowhere else (README, Run it as a container).
    ...(options.adminKey && options.adminKeyGenerated ? [`  admin key      ${options.adminKey} (generated for this run: send it as X-Admin-Key; the inspector asks for it; set --admin-key or SHIPMOCK_ADMIN_KEY to choose one)`] : []),
    ...(options.adminOrigins?.length ? [`  admin origins  ${options.adminOrigins.join(', ')} (browser pages allowed on /__admin)`] : []),
    `  clock          ${options.clockMode}`,
    ...(options.scenarios.length ? [`  scenarios      ${options.scenarios.join(', ')}`] : []),
    ...(options.stateFile ? [`  state file     ${options.stateFile} (loaded at start if present, saved on shutdown)`] : []),
    ...(options.data
      ? [
          isPostgresUrl(options.data)
            ? `  data           ${maskUrl(options.data)} (PostgreSQL, shared: every process on it is one mock)`
            : `  data file      ${options.data} (SQLite; every write committed before its response)`,
        ]
      : []),
  ];
}
