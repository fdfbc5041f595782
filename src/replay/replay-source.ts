import { createHash } from 'node:crypto';
import type { ContractGate } from '../contract/gate.js';
import type { Logger } from '../logging/logger.js';
import type { ProxyViolation } from '../proxy/exchange-log.js';
import { openRecordingFolder, type RecordingFolder } from '../record/recording-folder.js';
import { readRecording } from '../record/recording-files.js';
import type { Scope, Store } from '../store/store.js';
import type { KeyedRequest } from '../record/exchange-key.js';
import type { RecordedExchange } from '../record/recorded-exchange.js';
import type { OnMiss, ReplaySetup } from './on-miss.js';

export { ON_MISS, type OnMiss, type ReplaySetup } from './on-miss.js';
import { createReplayIndex, type ReplayIndex } from './replay-index.js';

/** The recording a mock replays, and where it keeps how far each request's sequence has got. */
export interface ReplaySource {
  readonly onMiss: OnMiss;
  readonly upstream?: URL;
  readonly timeoutMs: number;
  readonly index: ReplayIndex;
  /**
   * The next recorded answer for this request, advancing its position; undefined on a miss (no
   * answer recorded for it, or all of them given already). `recorded`: how many there are.
   */
  next(request: KeyedRequest, accountId: string | undefined): { exchange?: RecordedExchange; recorded: number; position: number };
  /** Keeps an upstream's answer to a miss (`onMiss: 'proxy'`): recorded into the folder, and replayed from now on. */
  keep(exchange: RecordedExchange): void;
  /** Writes what `keep` added and releases the folder. */
  close(): void;
}

/** Store values of replay positions are named `replay:<hash of the matching key>`. */
export const REPLAY_POSITION_PREFIX = 'replay:';

/**
 * Opens a recording for replay. Sequence positions (how many of a request's recorded answers
 * were given) live in the store's scopes — the request's account scope when it has an account,
 * else the global one — so `/__admin/reset` starts them again (one account's, or all),
 * `GET /__admin/state` exports them and `--data` keeps them across a restart.
 * With `onMiss: 'proxy'` the folder is locked for recording (src/record/folder-lock.ts).
 *
 * @example const replay = openReplay({ from: 'recordings/staging', onMiss: 'fail' }, { store, gate });
 */
export function openReplay(setup: ReplaySetup, deps: { store: Store; gate: ContractGate; logger?: Logger }): ReplaySource {
  const onMiss = setup.onMiss ?? 'mock';
  let upstream: URL | undefined;
  if (onMiss === 'proxy') {
    if (!setup.upstream) throw new Error('--on-miss proxy needs --upstream URL (the real service that answers what the recording lacks)');
    try {
      upstream = new URL(setup.upstream);
    } catch {
      throw new Error(`--upstream is not a URL: ${setup.upstream}`);
    }
  }
  let folder: RecordingFolder | undefined;
  let exchanges: readonly RecordedExchange[];
  if (onMiss === 'proxy') {
    folder = openRecordingFolder(setup.from, { onFlushError: (error) => deps.logger?.error({ err: error, folder: setup.from }, 'the recording could not be written; retrying') });
    exchanges = folder.exchanges();
  } else {
    exchanges = readRecording(setup.from, { mustExist: true });
  }
  const index = createReplayIndex(exchanges);
  const positionKeys = new Map<string, string>();
  const positionKey = (key: string) => {
    let name = positionKeys.get(key);
    if (!name) positionKeys.set(key, (name = REPLAY_POSITION_PREFIX + createHash('sha256').update(key).digest('base64url').slice(0, 22)));
    return name;
  };
  const scopeOf = (accountId: string | undefined): Scope => (accountId && deps.store.hasAccount(accountId) ? deps.store.account(accountId) : deps.store.global);

  return {
    onMiss,
    upstream,
    timeoutMs: setup.timeoutMs ?? 30_000,
    index,
    next(request, accountId) {
      const found = index.lookup(request);
      if (!found) return { recorded: 0, position: 0 };
      const scope = scopeOf(accountId);
      const name = positionKey(found.key);
      const position = Number(scope.values.get(name) ?? 0);
      if (position >= found.answers.length) return { recorded: found.answers.length, position };
      scope.values.set(name, position + 1);
      return { exchange: found.answers[position], recorded: found.answers.length, position };
    },
    keep(exchange) {
      index.add(exchange);
      folder?.append(exchange);
    },
    close() {
      folder?.close();
    },
  };
}

/** Response violations a recorded exchange was marked with. */
export const responseViolationsOf = (exchange: RecordedExchange): ProxyViolation[] => exchange.violations.filter((v) => v.in === 'response');
