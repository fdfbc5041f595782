import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, posix, relative, resolve as resolvePath } from 'node:path';
import { promisify } from 'node:util';
import { lazyModule } from '../util/lazy-module.js';

// js-yaml with the YAML 1.2 core schema: several times faster than `yaml` on a 10,000-line contract
// (the 1 s budget), and an unquoted date-time or NO stays a string as JSON Schema expects.
const jsYaml = lazyModule<typeof import('js-yaml')>('js-yaml');
const run = promisify(execFile);

/**
 * Where a contract comes from: a file, a URL (a running mock serves its contract at
 * /openapi.json), or a git revision (`git:REV:path`, read with `git show`). Each document's
 * external `$ref`s are read relative to it — for git, from the same revision.
 */
export type Source = { kind: 'file'; path: string } | { kind: 'url'; url: string } | { kind: 'git'; rev: string; path: string; cwd: string };

/** All documents of one side of a diff: the root and every file its `$ref`s reach, by id. */
export interface DocumentSet {
  /** Id of the root document. */
  root: string;
  documents: Map<string, unknown>;
  /** How an input was named on the command line (for reports). */
  label: string;
  /** A short name of a document id for pointers in reports ('' for the root). */
  nameOf(id: string): string;
  /** The id of the document a `$ref` (its part before `#`) names, seen from document `from`. */
  idOf(from: string, reference: string): string;
}

/**
 * Parses an input argument into a source.
 * @example parseSource('git:HEAD~1:contract/openapi.yaml') // { kind: 'git', rev: 'HEAD~1', path: 'contract/openapi.yaml', cwd }
 */
export function parseSource(input: string, cwd = process.cwd()): Source {
  if (input.startsWith('git:')) {
    const rest = input.slice(4);
    const colon = rest.lastIndexOf(':');
    if (colon <= 0 || colon === rest.length - 1) throw new Error(`${input}: a git input is git:REV:PATH, e.g. git:HEAD~1:contract/openapi.yaml`);
    return { kind: 'git', rev: rest.slice(0, colon), path: rest.slice(colon + 1), cwd };
  }
  if (/^https?:\/\//i.test(input)) {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new Error(`${input} is not a valid URL`);
    }
    // A mock's base URL: it serves the contract it runs at /openapi.json.
    if (url.pathname === '/' || url.pathname === '') url.pathname = '/openapi.json';
    return { kind: 'url', url: url.href };
  }
  return { kind: 'file', path: resolvePath(cwd, input) };
}

function idOfSource(source: Source): string {
  if (source.kind === 'file') return source.path;
  if (source.kind === 'url') return source.url;
  return `git:${source.rev}:${source.path}`;
}

