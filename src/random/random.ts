import type { Faker } from '@faker-js/faker';
import { lazyModule } from '../util/lazy-module.js';

const fakerModule = lazyModule<typeof import('@faker-js/faker')>('@faker-js/faker');

/**
 * The one seeded random source of a mock instance. Domain code never calls Math.random():
 * the same seed and the same requests give the same ids and the same generated data.
 */
export interface Random {
  readonly seed: number;
  /** Uniform float in [0, 1). */
  next(): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** RFC 4122 version-4 UUID drawn from the seeded stream. */
  uuid(): string;
  /** A faker instance seeded from this source, for plausible names and addresses. */
  readonly faker: Faker;
  /** An independent stream derived from this seed and a label (stable per label). */
  derive(label: string): Random;
  /**
   * The named stream of a label: the same sequence `derive(label)` starts, but one object per
   * label whose position is part of `state()`, so a restarted mock continues it (tracking
   * numbers, delivery ids) instead of issuing its numbers again.
   */
  stream(label: string): Random;
  /** Positions of this stream and of every named stream (durable state). */
  state(): RandomState;
  /** Continues this stream and the named streams from `state()`. */
  restoreState(state: RandomState): void;
  /** Position of the stream (state export, src/admin/state.ts). */
  snapshot(): number;
  /** Continues the stream from a snapshot, so ids generated after a state import never repeat stored ones. */
  restore(position: number): void;
}

export interface RandomState {
  position: number;
  streams: Record<string, number>;
}

export interface RandomOptions {
  /** Called on every draw (a durable store schedules a commit so no drawn id is issued twice). */
  onDraw?: () => void;
}

/** mulberry32: tiny, fast, good enough for mock data, and reproducible across platforms. */
function mulberry32(seed: number): { next: () => number; position: () => number; seek: (position: number) => void } {
  let a = seed >>> 0;
  return {
    next: () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
    position: () => a,
    seek: (position) => {
      a = position >>> 0;
    },
  };
}

/** FNV-1a, to turn labels into seeds. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const HEX = '0123456789abcdef';

/**
 * @example
 * const random = createRandom(42);
 * random.uuid(); // the same value for every run with seed 42
 */
export function createRandom(seed: number, options: RandomOptions = {}): Random {
  const stream = mulberry32(seed);
  const { onDraw } = options;
  const next = onDraw
    ? () => {
        onDraw();
        return stream.next();
      }
    : stream.next;
  let faker: Faker | undefined;
  const streams = new Map<string, Random>();
  // Positions restored before their stream was first asked for (streams are created lazily).
  const pending = new Map<string, number>();
  const random: Random = {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
    uuid() {
      // Joined, not concatenated: `out += char` 36 times leaves a rope of 36 string pieces that
      // every stored id keeps alive (about 800 bytes per id, measured); join makes one flat string.
      const chars: string[] = new Array(36);
      for (let i = 0; i < 36; i++) {
        if (i === 8 || i === 13 || i === 18 || i === 23) chars[i] = '-';
        else if (i === 14) chars[i] = '4';
        else if (i === 19) chars[i] = HEX[8 + Math.floor(next() * 4)];
        else chars[i] = HEX[Math.floor(next() * 16)];
      }
      return chars.join('');
    },
    get faker() {
      // Created on first use: faker's locale data costs start-up time most runs never need.
      if (!faker) {
        const { Faker: FakerClass, en } = fakerModule();
        faker = new FakerClass({ locale: [en] });
        faker.seed(Math.floor(next() * 2 ** 31));
      }
      return faker;
    },
    derive: (label) => createRandom(hashString(`${seed}:${label}`)),
    stream(label) {
      let found = streams.get(label);
      if (!found) {
        streams.set(label, (found = createRandom(hashString(`${seed}:${label}`), options)));
        const position = pending.get(label);
        if (position !== undefined) found.restore(position);
        pending.delete(label);
      }
      return found;
    },
    state() {
      const positions: Record<string, number> = Object.fromEntries(pending);
      for (const [label, named] of streams) positions[label] = named.snapshot();
      return { position: stream.position(), streams: positions };
    },
    restoreState(state) {
      random.restore(state.position);
      pending.clear();
      for (const [label, position] of Object.entries(state.streams ?? {})) {
        const named = streams.get(label);
        if (named) named.restore(position);
        else pending.set(label, position);
      }
    },
    snapshot: () => stream.position(),
    restore(position) {
      stream.seek(position);
      // faker keeps its own state; it is re-seeded from the restored stream on next use.
      faker = undefined;
    },
  };
  return random;
}

/** A stable UUID for a label (catalogue ids that must not move with --seed). */
export function stableUuid(label: string): string {
  return createRandom(hashString(label)).uuid();
}
