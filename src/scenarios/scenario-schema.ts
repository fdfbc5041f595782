import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { lazyModule } from '../util/lazy-module.js';

// Ajv's compiler loads only when the cache is cold (start-up budget, src/util/lazy-module.ts).
const ajvModule = lazyModule<typeof import('ajv/dist/2020.js')>('ajv/dist/2020.js');
const standaloneModule = lazyModule<typeof import('ajv/dist/standalone/index.js')>('ajv/dist/standalone/index.js');
const require = createRequire(import.meta.url);

/**
 * The validator of the scenario file format (scenarios/scenario.schema.json). Compiling it costs
 * ~0.3 s, which a `--scenario` start or a test file activating scenarios would pay every time;
 * so, like the contract's validators (src/contract/compiled-contract.ts), Ajv's standalone code
 * is cached on disk keyed by a hash of the schema, and a warm start only loads one module.
 * Shared by every loader of the process: the function is pure (a constant schema; `errors` is
 * read right after each call), so sharing it carries no state between mock instances.
 */
let compiled: ValidateFunction | undefined;

export function scenarioSchemaValidator(schemaPath: string): ValidateFunction {
  if (compiled) return compiled;
  const text = readFileSync(schemaPath, 'utf8');
  const version = (require('ajv/package.json') as { version: string }).version;
  const name = `scenario-schema-${createHash('sha256').update(`${version}\n${text}`).digest('hex').slice(0, 24)}.cjs`;
  for (const dir of cacheDirs()) {
    try {
      compiled = require(join(dir, name)) as ValidateFunction;
      return compiled;
    } catch {
      // not cached there: try the next directory, then compile
    }
  }
  const { Ajv2020 } = ajvModule();
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false, code: { source: true, lines: false } });
  compiled = ajv.compile(JSON.parse(text));
  // CommonJS default export under .default.
  const standalone = standaloneModule() as unknown as { default: (ajv: unknown, fn: ValidateFunction) => string };
  writeCache(name, standalone.default(ajv, compiled));
  return compiled;
}

function cacheDirs(): string[] {
  const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return [process.env.SHIPMOCK_CACHE_DIR, join(packageRoot, 'node_modules', '.cache', 'shipmock'), join(tmpdir(), 'shipmock-cache')].filter((d): d is string => Boolean(d));
}

function writeCache(name: string, code: string): void {
  // Runtime helpers are required by absolute path, so the cache may live outside node_modules.
  const absolute = code.replace(/require\("((?:ajv|ajv-formats)\/[^"]+)"\)/g, (_m, request: string) => `require(${JSON.stringify(require.resolve(request))})`);
  for (const dir of cacheDirs()) {
    try {
      mkdirSync(dir, { recursive: true });
      // write-then-rename: parallel test workers never read a half-written module
      const temp = join(dir, `${name}.${process.pid}.${Date.now().toString(36)}.tmp`);
      writeFileSync(temp, absolute);
      renameSync(temp, join(dir, name));
      return;
    } catch {
      // read-only location: try the next one; without any, the next start compiles again
    }
  }
}
