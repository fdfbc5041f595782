/** What answers a request the recording has no answer for (`--on-miss`). */
export const ON_MISS = ['mock', 'fail', 'proxy'] as const;
export type OnMiss = (typeof ON_MISS)[number];

/** `serve --replay`: where the recording is, and what answers what it lacks. */
export interface ReplaySetup {
  /** A recording folder (`shipmock record --out DIR`) or its scenario file. */
  from: string;
  /** mock (default): the stateful mock answers; fail: a 501 `replay-miss` problem; proxy: the upstream answers and the exchange is recorded into the folder. */
  onMiss?: OnMiss;
  /** The real service, for `onMiss: 'proxy'`. */
  upstream?: string;
  /** Upstream timeout in ms for `onMiss: 'proxy'` (default 30 s). */
  timeoutMs?: number;
}
