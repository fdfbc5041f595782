import type { TextTest } from './linear-pattern.js';

/**
 * Globs without a regular-expression engine: compiling costs the glob's length and matching
 * `text` costs text × (literal characters / 32) word operations (a bit-parallel simulation of
 * the glob's automaton, one bit per literal character), so neither a many-star glob nor a long
 * text can stall the process, and a glob whose literal start differs from the text's is refused
 * after that comparison. Semantics as globToPattern (linear-pattern.ts) writes them for RE2:
 * with segments, `*` is `[^/]*`, `**` is `.*` and `/**` before `/` or the end is `(?:/.*)?`;
 * without segments, `*` and `**` are `.*`.
 *
 * @example compileGlob('/v1/**\/labels', { segments: true })('/v1/shipment-bookings/1/labels') // true
 */
export function compileGlob(glob: string, options: { segments: boolean }): TextTest {
  const literals: string[] = [];
  // Loops at state j (after j literal characters): any character, any but '/', or "/ then anything".
  const anyAt = new Set<number>();
  const starAt = new Set<number>();
  const optAt = new Set<number>();
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    const j = literals.length;
    if (options.segments && c === '/' && glob.startsWith('/**', i) && (i + 3 === glob.length || glob[i + 3] === '/')) {
      optAt.add(j);
      i += 2;
    } else if (c === '*' && glob[i + 1] === '*') {
      anyAt.add(j);
      i++;
    } else if (c === '*') (options.segments ? starAt : anyAt).add(j);
    else literals.push(c);
  }
  const m = literals.length;
  const words = (m >>> 5) + 1;
  const bit = (j: number): [number, number] => [j >>> 5, 1 << (j & 31)];
  const maskOf = (states: Iterable<number>) => {
    const mask = new Uint32Array(words);
    for (const j of states) {
      const [w, b] = bit(j);
      mask[w] |= b;
    }
    return mask;
  };
  // advance[c] has bit j+1 set where literal j is c.
  const advance = new Map<string, Uint32Array>();
  literals.forEach((c, j) => {
    let mask = advance.get(c);
    if (!mask) advance.set(c, (mask = new Uint32Array(words)));
    const [w, b] = bit(j + 1);
    mask[w] |= b;
  });
  const anyLoop = maskOf(anyAt);
  const starLoop = maskOf(starAt);
  const optEntry = maskOf(optAt);
  const hasOpt = optAt.size > 0;
  const [finalWord, finalBit] = bit(m);
  // The literal characters before the first wildcard: a text that does not start with them never matches.
  const firstGap = Math.min(m, ...anyAt, ...starAt, ...optAt);
  const prefix = literals.slice(0, firstGap).join('');
  const none = new Uint32Array(words);

  return (text) => {
    if (!text.startsWith(prefix)) return false;
    let state = new Uint32Array(words);
    let inOpt = new Uint32Array(words);
    let next = new Uint32Array(words);
    let nextOpt = new Uint32Array(words);
    state[0] = 1;
    for (let k = 0; k < text.length; k++) {
      const c = text[k];
      const adv = advance.get(c) ?? none;
      const slash = c === '/';
      let alive = 0;
      let carry = 0;
      for (let w = 0; w < words; w++) {
        const s = state[w];
        // Entering "/ then anything" on its '/', staying in it on anything.
        const opt = hasOpt ? (slash ? (s & optEntry[w]) | inOpt[w] : inOpt[w]) : 0;
        const shifted = ((s << 1) | carry) >>> 0;
        carry = s >>> 31;
        const value = ((shifted & adv[w]) | (s & anyLoop[w]) | (slash ? 0 : s & starLoop[w]) | opt) >>> 0;
        next[w] = value;
        nextOpt[w] = opt;
        alive |= value;
      }
      if (!alive) return false;
      [state, next] = [next, state];
      [inOpt, nextOpt] = [nextOpt, inOpt];
    }
    return (state[finalWord] & finalBit) !== 0;
  };
}
