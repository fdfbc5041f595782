import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { DEFAULT_CONTRACT_PATH, loadContract, parseYaml, type Contract, type OpenApiDocument } from './load-contract.js';
import { ajvVersion, readFromCache, requireCached, toCachedModuleSource, writeToCache } from '../util/disk-cache.js';
import { lazyModule } from '../util/lazy-module.js';
import { addContractFormats, CONTRACT_FORMATS_FINGERPRINT } from './formats.js';
import { BOUNDS_DERIVATION_VERSION, boundsDocument } from './bounds.js';
import { compilePlan, CONTRACT_SCHEMA_ID, STATED_RULE_KEYWORD, type CompiledSchemas } from './validators.js';


// The compiler is loaded only on a cache miss: a warm start never pays for importing it.
const ajv2020 = lazyModule<typeof import('ajv/dist/2020.js')>('ajv/dist/2020.js');
const standalone = lazyModule<{ default?: typeof import('ajv/dist/standalone/index.js').default }>('ajv/dist/standalone/index.js');
const formats = lazyModule<{ default?: typeof import('ajv-formats').default }>('ajv-formats');
const standaloneCode = () => (standalone().default ?? standalone()) as typeof import('ajv/dist/standalone/index.js').default;
const addFormats = () => (formats().default ?? formats()) as typeof import('ajv-formats').default;

/** OpenAPI keywords that are not JSON Schema: known to Ajv as no-ops so strict mode stays on. */
const OPENAPI_KEYWORDS = [
  'openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'components', 'security', 'tags',
  'webhooks', 'externalDocs', 'example', 'discriminator', 'xml',
  // shipmock's mark on a cross-field rule its services report themselves (validators.ts, statedRulePaths).
  STATED_RULE_KEYWORD,
];

/** Bump when the generated code's shape changes, so old cache entries are ignored. */
const CACHE_FORMAT = 5;

/** `failFast`: stop at the first error (the size pre-checks: one violation is enough there). */
export function createAjv(coerce: boolean, failFast = false): Ajv2020 {
  const ajv = new (ajv2020().Ajv2020)({
    allErrors: !failFast,
    strict: true,
    strictRequired: false,
    strictTypes: false,
    // One function per referenced schema instead of inlining it everywhere: halves compile time.
    inlineRefs: false,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: coerce,
    code: { source: true, lines: false },
  });
  addFormats()(ajv);
  // Our own formats (webhook-url) are regular expressions: the standalone code embeds them.
  addContractFormats(ajv);
  for (const keyword of OPENAPI_KEYWORDS) ajv.addKeyword({ keyword });
  return ajv;
}

export interface CompiledContract {
  contract: Contract;
  schemas: CompiledSchemas;
  /** Where the result came from: a warm cache entry or a fresh compile. */
  source: 'cache' | 'compiled';
  /** The name its cache entry's files start with. */
  cacheKey: string;
}

/**
 * Loads the contract and its validators. Parsing 10k lines of YAML and compiling ~500
 * validators takes over a second; start-up must stay well under one. So the parsed document
 * and Ajv's standalone code for every validator are cached on disk, keyed by a hash of the
 * contract text (with the Ajv version and our formats' expressions): the build warms the cache, and a start with a warm cache only reads JSON and
 * loads one generated module. A miss (an edited or custom contract) compiles and refills it.
 *
 * @example const { contract, schemas } = loadCompiledContract(); // the bundled contract
 */
