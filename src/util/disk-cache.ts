import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/**
 * The on-disk cache of compiled validators (the contract's, the scenario file format's).
 * Compiling them costs up to a second; loading Ajv's generated code costs tens of milliseconds.
 * Entries are named by a hash of what they were compiled from, so an edit simply misses.
 */
const requireHere = createRequire(import.meta.url);

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The entries `npm run build` compiles into the package itself (dist/validator-cache): a freshly
 * installed tarball starts from them instead of compiling the contract on its first run (the
 * node_modules/.cache of the machine that built it is not in the tarball).
 */
export const SHIPPED_CACHE_DIR = join(packageRoot, 'dist', 'validator-cache');

let shipping: string | undefined;

/**
 * Build only (scripts/warm-cache.mjs): from now on entries are read from and written to `dir`
 * alone, with their `require`s left bare so they resolve from the package wherever it is installed.
 */
export function shipEntriesTo(dir: string): void {
  shipping = dir;
}

/**
 * Where entries live, in order: SHIPMOCK_CACHE_DIR, the package's shipped entries, this package's
 * node_modules/.cache (tool convention), the OS temp dir.
 */
export function cacheDirectories(): string[] {
  if (shipping) return [shipping];
  return [process.env.SHIPMOCK_CACHE_DIR, SHIPPED_CACHE_DIR, join(packageRoot, 'node_modules', '.cache', 'shipmock'), join(tmpdir(), 'shipmock-cache')].filter(
    (d): d is string => Boolean(d),
  );
}

/** The installed Ajv's version: generated code is only valid for the Ajv that wrote it, so keys include it. */
export function ajvVersion(): string {
  return (requireHere('ajv/package.json') as { version: string }).version;
}

/** Modules already loaded in this process, like require's own cache (the code is pure). */
const loadedModules = new Map<string, unknown>();

/**
 * Loads a cached CommonJS module (Ajv standalone code, ~1.8 MB for the contract) by absolute
 * path, with V8's code cache kept beside it (`<path>.v8`): parsing that much code took ~60 ms
 * of every start, deserialising the code cache ~30. A rejected or missing code cache (another
 * Node version) is simply rebuilt. Throws when the module is not there.
 */
export function requireCached<T>(path: string): T {
  const loaded = loadedModules.get(path);
  if (loaded) return loaded as T;
  const source = readFileSync(path, 'utf8');
  const codeCachePath = `${path}.v8`;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(codeCachePath);
  } catch {
    // first load of this entry: the code cache is written below
  }
  const script = new Script(`(function (exports, require, module) {${source}\n})`, { filename: path, cachedData });
  const module = { exports: {} as T };
  script.runInThisContext()(module.exports, createRequire(path), module);
  if (!cachedData || script.cachedDataRejected) {
    try {
      writeAtomically(codeCachePath, script.createCachedData());
    } catch {
      // read-only cache directory: the next start parses the source again
    }
  }
  loadedModules.set(path, module.exports);
  return module.exports;
}

function writeAtomically(path: string, content: string | Buffer): void {
  // write-then-rename: a parallel reader (another test worker) never sees half a file
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temp, content);
  renameSync(temp, path);
}

/**
 * Ajv standalone code requires its runtime helpers ("ajv/dist/runtime/…", "ajv-formats/…");
 * they are made absolute so the entry still loads from a directory outside node_modules — except
 * in shipped entries, which live inside the package and resolve them like its own code does.
 */
export function toCachedModuleSource(code: string): string {
  if (shipping) return code;
  return code.replace(/require\("((?:ajv|ajv-formats)\/[^"]+)"\)/g, (_m, request: string) => `require(${JSON.stringify(requireHere.resolve(request))})`);
}

/** The first directory `read` succeeds in (it throws when the entry is not there), or undefined. */
export function readFromCache<T>(read: (dir: string) => T): T | undefined {
  for (const dir of cacheDirectories()) {
    try {
      return read(dir);
    } catch {
      // not in this directory (or unreadable): try the next; the caller compiles on a miss
    }
  }
  return undefined;
}

/**
 * Writes the files, in order, into the first writable directory and returns it (undefined when
 * none is: the next start compiles again). Write the file a reader checks for last.
 */
export function writeToCache(files: [name: string, content: string][]): string | undefined {
  for (const dir of cacheDirectories()) {
    try {
      mkdirSync(dir, { recursive: true });
      for (const [name, content] of files) writeAtomically(join(dir, name), content);
      return dir;
    } catch {
      // read-only location: try the next one
    }
  }
  return undefined;
}
