/**
 * The one list of what a mock instance keeps as state (issue 24). Every stateful component
 * registers here once, where it is built, saying what its state is; nothing else keeps a list:
 *
 * - reset (control plane, `mock.reset()`)        clears every part, or one account's share of the per-account ones;
 * - export/import (GET/PUT /__admin/state)       writes and reads the exported parts (admin/state.ts);
 * - the durable commit (--data)                  saves every durable part kept as a value, restores it at registration;
 * - the shared pull (PostgreSQL, `--workers`)    brings every shared durable part from the other processes.
 *
 * A component that keeps its state as collections or values in the store's scopes (resources,
 * issued carrier numbers, webhook deliveries) is kept row by row by the store engine itself; it
 * still registers (`storage: 'rows'`) so that reset and export know it.
 *
 * Adding state: register it with its factory (see docs/architecture.md, "State: one registry");
 * test/api/state-registry.test.ts then holds it to its declaration, and
 * test/architecture/unregistered-state.test.ts fails on state that is kept without registering.
 */
export interface StatePart<S = unknown> {
  /** Stable: a data file keeps the value under this name (renaming it loses what files saved). */
  readonly name: string;
  /** One line for people (docs, failures of the registry tests). */
  readonly description: string;
  /** Kept across a restart of a --data mock. */
  readonly durable: boolean;
  /**
   * 'value': the engine saves `snapshot()` whole when it changed and gives it back to `restore`;
   * 'rows': the state lives in the store's scopes, which the engine keeps row by row.
   */
  readonly storage: 'value' | 'rows';
  /** 'shared': the processes of one shared store see one value; 'process': each process has its own. */
  readonly sharing: 'shared' | 'process';
  /**
   * 'per-account': an account's reset clears that account's share, a full reset all of it;
   * 'whole': only a full reset clears it; 'kept': no reset clears it (say why where it registers).
   */
  readonly reset: 'per-account' | 'whole' | 'kept';
  /** Plain JSON: what the durable commit saves, and what the registry tests compare. */
  snapshot(): S;
  /** Puts a snapshot back (durable and exported parts). */
  restore?(saved: S): void;
  /** Clears the part, or one account's share of it (required unless `reset` is 'kept'). */
  clear?(accountId?: string): void;
  /** Carried by GET /__admin/state and --state-file; absent: never exported. */
  readonly exported?: ExportedForm;
}

/**
 * How a part appears in the state export (`MockState`, admin/state.ts): the top-level fields it
 * writes, and how it reads them back. `exportedAs(name, part)` covers a part exported as its
 * snapshot under one field.
 */
export interface ExportedForm {
  /** The part's fields of an export. */
  write(): Record<string, unknown>;
  /** Replaces the part's state with the export's (throws on a field it cannot take). */
  read(state: Record<string, unknown>): void;
  /** Throws on an export the part cannot take, before any part has changed (a refused import changes nothing). */
  check?(state: Record<string, unknown>): void;
  /** Read after every other part (the clock: setting it fires the timers due, which must see the imported state). */
  readonly last?: boolean;
}

export interface StateRegistry {
  /** Adds a part; a second part of the same name is refused (two owners of one state). */
  register<S>(part: StatePart<S>): void;
  /** Every part, in the order they registered. */
  all(): readonly StatePart[];
  get(name: string): StatePart | undefined;
  /**
   * A durable store's hook: `keeper` is told of every part, those registered so far and each
   * one that registers later (it gives back the saved value at once).
   */
  keep(keeper: (part: StatePart) => void): void;
  /** Clears every part (a full reset), or one account's share of the per-account parts. */
  reset(accountId?: string): void;
}

/** @example registry.register({ name: 'carrier-calls', …, exported: undefined }) */
export function createStateRegistry(): StateRegistry {
  const parts: StatePart[] = [];
  const keepers: ((part: StatePart) => void)[] = [];
  return {
    register(part) {
      if (parts.some((p) => p.name === part.name)) throw new Error(`state part ${part.name} is registered twice`);
      if (part.reset !== 'kept' && !part.clear) throw new Error(`state part ${part.name} is reset (${part.reset}) but has no clear()`);
      if ((savedAsValue(part as StatePart) || part.exported) && !part.restore) throw new Error(`state part ${part.name} is saved as a value or exported but has no restore()`);
      parts.push(part as StatePart);
      for (const keeper of keepers) keeper(part as StatePart);
    },
    all: () => parts,
    get: (name) => parts.find((p) => p.name === name),
    keep(keeper) {
      keepers.push(keeper);
      for (const part of parts) keeper(part);
    },
    reset(accountId) {
      for (const part of parts) {
        if (part.reset === 'kept') continue;
        if (accountId !== undefined && part.reset !== 'per-account') continue;
        part.clear!(accountId);
      }
    },
  };
}

/**
 * A part exported as its snapshot under one field of the export.
 * @example exported: exportedAs('scenarios', () => engine.snapshot(), (saved) => engine.restore(saved))
 */
export function exportedAs<S>(field: string, snapshot: () => S, restore: (saved: S) => void): ExportedForm {
  return {
    write: () => ({ [field]: snapshot() }),
    read: (state) => restore(state[field] as S),
  };
}

/** The parts a durable engine saves as values: durable, and kept as a value (not rows). */
export function savedAsValue(part: StatePart): boolean {
  return part.durable && part.storage === 'value';
}

/** The parts a shared engine saves and pulls: durable values every process shares. */
export function sharedValue(part: StatePart): boolean {
  return savedAsValue(part) && part.sharing === 'shared';
}

/** A part a durable store keeps as a value, with the JSON it last saved (or pulled) of it. */
export interface SavedPart {
  part: StatePart;
  saved?: string;
}

/**
 * The parts whose snapshot differs from what was last saved: [name, JSON] each, to be written by
 * the commit that follows.
 * @example for (const [name, json] of changedParts(parts)) insertPart.run(name, json);
 */
export function changedParts(parts: Map<string, SavedPart>): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, entry] of parts) {
    const json = JSON.stringify(entry.part.snapshot() ?? null);
    if (json !== entry.saved) out.push([name, json]);
  }
  return out;
}