export function loadCompiledContract(source: string | OpenApiDocument = DEFAULT_CONTRACT_PATH): CompiledContract {
  const text = typeof source === 'string' ? readFileSync(source, 'utf8') : JSON.stringify(source);
  const key = createHash('sha256').update(`${CACHE_FORMAT}.${BOUNDS_DERIVATION_VERSION}\n${ajvVersion()}\n${CONTRACT_FORMATS_FINGERPRINT}\n${text}`).digest('hex').slice(0, 24);
  const cached = readFromCache((dir) => {
    const document = JSON.parse(readFileSync(join(dir, `${key}.json`), 'utf8')) as OpenApiDocument;
    const strict = requireCached<Record<string, ValidateFunction>>(join(dir, `${key}.strict.cjs`));
    const coercing = requireCached<Record<string, ValidateFunction>>(join(dir, `${key}.coercing.cjs`));
    const sizes = requireCached<Record<string, ValidateFunction>>(join(dir, `${key}.sizes.cjs`));
    return { contract: loadContract(document), schemas: { strict, coercing, sizes } };
  });
  if (cached) return { ...cached, source: 'cache', cacheKey: key };

  const document: OpenApiDocument = typeof source === 'string' ? parseYaml(text) : source;
  const contract = loadContract(document);
  const { schemas, code } = compileAll(contract);
  const dir = writeToCache([
    [`${key}.strict.cjs`, toCachedModuleSource(code.strict)],
    [`${key}.coercing.cjs`, toCachedModuleSource(code.coercing)],
    [`${key}.sizes.cjs`, toCachedModuleSource(code.sizes)],
    // The JSON last: a reader that finds it knows the modules are complete.
    [`${key}.json`, JSON.stringify(document)],
  ]);
  if (dir) pruneCache(dir);
  return { contract, schemas, source: 'compiled', cacheKey: key };
}

function compileAll(contract: Contract): { schemas: CompiledSchemas; code: { strict: string; coercing: string; sizes: string } } {
  const plan = compilePlan(contract);
  const strict = createAjv(false);
  const coercing = createAjv(true);
  strict.addSchema({ ...contract.document, $id: CONTRACT_SCHEMA_ID });
  coercing.addSchema({ ...contract.document, $id: CONTRACT_SCHEMA_ID });
  // The size-only shadows of the component schemas, for the body pre-checks (bounds.ts): fail
  // fast, since Ajv's allErrors concatenates error arrays per $ref call (quadratic over 10,000
  // oversized items) and one violation says enough.
  const sizes = createAjv(false, true);
  sizes.addSchema(boundsDocument(contract.document));
  const strictMapping: Record<string, string> = {};
  const coercingMapping: Record<string, string> = {};
  const sizesMapping: Record<string, string> = {};
  const schemas: CompiledSchemas = { strict: {}, coercing: {}, sizes: {} };
  for (const entry of plan) {
    if (entry.kind === 'pointer') {
      const fn = strict.getSchema(`${CONTRACT_SCHEMA_ID}${entry.pointer}`);
      if (!fn) throw new Error(`no schema at ${entry.pointer}`);
      strictMapping[entry.name] = `${CONTRACT_SCHEMA_ID}${entry.pointer}`;
      schemas.strict[entry.name] = fn;
    } else if (entry.kind === 'bounds') {
      const id = `https://shipmock.dev/schemas/${entry.name}.json`;
      sizes.addSchema({ ...entry.schema, $id: id });
      sizesMapping[entry.name] = id;
      schemas.sizes[entry.name] = sizes.getSchema(id)!;
    } else {
      const id = `https://shipmock.dev/schemas/${entry.name}.json`;
      coercing.addSchema({ ...entry.schema, $id: id });
      coercingMapping[entry.name] = id;
      schemas.coercing[entry.name] = coercing.getSchema(id)!;
    }
  }
  return {
    schemas,
    code: {
      strict: standaloneCode()(strict, strictMapping),
      coercing: standaloneCode()(coercing, coercingMapping),
      sizes: standaloneCode()(sizes, sizesMapping),
    },
  };
}

/** Entries kept per cache directory: the current contract plus recent edits or custom contracts. */
const CACHE_ENTRIES_KEPT = 8;

/** Drops all but the most recently written entries, so contract edits do not pile up megabytes. */
function pruneCache(dir: string): void {
  const entries = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ key: name.slice(0, -'.json'.length), at: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { key } of entries.slice(CACHE_ENTRIES_KEPT)) {
    for (const suffix of ['.json', '.strict.cjs', '.coercing.cjs', '.sizes.cjs', '.strict.cjs.v8', '.coercing.cjs.v8', '.sizes.cjs.v8']) rmSync(join(dir, key + suffix), { force: true });
  }
}
