import type { DocumentSet } from './load.js';

/**
 * A node of a document set with where it lives: the document id and the JSON pointer
 * (`#/components/schemas/Address`). Reports print the pointer (prefixed with the file name
 * when it is not the root document), so a change can be found in the file that holds it.
 */
export interface Loc {
  doc: string;
  pointer: string;
  node: unknown;
  /** Set on a node made up by the comparison (a schema's base without its oneOf): keeps memo keys apart. */
  derived?: string;
}

/** RFC 6901 escaping of one pointer segment. */
export function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The location of a child: `child(loc, 'properties', 'name')`. */
export function child(loc: Loc, ...segments: (string | number)[]): Loc {
  let node = loc.node;
  let pointer = loc.pointer;
  for (const segment of segments) {
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
    pointer += `/${escapeSegment(String(segment))}`;
  }
  return { doc: loc.doc, pointer, node };
}

/** The root of a set's root document. */
export function rootLoc(set: DocumentSet): Loc {
  return { doc: set.root, pointer: '#', node: set.documents.get(set.root) };
}

function atPointer(document: unknown, fragment: string): { found: boolean; node: unknown } {
  let node = document;
  if (fragment === '' || fragment === '/') return { found: true, node };
  if (!fragment.startsWith('/')) return { found: false, node: undefined };
  for (const raw of fragment.slice(1).split('/')) {
    const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, segment)) return { found: false, node: undefined };
    node = (node as Record<string, unknown>)[segment];
  }
  return { found: true, node };
}

/**
 * The target of one `$ref` written in document `from`: local (`#/…`), another file
 * (`common.yaml#/…`, `common.yaml`) or a URL. Throws naming the reference when it dangles.
 */
export function refTarget(set: DocumentSet, from: string, reference: string): Loc {
  let cache = targetCache.get(set);
  if (!cache) targetCache.set(set, (cache = new Map()));
  const key = `${from}\u0000${reference}`;
  let target = cache.get(key);
  if (!target) cache.set(key, (target = findTarget(set, from, reference)));
  return target;
}

const targetCache = new WeakMap<DocumentSet, Map<string, Loc>>();

function findTarget(set: DocumentSet, from: string, reference: string): Loc {
  const hash = reference.indexOf('#');
  const file = hash === -1 ? reference : reference.slice(0, hash);
  const fragment = hash === -1 ? '' : reference.slice(hash + 1);
  const doc = file ? set.idOf(from, file) : from;
  const document = set.documents.get(doc);
  if (document === undefined) throw new Error(`$ref ${reference} in ${set.nameOf(from) || set.label}: document not loaded`);
  const { found, node } = atPointer(document, fragment);
  if (!found) throw new Error(`dangling $ref ${reference} in ${set.nameOf(from) || set.label}`);
  return { doc, pointer: `#${fragment.startsWith('/') ? fragment : ''}`, node };
}

/**
 * Follows `$ref`s until a node that is not a reference (OpenAPI objects: parameters,
 * responses, path items; a `$ref`'s sibling keywords are only descriptions there). Throws on a loop.
 */
export function deref(set: DocumentSet, loc: Loc): Loc {
  let current = loc;
  for (let hops = 0; isRef(current.node); hops++) {
    if (hops > 64) throw new Error(`$ref loop at ${set.nameOf(loc.doc)}${loc.pointer}`);
    current = refTarget(set, current.doc, (current.node as { $ref: string }).$ref);
  }
  return current;
}

export function isRef(node: unknown): node is { $ref: string } {
  return node !== null && typeof node === 'object' && typeof (node as { $ref?: unknown }).$ref === 'string';
}

/** A location as reports print it: `#/components/…` or `common.yaml#/…`. */
export function showLoc(set: DocumentSet, loc: Loc | undefined): string | undefined {
  if (!loc) return undefined;
  return `${set.nameOf(loc.doc)}${loc.pointer}`;
}
