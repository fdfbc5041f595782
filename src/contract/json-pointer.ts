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

/**
 * Follows a node's local `$ref`s (`#/components/…`) to what they point at, with the pointer it
 * was found under. The one $ref resolver of the contract code (loading, Prefer answers).
 * Throws on a remote, dangling or looping (more than 20 hops) reference.
 *
 * @example followRefs(document, { $ref: '#/components/responses/NotFound' }).value
 */
export function followRefs(document: unknown, node: unknown, pointer = ''): { value: unknown; pointer: string } {
  let current = node as { $ref?: unknown } | undefined;
  let at = pointer;
  for (let hops = 0; current && typeof current.$ref === 'string'; hops++) {
    const ref: string = current.$ref;
    if (hops > 20 || !ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref} at ${at}`);
    at = ref;
    current = atPointer(document, ref) as { $ref?: unknown } | undefined;
    if (current === undefined) throw new Error(`dangling $ref ${at}`);
  }
  return { value: current, pointer: at };
}
