/**
 * Applies the spec's conventions to a response object: "empty arrays are omitted" and
 * "nullable values may be omitted". Deep, so nested objects follow the same rule.
 * @example compact({ a: [], b: undefined, c: { d: null, e: 1 } }) // { c: { e: 1 } }
 */
export function compact<T>(value: T): T {
  if (Array.isArray(value)) return value.map(compact) as T;
  if (!value || typeof value !== 'object' || Buffer.isBuffer(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner === undefined || inner === null) continue;
    if (Array.isArray(inner) && inner.length === 0) continue;
    out[key] = compact(inner);
  }
  return out as T;
}
