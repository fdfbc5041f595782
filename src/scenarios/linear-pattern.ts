import type { RE2JS } from 're2js';
import { lazyModule } from '../util/lazy-module.js';

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
  return re2Module().RE2JS.compile(source);
}

/**
 * `*` is one path segment (or part of one), `**` any number of segments (`/**` also none).
 * With `segments: false` (body field values) `*` is any run of characters.
 *
 * @example globTest('/v1/addresses/**')('/v1/addresses/42') // true
 */
export function globTest(glob: string, options: { segments: boolean } = { segments: true }): TextTest {
  if (!glob.includes('*')) return (text) => text === glob;
  const re = compileLinear(globToPattern(glob, options));
  return (text) => re.matches(text);
}

/** The anchored RE2 pattern of a glob (exported for its unit tests). */
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
