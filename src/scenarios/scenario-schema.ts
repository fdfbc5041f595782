import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { ajvVersion, readFromCache, requireCached, toCachedModuleSource, writeToCache } from '../util/disk-cache.js';
import { lazyModule } from '../util/lazy-module.js';

// Ajv's compiler loads only when the cache is cold (start-up budget, src/util/lazy-module.ts).
const ajvModule = lazyModule<typeof import('ajv/dist/2020.js')>('ajv/dist/2020.js');
// CommonJS: the code generator is the module's `default` export.
const standaloneModule = lazyModule<{ default: typeof import('ajv/dist/standalone/index.js').default }>('ajv/dist/standalone/index.js');

/**
 * The validator of the scenario file format (scenarios/scenario.schema.json). Compiling it costs
 * ~0.3 s, which a `--scenario` start or a test file activating scenarios would pay every time;
 * so, like the contract's validators (src/contract/compiled-contract.ts), Ajv's standalone code
 * is cached on disk keyed by a hash of the schema, and a warm start only loads one module.
 * Shared by every loader of the process: the function is pure (a constant schema; `errors` is
 * read right after each call), so sharing it carries no state between mock instances.
 */
let compiled: ValidateFunction | undefined;

/** The file name of the schema's cache entry. */
export function scenarioSchemaCacheName(schemaPath: string): string {
  const text = readFileSync(schemaPath, 'utf8');
  return `scenario-schema-${createHash('sha256').update(`${ajvVersion()}\n${text}`).digest('hex').slice(0, 24)}.cjs`;
}

export function scenarioSchemaValidator(schemaPath: string): ValidateFunction {
  if (compiled) return compiled;
  const text = readFileSync(schemaPath, 'utf8');
  const name = scenarioSchemaCacheName(schemaPath);
  compiled = readFromCache((dir) => requireCached<ValidateFunction>(join(dir, name)));
  if (compiled) return compiled;
  const { Ajv2020 } = ajvModule();
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false, code: { source: true, lines: false } });
  const fresh = ajv.compile(JSON.parse(text));
  writeToCache([[name, toCachedModuleSource(standaloneModule().default(ajv, fresh))]]);
  compiled = fresh;
  return fresh;
}
