import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The on-disk cache of compiled validators (the contract's, the scenario file format's).
 * Compiling them costs up to a second; loading Ajv's generated code costs tens of milliseconds.
 * Entries are named by a hash of what they were compiled from, so an edit simply misses.
 */
const requireHere = createRequire(import.meta.url);

/** Where entries live, in order: SHIPMOCK_CACHE_DIR, this package's node_modules/.cache (tool convention), the OS temp dir. */
export function cacheDirectories(): string[] {
  const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return [process.env.SHIPMOCK_CACHE_DIR, join(packageRoot, 'node_modules', '.cache', 'shipmock'), join(tmpdir(), 'shipmock-cache')].filter(
    (d): d is string => Boolean(d),
  );
}

/** The installed Ajv's version: generated code is only valid for the Ajv that wrote it, so keys include it. */
export function ajvVersion(): string {
  return (requireHere('ajv/package.json') as { version: string }).version;
}

/** Loads a cached CommonJS module (Ajv standalone code) by absolute path. */
export function requireCached<T>(path: string): T {
  return requireHere(path) as T;
}

/**
 * Ajv standalone code requires its runtime helpers ("ajv/dist/runtime/…", "ajv-formats/…");
 * they are made absolute so the entry still loads from a directory outside node_modules.
 */
export function toCachedModuleSource(code: string): string {
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
 * none is: the next start compiles again). Write-then-rename, so a parallel reader (another
 * test worker) never sees half a file; write the file a reader checks for last.
 */
export function writeToCache(files: [name: string, content: string][]): string | undefined {
  for (const dir of cacheDirectories()) {
    try {
      mkdirSync(dir, { recursive: true });
      for (const [name, content] of files) {
        const temp = join(dir, `${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
        writeFileSync(temp, content);
        renameSync(temp, join(dir, name));
      }
      return dir;
    } catch {
      // read-only location: try the next one
    }
  }
  return undefined;
}
