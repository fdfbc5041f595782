import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { compileGlob } from './glob-matcher.js';
import { globToPattern } from './linear-pattern.js';

/**
 * compileGlob must mean exactly what globToPattern writes for RE2 (the semantics the scenario
 * globs always had): random globs and texts over an alphabet rich in the characters that
 * matter (`/`, `*`, letters), compared with RE2's answer.
 */
const glob = fc.array(fc.constantFrom('a', 'b', '/', '*', '**', '/**', '.'), { maxLength: 10 }).map((parts) => parts.join(''));
const text = fc.array(fc.constantFrom('a', 'b', '/', '.', 'ab', '//'), { maxLength: 12 }).map((parts) => parts.join(''));

describe('compileGlob', () => {
  it.each([true, false])('agrees with the RE2 pattern of the glob (segments: %s)', (segments) => {
    fc.assert(
      fc.property(glob, fc.array(text, { minLength: 1, maxLength: 8 }), (g, texts) => {
        const re = RE2JS.compile(globToPattern(g, { segments }));
        const test = compileGlob(g, { segments });
        for (const t of texts) expect(test(t), `${g} on ${t}`).toBe(re.matches(t));
      }),
      { numRuns: 2_000, seed: 23 },
    );
  });

  it('spans many words of literals (more than 32, 64 literal characters)', () => {
    const long = `/v1/${'ab/'.repeat(30)}*/x`;
    expect(compileGlob(long, { segments: true })(`/v1/${'ab/'.repeat(30)}anything/x`)).toBe(true);
    expect(compileGlob(long, { segments: true })(`/v1/${'ab/'.repeat(30)}any/thing/x`)).toBe(false);
    expect(compileGlob(`${'a*'.repeat(100)}b`, { segments: false })(`${'a'.repeat(150)}b`)).toBe(true);
  });

  it('matches a 400-character many-star glob against a 2,048-character text in well under a millisecond each', () => {
    const star = compileGlob(`/v1/${'a*'.repeat(190)}`, { segments: true });
    const any = compileGlob(`/v1/${'**/a'.repeat(95)}`, { segments: true });
    const texts = [`/v1/${'a'.repeat(2_040)}`, `/v1/${'a/'.repeat(1_020)}`];
    const started = performance.now();
    for (let i = 0; i < 10; i++) for (const t of texts) star(t), any(t);
    // 40 matches; a loaded 2-core machine is allowed a lot.
    expect(performance.now() - started).toBeLessThan(400);
  });
});
