import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { asUriReference } from './problem.js';

const ajv = new Ajv2020();
(addFormats as unknown as { default: (ajv: Ajv2020) => void }).default(ajv);
const isUriReference = ajv.compile({ type: 'string', format: 'uri-reference' });

describe('asUriReference', () => {
  it.each([
    '/v1/addresses?x=%zz',
    '/v1/trackers/%E0%A4%A',
    '/v1/addresses/a b',
    '/v1/addresses/ü',
    '/v1/addresses/\ud800',
    '/v1/[x]/{y}/"z"/<w>/|/^/`/\\',
    '/v1/addresses%',
    `/${'%'.repeat(100)}`,
    '/v1/a#b#c',
  ])('turns %j into a valid URI reference', (target) => {
    const out = asUriReference(target);
    expect(isUriReference(out)).toBe(true);
  });

  it('leaves a valid target as it is', () => {
    for (const target of ['/v1/addresses?limit=10&sort=ASC', '/v1/addresses/3fa85f64-5717-4562-b3fc-2c963f66afa6', '/v0/carrier-definitions?page=1&size=10', '/v1/a%20b']) {
      expect(asUriReference(target)).toBe(target);
    }
  });

  it('keeps what was sent readable', () => {
    expect(asUriReference('/v1/addresses?x=%zz')).toBe('/v1/addresses?x=%25zz');
    expect(asUriReference('/v1/addresses/a b')).toBe('/v1/addresses/a%20b');
  });
});
