import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { Logger } from '../logging/logger.js';
import { exchangeKey, requestKey, type KeyedRequest } from '../record/exchange-key.js';
import { openRecordingFolder, type RecordingFolder } from '../record/recording-folder.js';
import { readReplayScenario, scenarioNameOf } from '../record/recording-files.js';
import { exchangesToScenario, recordedRespond, redactExchange, type Exchange } from '../recording/index.js';
import type { Scope, Store } from '../store/store.js';
import type { OnMiss, ReplaySetup } from './on-miss.js';
import { createReplayIndex, type ReplayAnswer, type ReplayIndex } from './replay-index.js';

export { ON_MISS, type OnMiss, type ReplaySetup } from './on-miss.js';

/** The recording a mock replays, and where it keeps how far each request's sequence has got. */
export interface ReplaySource {
  readonly onMiss: OnMiss;
  readonly upstream?: URL;
  readonly timeoutMs: number;
  readonly index: ReplayIndex;
  /**
   * The next recorded answer for this request, advancing its position; no answer on a miss (none
   * recorded for it, or all of them given already). `recorded`: how many there are.
   */
  next(request: KeyedRequest, accountId: string | undefined): { answer?: ReplayAnswer; recorded: number; position: number };
  /**
   * Keeps an upstream's answer to a miss (`onMiss: 'proxy'`): recorded into the folder as the next
   * answer of its request, which it counts as given (the upstream gave it).
   */
  keep(exchange: Exchange, accountId: string | undefined): void;
  /** Writes what `keep` added and releases the folder. */
  close(): void;
}

/** Store values of replay positions are named `replay:<hash of the matching key>`. */
export const REPLAY_POSITION_PREFIX = 'replay:';

/**
 * Opens a recording for replay: a recording folder, its scenario, or a HAR file. Sequence
 * positions (how many of a request's recorded answers were given) live in the store's scopes —
 * the scope of the request's account when the mock has that account, else the global one — so
 * `/__admin/reset` starts them again (one account's, or all), `GET /__admin/state` exports them
 * and `--data` keeps them across a restart. With `onMiss: 'proxy'` the folder is locked for
 * recording (src/record/folder-lock.ts) and what the upstream answers is added to it.
 *
 * @example const replay = openReplay({ from: 'recordings/staging', onMiss: 'fail' }, { store });
 */
export function openReplay(setup: ReplaySetup, deps: { store: Store; logger?: Logger }): ReplaySource {
  const onMiss = setup.onMiss ?? 'mock';
  let upstream: URL | undefined;
  let folder: RecordingFolder | undefined;
  let index: ReplayIndex;
  if (onMiss === 'proxy') {
    if (!setup.upstream) throw new Error('--on-miss proxy needs --upstream URL (the real service that answers what the recording lacks)');
    try {
      upstream = new URL(setup.upstream);
    } catch {
      throw new Error(`--upstream is not a URL: ${setup.upstream}`);
    }
    let isFile = false;
    try {
      isFile = !statSync(setup.from).isDirectory();
    } catch {
      // A new folder: what the upstream answers is recorded there.
    }
    if (isFile) throw new Error(`--replay ${setup.from}: --on-miss proxy records what it forwards, so it needs a recording folder (shipmock record --out DIR), not a file`);
    folder = openRecordingFolder(setup.from, { onWriteError: (error) => deps.logger?.error({ err: error, folder: setup.from }, 'the recording cannot be appended to; what comes in is written at shutdown') });
    const found = folder.exchanges();
    try {
      index = createReplayIndex(found.length ? exchangesToScenario(found, { name: scenarioNameOf(setup.from), afterLast: 'miss' }) : undefined);
    } catch (error) {
      folder.close();
      throw error;
    }
  } else {
    index = createReplayIndex(readReplayScenario(setup.from));
  }
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
      const entry = index.lookup(requestKey(request));
      if (!entry) return { recorded: 0, position: 0 };
      const { answers } = entry;
      const scope = scopeOf(accountId);
      const name = positionKey(entry.key);
      const position = Number(scope.values.get(name) ?? 0);
      let turn = position;
      if (position >= answers.length) {
        if (entry.repeat === false) return { recorded: answers.length, position };
        turn = entry.repeat === 'last' ? answers.length - 1 : position % answers.length;
      }
      scope.values.set(name, position + 1);
      const answer = answers[turn];
      return answer === 'pass' ? { recorded: answers.length, position } : { answer, recorded: answers.length, position };
    },
    keep(exchange, accountId) {
      const redacted = redactExchange(exchange);
      const key = exchangeKey(redacted);
      index.add(key, recordedRespond(redacted), exchange.verdict?.conforms === false ? exchange.verdict.violations : undefined);
      scopeOf(accountId).values.set(positionKey(key), index.lookup(key)!.answers.length);
      folder?.append(exchange);
    },
    close() {
      folder?.close();
    },
  };
}
