import { describe, expect, it } from 'vitest';
import { atPointer } from './json-pointer.js';

describe('atPointer', () => {
  const document = { components: { schemas: { 'a/b': { x: 1 }, 'c~d': [10, 20] } }, paths: { '/v1/x': null } };

  it('walks a local pointer, unescaping ~1 and ~0', () => {
    expect(atPointer(document, '#/components/schemas/a~1b/x')).toBe(1);
    expect(atPointer(document, '#/components/schemas/c~0d/1')).toBe(20);
  });

  it('is undefined past a missing or scalar node, never a throw', () => {
    expect(atPointer(document, '#/components/nothing/here')).toBeUndefined();
    expect(atPointer(document, '#/components/schemas/a~1b/x/y')).toBeUndefined();
    expect(atPointer(document, '#/paths/~1v1~1x/get')).toBeUndefined();
  });
});
