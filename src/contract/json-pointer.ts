/**
 * The value at a local JSON pointer (`#/components/schemas/a~1b`) of a document, or undefined
 * (RFC 6901: `~1` is `/`, `~0` is `~`). The one pointer walk of the contract code: $ref
 * resolution, Prefer examples and the derived size checks all use it.
 *
 * @example atPointer(document, '#/components/schemas/Address')
 */
export function atPointer(document: unknown, pointer: string): unknown {
  let node = document;
  for (const segment of pointer.slice(2).split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}
