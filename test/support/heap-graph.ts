import { getHeapSnapshot } from 'node:v8';

/**
 * The objects reachable from one root, read from a V8 heap snapshot: closures' captured
 * variables included, which no walk over properties can see (factories keep their state in
 * closures). Used by test/architecture/unregistered-state.test.ts.
 */
export interface Container {
  kind: 'Map' | 'Set' | 'Array';
  /** How many heap objects it holds (entries of numbers only are not counted). */
  entries: number;
  /** Edge names from the root: property names, closure variables (`name()`), element indexes. */
  path: string[];
}

/** Holds the root so it can be found in the snapshot. */
export class HeapGuardRoot {
  constructor(readonly root: unknown) {}
}

/** Edges that lead out of the instance into the engine's own machinery (code, hidden classes, scripts, the global object). */
const NOT_FOLLOWED = new Set(['properties', 'security_token', 'extension', 'global_proxy_object', 'global_object', 'map', 'shared', 'code', '__proto__', 'feedback_cell', 'name_or_scope_info', 'script_or_debug_info', 'native_context', 'global_proxy', 'constructor', 'prototype']);

/**
 * Every Map, Set and Array holding heap objects that is reachable from `root`, with the shortest
 * path to it; `prune(name)` stops the walk at an edge (immutable data, allowed caches).
 */
export async function containersReachableFrom(root: unknown, prune: (edge: string) => boolean): Promise<Container[]> {
  const holder = new HeapGuardRoot(root);
  const chunks: string[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(String(chunk));
  // Keeps the holder alive until the snapshot is taken.
  void holder;
  const snapshot = JSON.parse(chunks.join(''));
  chunks.length = 0;
  const { nodes, edges, strings } = snapshot as { nodes: number[]; edges: number[]; strings: string[] };
  const meta = snapshot.snapshot.meta;
  const NF: number = meta.node_fields.length;
  const EF: number = meta.edge_fields.length;
  const nodeTypes: string[] = meta.node_types[0];
  const edgeTypes: string[] = meta.edge_types[0];
  const count = nodes.length / NF;
  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0, e = 0; n < count; n++) {
    firstEdge[n] = e;
    e += nodes[n * NF + 4] * EF;
    firstEdge[n + 1] = e;
  }
  const typeOf = (n: number) => nodeTypes[nodes[n * NF]];
  const nameOf = (n: number) => strings[nodes[n * NF + 1]];
  const edgeName = (k: number) => {
    const type = edgeTypes[edges[k]];
    return type === 'element' || type === 'hidden' ? String(edges[k + 1]) : strings[edges[k + 1]];
  };
  const target = (n: number, label: string): number => {
    for (let k = firstEdge[n]; k < firstEdge[n + 1]; k += EF) if (edgeName(k) === label) return edges[k + 2] / NF;
    return -1;
  };
  /** Whether a closure is the mock's own code: only those closures' captured variables are walked (not node's, not libraries'). */
  const ownCode = (closure: number): boolean => {
    const shared = target(closure, 'shared');
    const script = shared < 0 ? -1 : target(shared, 'script_or_debug_info');
    const file = script < 0 ? '' : nameOf(script);
    return !file.startsWith('node:') && !file.includes('/node_modules/') && file !== '';
  };
  /** A module's (or script's) scope: the context right below the native context. */
  const isModuleScope = (context: number): boolean => {
    if (nameOf(context) === 'system / NativeContext') return true;
    const previous = target(context, 'previous');
    return previous < 0 || nameOf(previous) === 'system / NativeContext';
  };
  let start = -1;
  for (let n = 0; n < count; n++) if (typeOf(n) === 'object' && nameOf(n) === 'HeapGuardRoot') start = n;
  if (start < 0) throw new Error('the root is not in the heap snapshot');

  const parent = new Int32Array(count).fill(-2);
  const via: string[] = new Array(count);
  parent[start] = -1;
  const queue = [start];
  const found: number[] = [];
  for (let head = 0; head < queue.length; head++) {
    const n = queue[head];
    const name = nameOf(n);
    if (typeOf(n) === 'object' && (name === 'Map' || name === 'Set' || name === 'Array')) found.push(n);
    for (let k = firstEdge[n]; k < firstEdge[n + 1]; k += EF) {
      const type = edgeTypes[edges[k]];
      if (type === 'weak' || type === 'shortcut') continue;
      const label = edgeName(k);
      if (NOT_FOLLOWED.has(label) || prune(label)) continue;
      if (label === 'context' && typeOf(n) === 'closure' && !ownCode(n)) continue;
      // A module's own scope is no instance's state (and leads to every module it imports).
      if ((label === 'context' || label === 'previous') && isModuleScope(edges[k + 2] / NF)) continue;
      const to = edges[k + 2] / NF;
      if (parent[to] !== -2) continue;
      const toType = typeOf(to);
      if (toType === 'code' || toType === 'string' || toType === 'number' || toType === 'concatenated string' || toType === 'sliced string') continue;
      parent[to] = n;
      via[to] = type === 'context' ? `${label}()` : label;
      queue.push(to);
    }
  }

  const heldBy = (n: number, backing: string): number => {
    let held = 0;
    for (let k = firstEdge[n]; k < firstEdge[n + 1]; k += EF) {
      if (edgeName(k) !== backing) continue;
      const store = edges[k + 2] / NF;
      for (let j = firstEdge[store]; j < firstEdge[store + 1]; j += EF) if (typeOf(edges[j + 2] / NF) !== 'hidden') held++;
    }
    return held;
  };
  const out: Container[] = [];
  for (const n of found) {
    const kind = nameOf(n) as Container['kind'];
    const entries = kind === 'Array' ? heldBy(n, 'elements') : heldBy(n, 'table');
    if (entries === 0) continue;
    const path: string[] = [];
    for (let at = n; parent[at] >= 0; at = parent[at]) path.unshift(via[at]);
    out.push({ kind, entries, path });
  }
  return out;
}