/** The source a relative reference names, seen from `base`. */
function relativeSource(base: Source, reference: string): Source {
  if (/^https?:\/\//i.test(reference)) return { kind: 'url', url: new URL(reference).href };
  if (base.kind === 'file') return { kind: 'file', path: resolvePath(dirname(base.path), decodeURIComponent(reference)) };
  if (base.kind === 'url') return { kind: 'url', url: new URL(reference, base.url).href };
  return { ...base, path: posix.normalize(posix.join(posix.dirname(base.path), decodeURIComponent(reference))) };
}

async function readSource(source: Source, role: string): Promise<string> {
  try {
    if (source.kind === 'file') return await readFile(source.path, 'utf8');
    if (source.kind === 'url') {
      const response = await fetch(source.url, { headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.1' }, signal: AbortSignal.timeout(30_000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return await response.text();
    }
    const { stdout } = await run('git', ['show', `${source.rev}:${source.path}`], { cwd: source.cwd, maxBuffer: 256 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const err = error as Error & { stderr?: string; code?: string };
    const detail = (err.stderr?.trim().split('\n')[0] || (err.code === 'ENOENT' ? 'no such file' : err.message)).replace(/^fatal: /, '');
    throw new Error(`cannot read the ${role} contract ${idOfSource(source)}: ${detail}`);
  }
}

function parseText(text: string, id: string, role: string): unknown {
  try {
    if (/^\s*[{[]/.test(text)) {
      try {
        return JSON.parse(text);
      } catch {
        // not JSON after all: YAML flow style
      }
    }
    return jsYaml().load(text, { schema: jsYaml().CORE_SCHEMA, filename: id });
  } catch (error) {
    throw new Error(`the ${role} contract ${id} is neither YAML nor JSON: ${(error as Error).message.split('\n')[0]}`);
  }
}

/**
 * Reads an input and every document its `$ref`s reach (transitively). `role` names the side
 * ('old' or 'new') in error messages.
 *
 * @example const set = await loadDocumentSet('git:HEAD:contract/openapi.yaml', 'old')
 */
export async function loadDocumentSet(input: string, role: string, cwd = process.cwd()): Promise<DocumentSet> {
  const rootSource = parseSource(input, cwd);
  const sources = new Map<string, Source>();
  const documents = new Map<string, unknown>();
  const rootId = idOfSource(rootSource);
  const queue: Source[] = [rootSource];
  sources.set(rootId, rootSource);
  while (queue.length) {
    const source = queue.shift()!;
    const id = idOfSource(source);
    const document = parseText(await readSource(source, role), id, role);
    if (id === rootId) checkOpenApi(document, input, role);
    documents.set(id, document);
    for (const reference of refsIn(document)) {
      const target = reference.split('#')[0];
      if (!target) continue;
      const next = relativeSource(source, target);
      const nextId = idOfSource(next);
      if (!sources.has(nextId)) {
        sources.set(nextId, next);
        queue.push(next);
      }
    }
  }
  return documentSet(rootId, documents, input, (from, reference) => idOfSource(relativeSource(sources.get(from)!, reference)), rootSource);
}

/**
 * A document set of parsed documents (in-process use: `diffContracts(oldDoc, newDoc)`).
 * External references resolve against `others` by the reference text, e.g. { 'common.yaml': {...} }.
 */
export function inMemoryDocumentSet(document: unknown, label: string, others: Record<string, unknown> = {}): DocumentSet {
  checkOpenApi(document, label, label);
  const documents = new Map<string, unknown>([['', document], ...Object.entries(others)]);
  return documentSet('', documents, label, (from, reference) => posix.normalize(posix.join(posix.dirname(from || '.'), reference)));
}

function documentSet(root: string, documents: Map<string, unknown>, label: string, idOf: (from: string, reference: string) => string, rootSource?: Source): DocumentSet {
  return {
    root,
    documents,
    label,
    idOf,
    nameOf(id) {
      if (id === root) return '';
      if (rootSource?.kind === 'file' && !id.includes('://') && !id.startsWith('git:')) return relative(dirname(rootSource.path), id);
      if (rootSource?.kind === 'git' && id.startsWith('git:')) return posix.relative(posix.dirname(rootSource.path), id.slice(id.lastIndexOf(':') + 1));
      return id;
    },
  };
}

function checkOpenApi(document: unknown, input: string, role: string): void {
  const version = document && typeof document === 'object' ? (document as { openapi?: unknown }).openapi : undefined;
  if (typeof version !== 'string' || !/^3\.[01]\./.test(version)) {
    throw new Error(`the ${role} contract ${input} is not an OpenAPI 3.1 (or 3.0) document${version === undefined ? ' (no openapi field)' : ` (openapi: ${String(version)})`}`);
  }
}

/** Every `$ref` string inside a value (iteratively: documents may be deep). */
export function refsIn(value: unknown): string[] {
  const found: string[] = [];
  const stack = [value];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (key === '$ref' && typeof child === 'string') found.push(child);
        else if (child && typeof child === 'object') stack.push(child);
      }
    }
  }
  return found;
}
