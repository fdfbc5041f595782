import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Start-up budget guard: libraries that cost tens to hundreds of milliseconds to import must
 * not be reachable through static `import` from the entry points; they load on first use
 * (lazyModule, or `await import()` in a command that needs them).
 */
const HEAVY = [
  'pdfkit', 'bwip-js', 'pngjs', 'selfsigned', 'yaml', '@faker-js/faker', 'ajv', 'ajv/dist/2020.js',
  'ajv/dist/standalone/index.js', 'ajv-formats', '@pact-foundation/pact', '@stoplight/prism-http',
  '@stoplight/prism-core', 'pdf-parse', 'autocannon', 're2js',
  // Express serves only the control plane (/__admin) and loads with it.
  'express',
  // pino writes the json log format only; pretty output does not need it.
  'pino',
];
const src = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY_POINTS = ['index.ts', 'cli/main.ts'];

/** Static, non-type imports and re-exports of a TypeScript file. */
function staticImports(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  const found: string[] = [];
  const pattern = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const match of code.matchAll(pattern)) found.push(match[1]);
  return found;
}

function walk(): Map<string, string> {
  const heavyFrom = new Map<string, string>();
  const seen = new Set<string>();
  const queue = ENTRY_POINTS.map((e) => join(src, e));
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
        if (existsSync(target)) queue.push(target);
      } else if (HEAVY.includes(specifier)) {
        heavyFrom.set(specifier, file.slice(src.length + 1));
      }
    }
  }
  return heavyFrom;
}

describe('start-up import graph', () => {
  it('reaches no heavy library through static imports from the entry points', () => {
    expect(Object.fromEntries(walk())).toEqual({});
  });

  it('would notice one (the guard can fail)', () => {
    expect(staticImports(join(src, 'util', 'lazy-module.ts'))).toContain('node:module');
  });
});
