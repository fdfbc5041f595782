import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactBody } from '../util/redact.js';
import { canonicalBody, canonicalJson, canonicalRedactedText } from './body-digest.js';

/** What the `canonicalize` package (RFC 8785, the digests' first serialiser) makes of a value, or 'throws'. */
function byPackage(value: unknown): string {
  try {
    return canonicalize(value) as string;
  } catch {
    return 'throws';
  }
}

function byCanonicalJson(value: unknown): string {
  try {
    return canonicalJson(value);
  } catch {
    return 'throws';
  }
}

describe('canonicalJson', () => {
  it.each([
    ['{"b":[1,2e0,-0,0.1,1e21,-1.5e-7],"a":"x"}', '{"a":"x","b":[1,2,0,0.1,1e+21,-1.5e-7]}'],
    ['{"10":1,"2":2,"a":3,"B":4,"":5}', '{"":5,"10":1,"2":2,"B":4,"a":3}'],
    ['{"\u00e9":1,"z":2,"\ud83d\ude00":3,"\uffff":4}', '{"z":2,"\u00e9":1,"\ud83d\ude00":3,"\uffff":4}'],
    ['[true,false,null,{},[],"\\u0000\\n\\"\\\\/"]', '[true,false,null,{},[],"\\u0000\\n\\"\\\\/"]'],
    ['{"__proto__":{"b":1,"a":2}}', '{"__proto__":{"a":2,"b":1}}'],
    ['1e400', 'throws'],
    ['{"a":"\\ud800"}', 'throws'],
    ['{"\\udc00":1}', 'throws'],
  ])('%s → %s, as the canonicalize package', (text, canonical) => {
    expect(byCanonicalJson(JSON.parse(text))).toBe(canonical);
    expect(byPackage(JSON.parse(text))).toBe(canonical);
  });

  it('is the canonicalize package for any parsed JSON, lone surrogates and numbers beyond JSON included', () => {
    const text = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
      fc.dictionary(fc.string({ unit: 'binary', maxLength: 4 }), fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.double(), fc.integer())).map((value) => JSON.stringify(value)),
      fc.constantFrom('{"n":1e400}', '[-1e999]', '{"a":"\\udfff x"}'),
    );
    fc.assert(
      fc.property(text, (json) => {
        const value: unknown = JSON.parse(json);
        expect(byCanonicalJson(value)).toBe(byPackage(value));
      }),
      { numRuns: 300, seed: 26 },
    );
  });
});

describe('canonicalRedactedText', () => {
  it('from the body redacted as a recording keeps it, is canonicalBody of the body as sent', () => {
    const bodies: [string, string | undefined][] = [
      ['{"b":1, "a":"Straße…"}', 'application/json'],
      ['{"accessToken":"eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl","tokenType":"Bearer"}', 'Application/JSON; charset=utf-8'],
      ['grant_type=client_credentials&client_secret=cs_live_9f86d081884c7d65&a=1', 'application/x-www-form-urlencoded'],
      ['plain text, password=hunter2hunter2', 'text/plain'],
      [' [ {"z":1e400} ]', undefined],
      ['{"a":"\\ud800"}', 'application/json'],
      ['{"b":2,"a":', 'application/json'],
    ];
    for (const [body, type] of bodies) expect(canonicalRedactedText(redactBody(body, type), type)).toBe(canonicalBody(body, type));
  });
});
