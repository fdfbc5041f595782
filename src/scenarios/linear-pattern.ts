import type { RE2JS } from 're2js';
import { lazyModule } from '../util/lazy-module.js';
import { compileGlob } from './glob-matcher.js';

// RE2JS (a pure-JS port of RE2) matches in time linear in the input, whatever the pattern; it
// loads on first use (~35 ms of import time, start-up budget, src/util/lazy-module.ts).
const re2Module = lazyModule<typeof import('re2js')>('re2js');

/** A compiled user pattern (scenario glob or regular expression, journal path filter). */
export type TextTest = (text: string) => boolean;

/**
 * Why RE2 and not RegExp: globs and regular expressions come from scenario files and control
 * plane queries, and V8's backtracking engine takes seconds on patterns as plain as
 * `*a*a*b` against a 2,000-character body field (issue 12: no input may stall the process).
 * RE2 has no backtracking, so a match costs O(pattern × text) at worst.
 */
function compileLinear(source: string): RE2JS {
  const cached = compiled.get(source);
  if (cached) {
    // Least recently used goes first: re-inserting moves this one to the end.
    compiled.delete(source);
    compiled.set(source, cached);
    return cached;
  }
  const re = re2Module().RE2JS.compile(source);
  compiled.set(source, re);
  if (compiled.size > COMPILED_CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
  return re;
}

/**
 * Compiled patterns by source, shared by every mock of the process: a compiled RE2 program is
 * immutable (each match gets its own matcher), so sharing carries no state between instances.
 * Validation and activation compile a header regex once instead of twice, and activating the
 * same scenario per account or per test file costs nothing after the first time.
 */
const compiled = new Map<string, RE2JS>();
const COMPILED_CACHE_SIZE = 1024;

/**
 * A counted repetition (`x{n}`, `x{n,}`, `x{n,m}`) above this is refused in a scenario regex:
 * RE2 expands it into copies of `x`, and compiling `a{1000}` alone costs about 50 ms.
 */
export const MAX_REPEAT = 100;

/**
 * What a pattern costs to compile and to run, in units: a glob without `*` is compared as text
 * (0); a glob costs its length (compileGlob: one bit per character, matched in text × length /
 * 32); a regular expression costs REGEX_UNIT units per instruction of the program RE2 builds
 * from it — its atoms, with counted repetitions expanded (nested ones multiply) — since RE2
 * compiles it (~1.5–5 µs an instruction) and matches in text × program. Computed from the text
 * without compiling it, so a document can be refused before any of its patterns is compiled.
 * `problem` names a repetition above MAX_REPEAT.
 *
 * @example patternWeight('/v1/addresses/*', 'glob').weight // 15
 * @example patternWeight('(?:ab{10}){10}', 'regex').weight // 440
 */
export function patternWeight(pattern: string, kind: 'glob' | 'regex'): { weight: number; problem?: string } {
  if (kind === 'glob') return { weight: pattern.includes('*') ? pattern.length : 0 };
  const groups: number[] = [0];
  let last = 0;
  let problem: string | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    let atom = 1;
    if (c === '\\') {
      const next = pattern[i + 1];
      if ((next === 'p' || next === 'P' || next === 'x') && pattern[i + 2] === '{') {
        const end = pattern.indexOf('}', i);
        i = end === -1 ? pattern.length : end;
      } else if (next === 'Q') {
        // \Q…\E: a literal run, one instruction per character.
        const end = pattern.indexOf('\\E', i + 2);
        atom = Math.max(1, (end === -1 ? pattern.length : end) - (i + 2));
        i = end === -1 ? pattern.length : end + 1;
      } else i++;
    } else if (c === '[') {
      // One instruction for the whole class; a leading ] (or ^]) is a member, as are [:alpha:].
      let j = i + 1;
      if (pattern[j] === '^') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') {
        if (pattern[j] === '\\') j++;
        else if (pattern[j] === '[' && pattern[j + 1] === ':') {
          const end = pattern.indexOf(':]', j + 2);
          if (end !== -1) j = end + 1;
        }
        j++;
      }
      i = j;
    } else if (c === '(') {
      const flags = pattern[i + 1] === '?' ? /^\(\?(?:P?<[^>]*>|[A-Za-z-]*:|[A-Za-z-]*\))/.exec(pattern.slice(i, i + 80)) : null;
      if (flags) i += flags[0].length - 1;
      // (?i) alone sets flags for the rest: no group.
      if (!flags?.[0].endsWith(')')) groups.push(0);
      continue;
    } else if (c === ')') {
      atom = groups.length > 1 ? groups.pop()! : 0;
    } else if (c === '|') {
      continue;
    } else if (c === '*' || c === '+' || c === '?') {
      groups[groups.length - 1] += 1;
      continue;
    } else if (c === '{') {
      const counted = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (counted) {
        const min = Number(counted[1]);
        const max = counted[2] === undefined ? min : counted[3] === '' ? min + 1 : Number(counted[3]);
        const times = Math.max(min, max, 1);
        if (times > MAX_REPEAT && !problem) problem = `repeats ${counted[0]}; a counted repetition is at most {${MAX_REPEAT}} here (RE2 expands it into copies)`;
        groups[groups.length - 1] += last * (times - 1);
        last *= times;
        i += counted[0].length - 1;
        continue;
      }
    }
    groups[groups.length - 1] += atom;
    last = atom;
  }
  return { weight: REGEX_UNIT * groups.reduce((sum, size) => sum + size, 0), problem };
}

/** Units a regular expression's instruction weighs against a glob's character (see patternWeight). */
export const REGEX_UNIT = 4;

/**
 * `*` is one path segment (or part of one), `**` any number of segments (`/**` also none).
 * With `segments: false` (body field values) `*` is any run of characters.
 *
 * @example globTest('/v1/addresses/**')('/v1/addresses/42') // true
 */
export function globTest(glob: string, options: { segments: boolean } = { segments: true }): TextTest {
  if (!glob.includes('*')) return (text) => text === glob;
  // Not RE2: compiling a 400-character many-star glob took it ~1–40 ms (issue 23); compileGlob
  // costs the glob's length and matches in text × literals / 32 word operations.
  return compileGlob(glob, options);
}

/** The anchored RE2 pattern of a glob: the reference semantics compileGlob is tested against. */
export function globToPattern(glob: string, options: { segments: boolean } = { segments: true }): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (options.segments && c === '/' && glob.startsWith('/**', i) && (i + 3 === glob.length || glob[i + 3] === '/')) {
      // `/**` also matches no segment at all: /v1/addresses/** matches /v1/addresses too.
      out += '(?:/.*)?';
      i += 2;
    } else if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += options.segments ? '[^/]*' : '.*';
    else out += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return `^${out}$`;
}

/**
 * A regular expression from a scenario file (`/…/` in a header match): searched, not anchored,
 * like RegExp.test. RE2 syntax, which is JavaScript's without look-around and back-references.
 * Throws a SyntaxError-like Error with RE2's message when the pattern is not valid RE2.
 */
export function regexTest(source: string): TextTest {
  const re = compileLinear(source);
  return (text) => re.matcher(text).find();
}

/** The reason a user regular expression cannot be used, or undefined when it compiles. */
export function regexProblem(source: string): string | undefined {
  try {
    compileLinear(source);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
