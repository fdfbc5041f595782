import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The import graph of src/ runs one way: a folder imports only from folders below it in this
 * list (lowest first): domain below app, app below server and cli.
 * (dependency-cruiser does this too; 50 lines over TypeScript's own preProcessFile need no
 * new dependency.)
 */
const LAYERS = [
  'client',
  'util',
  'errors',
  'clock',
  'random',
  'logging',
  'store',
  'contract',
  'contract-diff',
  'auth',
  'rate-limit',
  'carrier-catalogue',
  'carriers',
  'rendering',
  'events',
  'scenarios',
  'billing',
  'resources',
  'config',
  'journal',
  'recording',
  'prism',
  'runtime',
  // The HTTP model sits above the whole domain: only the pipeline and what serves it read requests.
  'http',
  'admin',
  'app',
  'proxy',
  'record',
  'replay',
  'server',
  'verify',
  'can-i-deploy',
  'cli',
  'index',
];

/**
 * The domain never imports HTTP types (DESIGN.md, "Layers"). The layer order already says so
 * (http/ sits above the domain); this names the rule on its own, so that it holds even if the
 * order is ever rearranged. What a service needs from a request, the caller, is
 * src/auth/principal.ts, below both.
 */
const DOMAIN = ['carrier-catalogue', 'carriers', 'rendering', 'events', 'scenarios', 'billing', 'resources'];

const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The layer a file belongs to: its top folder under src/ (src/index.ts: `index`). */
function layerOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length === 1 ? parts[0].replace(/\.ts$/, '') : parts[0];
}

interface Edge {
  from: string;
  to: string;
  file: string;
  imports: string;
}

function importEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName.replace(/\.js$/, '.ts'));
      const from = layerOf(file);
      const to = layerOf(target);
      if (from !== to) edges.push({ from, to, file: relative(SRC, file), imports: relative(SRC, target) });
    }
  }
  return edges;
}

describe('the import graph of src/', () => {
  const edges = importEdges();

  it('has every folder in the layer list', () => {
    const folders = new Set(sourceFiles(SRC).map(layerOf));
    expect([...folders].filter((f) => !LAYERS.includes(f)).sort()).toEqual([]);
  });

  it('runs one way: no folder imports from a folder above it (so no folder-level cycle)', () => {
    const upward = edges.filter((e) => LAYERS.indexOf(e.to) > LAYERS.indexOf(e.from)).map((e) => `${e.file} (${e.from}) imports ${e.imports} (${e.to})`);
    expect(upward).toEqual([]);
  });

  it('keeps HTTP types out of the domain: no domain folder imports from http/', () => {
    const intoHttp = edges.filter((e) => DOMAIN.includes(e.from) && e.to === 'http').map((e) => `${e.file} imports ${e.imports}`);
    expect(intoHttp).toEqual([]);
  });
});
