import type { DocumentSet } from './load.js';
import { child, deref, rootLoc, showLoc, type Loc } from './resolve.js';
import { showSchemaPath, type Direction, type SchemaDiffer } from './schema-diff.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** One operation of a contract: a method on a path template, or a webhook. */
export interface OperationEntry {
  kind: 'path' | 'webhook';
  /** Upper-case HTTP method. */
  method: string;
  /** The path template as written (`/v1/addresses/{address-id}`), or the webhook's name. */
  path: string;
  pathItem: Loc;
  op: Loc;
}

/** A change found by the walk, before classes and overrides are applied (diff.ts: ContractChange adds them). */
export interface RawChange {
  /** Rule id (rules.ts, docs/contract-diff.md). */
  rule: string;
  /** One line: what changed. */
  reason: string;
  /** The operation it affects: upper-case method and path template as in the new contract (webhooks: the webhook's name). */
  operation?: { method: string; path: string };
  /** 'request': what the client sends; 'response': what it reads; 'webhook': a webhook the API sends. */
  location?: 'request' | 'response' | 'webhook';
  /** The response status as the contract writes it ('200', '4XX', 'default'). */
  status?: string;
  /** Where in the operation: 'request body (application/json)', 'query parameter limit', 'response 200 header Retry-After', 'security', 'operation'. */
  where: string;
  /** Inside the schema: 'receiver.postalCode', 'items[].id'. */
  schemaPath?: string;
  /** JSON pointers into the old and new documents (`#/…`, or `file.yaml#/…` for another file of a side). */
  pointer: { old?: string; new?: string };
}

const templateKey = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

/**
 * The operations of a contract by a key that matches across versions: the method and the path
 * template with its parameter names blanked (renaming `{id}` to `{addressId}` is the same URL).
 */
export function listOperations(set: DocumentSet): Map<string, OperationEntry> {
  const root = rootLoc(set);
  const operations = new Map<string, OperationEntry>();
  for (const section of ['paths', 'webhooks'] as const) {
    const container = (root.node as Record<string, unknown>)[section];
    if (!container || typeof container !== 'object') continue;
    for (const name of Object.keys(container)) {
      const pathItem = deref(set, child(root, section, name));
      if (!pathItem.node || typeof pathItem.node !== 'object') continue;
      for (const method of METHODS) {
        if (!(pathItem.node as Record<string, unknown>)[method]) continue;
        const kind = section === 'paths' ? 'path' : 'webhook';
        const key = kind === 'path' ? `${method.toUpperCase()} ${templateKey(name)}` : `webhook ${name} ${method.toUpperCase()}`;
        operations.set(key, { kind, method: method.toUpperCase(), path: name, pathItem, op: child(pathItem, method) });
      }
    }
  }
  return operations;
}

/** Media types compare case-insensitively, without spaces, and `charset=utf-8` (JSON's only encoding, RFC 8259 §8.1) is no difference. */
const mediaKey = (mediaType: string) =>
  mediaType
    .toLowerCase()
    .replace(/\s+/g, '')
    .replace(/;charset="?utf-8"?/, '');
const isSuccess = (status: string) => /^[123]/.test(status);

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  loc: Loc;
  schema?: Loc;
}

interface Site {
  operation?: { method: string; path: string };
  location?: RawChange['location'];
  status?: string;
  where: string;
}

/**
 * Walks two versions of the contract operation by operation and reports what changed in
 * each: parameters (path and operation level merged), request bodies, responses with their
 * media types and headers, security; webhooks with the roles reversed.
 */
export class OperationDiffer {
  readonly changes: RawChange[] = [];

  constructor(
    private readonly oldSet: DocumentSet,
    private readonly newSet: DocumentSet,
    private readonly schemas: SchemaDiffer,
  ) {}

  private add(rule: string, reason: string, site: Site, oldLoc?: Loc, newLoc?: Loc, schemaPath?: string): void {
    this.changes.push({ rule, reason, ...site, ...(schemaPath ? { schemaPath } : {}), pointer: { old: showLoc(this.oldSet, oldLoc), new: showLoc(this.newSet, newLoc) } });
  }

  private schemaChanges(oldLoc: Loc | undefined, newLoc: Loc | undefined, direction: Direction, site: Site): void {
    for (const change of this.schemas.compare(oldLoc ? [oldLoc] : [], newLoc ? [newLoc] : [], direction)) {
      this.changes.push({ rule: change.rule, reason: change.reason, ...site, ...(change.path.length ? { schemaPath: showSchemaPath(change.path) } : {}), pointer: { old: change.oldPointer, new: change.newPointer } });
    }
  }

  /** Compares every operation of the two versions. */
  compareAll(): void {
    const before = listOperations(this.oldSet);
    const after = listOperations(this.newSet);
    for (const [key, o] of before) {
      const n = after.get(key);
      const operation = { method: o.method, path: (n ?? o).path };
      if (!n) {
        if (o.kind === 'webhook') this.add('webhook-removed', `webhook ${o.path} (${o.method}) removed`, { operation, location: 'webhook', where: 'webhook' }, o.op);
        else this.add('operation-removed', `${o.method} ${o.path} removed`, { operation, where: 'operation' }, o.op);
        continue;
      }
      this.compareOperation(o, n);
    }
    for (const [key, n] of after) {
      if (before.has(key)) continue;
      const operation = { method: n.method, path: n.path };
      if (n.kind === 'webhook') this.add('webhook-added', `new webhook ${n.path} (${n.method})`, { operation, location: 'webhook', where: 'webhook' }, undefined, n.op);
      else this.add('operation-added', `new operation ${n.method} ${n.path}`, { operation, where: 'operation' }, undefined, n.op);
    }
    this.compareSecuritySchemes();
  }

  private compareOperation(o: OperationEntry, n: OperationEntry): void {
    const operation = { method: n.method, path: n.path };
    const webhook = n.kind === 'webhook';
    const op = (loc: Loc) => (loc.node ?? {}) as Record<string, unknown>;
    if (o.path !== n.path) this.add('path-parameter-renamed', `path ${o.path} → ${n.path}`, { operation, where: 'operation' }, child(o.pathItem), child(n.pathItem));
    if (op(n.op).deprecated === true && op(o.op).deprecated !== true) this.add('operation-deprecated', `${n.method} ${n.path} is deprecated`, { operation, location: webhook ? 'webhook' : undefined, where: 'operation' }, o.op, child(n.op, 'deprecated'));
    if (!webhook) this.compareSecurity(o, n, operation);
    this.compareParameters(o, n, operation, webhook);
    this.compareRequestBody(o, n, operation, webhook);
    this.compareResponses(o, n, operation, webhook);
  }

  private parameters(set: DocumentSet, entry: OperationEntry): Map<string, Parameter> {
    const order = [...entry.path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
    const merged = new Map<string, Parameter>();
    for (const list of [child(entry.pathItem, 'parameters'), child(entry.op, 'parameters')]) {
      if (!Array.isArray(list.node)) continue;
      list.node.forEach((_, i) => {
        const loc = deref(set, child(list, i));
        const p = loc.node as { name?: unknown; in?: unknown; required?: unknown; schema?: unknown; content?: Record<string, { schema?: unknown }> };
        if (!p || typeof p.name !== 'string' || typeof p.in !== 'string') return;
        // Path parameters match by position (a renamed {id} is the same parameter); headers by name, any case.
        const key = p.in === 'path' ? `path#${order.indexOf(p.name)}` : `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
        const mediaType = p.content && Object.keys(p.content)[0];
        const schema = p.schema !== undefined ? child(loc, 'schema') : mediaType ? child(loc, 'content', mediaType, 'schema') : undefined;
        merged.set(key, { name: p.name, in: p.in, required: p.in === 'path' || p.required === true, loc, schema });
      });
    }
    return merged;
  }

  private compareParameters(o: OperationEntry, n: OperationEntry, operation: Site['operation'], webhook: boolean): void {
    const before = this.parameters(this.oldSet, o);
    const after = this.parameters(this.newSet, n);
    for (const key of new Set([...before.keys(), ...after.keys()])) {
      const p = before.get(key);
      const q = after.get(key);
      const shown = (q ?? p)!;
      const site: Site = { operation, location: webhook ? 'webhook' : 'request', where: webhook ? `${shown.in} ${shown.name} (sent to receivers)` : `${shown.in} parameter ${shown.name}` };
      if (webhook) {
        // Webhook parameters are what the API sends: the receiver reads them, like response headers.
        if (p && !q) this.add('response-header-removed', `${p.in} ${p.name} is no longer sent`, site, p.loc);
        else if (!p && q) this.add('response-header-added', `new ${q.in} ${q.name}`, site, undefined, q.loc);
        else if (p && q) {
          if (p.required && !q.required) this.add('response-header-became-optional', `${q.in} ${q.name} may now be missing`, site, p.loc, q.loc);
          this.schemaChanges(p.schema, q.schema, 'response', site);
        }
        continue;
      }
      if (p && !q) this.add('request-parameter-removed', `${p.in} parameter ${p.name} removed`, site, p.loc);
      else if (!p && q) this.add(q.required ? 'request-parameter-added-required' : 'request-parameter-added-optional', `new ${q.required ? 'required' : 'optional'} ${q.in} parameter ${q.name}`, site, undefined, q.loc);
      else if (p && q) {
        if (!p.required && q.required) this.add('request-parameter-became-required', `${q.in} parameter ${q.name} is now required`, site, p.loc, q.loc);
        if (p.required && !q.required) this.add('request-parameter-became-optional', `${q.in} parameter ${q.name} is now optional`, site, p.loc, q.loc);
        const before = serialization(p);
        const after = serialization(q);
        if (before !== after) this.add('request-parameter-serialization-changed', `${q.in} parameter ${q.name}: ${before} → ${after}`, site, p.loc, q.loc);
        this.schemaChanges(p.schema, q.schema, 'request', site);
      }
    }
  }

  private compareRequestBody(o: OperationEntry, n: OperationEntry, operation: Site['operation'], webhook: boolean): void {
    const bodyOf = (set: DocumentSet, entry: OperationEntry) => {
      const loc = child(entry.op, 'requestBody');
      return loc.node && typeof loc.node === 'object' ? deref(set, loc) : undefined;
    };
    const before = bodyOf(this.oldSet, o);
    const after = bodyOf(this.newSet, n);
    const required = (loc: Loc | undefined) => (loc?.node as { required?: unknown } | undefined)?.required === true;
    const location = webhook ? 'webhook' : 'request';
    const site: Site = { operation, location, where: webhook ? 'payload' : 'request body' };
    if (!webhook) {
      if (!before && after) {
        this.add(required(after) ? 'request-body-became-required' : 'request-body-added-optional', required(after) ? 'the operation now requires a request body' : 'the operation now takes an optional request body', site, undefined, after);
        return;
      }
      if (before && !after) {
        this.add('request-body-removed', 'the operation no longer takes a request body', site, before);
        return;
      }
      if (before && after && required(before) !== required(after)) {
        this.add(required(after) ? 'request-body-became-required' : 'request-body-became-optional', `the request body is now ${required(after) ? 'required' : 'optional'}`, site, child(before, 'required'), child(after, 'required'));
      }
    }
    this.compareContent(before, after, webhook ? 'response' : 'request', { operation, location, where: webhook ? 'payload' : 'request body' }, webhook ? 'response' : 'request');
  }

  /** Media types of a body (request, response or payload) and their schemas. */
  private compareContent(before: Loc | undefined, after: Loc | undefined, direction: Direction, site: Site, rulePrefix: 'request' | 'response'): void {
    const media = (loc: Loc | undefined) => {
      const content = loc && child(loc, 'content');
      const map = new Map<string, Loc>();
      if (content?.node && typeof content.node === 'object') for (const name of Object.keys(content.node)) map.set(mediaKey(name), child(content, name));
      return map;
    };
    const o = media(before);
    const n = media(after);
    for (const key of new Set([...o.keys(), ...n.keys()])) {
      const p = o.get(key);
      const q = n.get(key);
      const mediaSite = { ...site, where: `${site.where} (${key})` };
      if (p && !q) this.add(`${rulePrefix}-media-type-removed`, `media type ${key} removed`, mediaSite, p, after);
      else if (!p && q) this.add(`${rulePrefix}-media-type-added`, `new media type ${key}`, mediaSite, before, q);
      else if (p && q) this.schemaChanges(child(p, 'schema'), child(q, 'schema'), direction, mediaSite);
    }
  }

  private compareResponses(o: OperationEntry, n: OperationEntry, operation: Site['operation'], webhook: boolean): void {
    const responses = (set: DocumentSet, entry: OperationEntry) => {
      const loc = child(entry.op, 'responses');
      const map = new Map<string, Loc>();
      if (loc.node && typeof loc.node === 'object') for (const status of Object.keys(loc.node)) map.set(status.toUpperCase(), deref(set, child(loc, status)));
      return map;
    };
    const before = responses(this.oldSet, o);
    const after = responses(this.newSet, n);
    for (const status of new Set([...before.keys(), ...after.keys()])) {
      const p = before.get(status);
      const q = after.get(status);
      const statusName = status === 'DEFAULT' ? 'default' : status;
      if (webhook) {
        const site: Site = { operation, location: 'webhook', status: statusName, where: `receiver's answer ${statusName}` };
        if (p && !q) this.add('webhook-response-status-removed', `a ${statusName} answer from receivers is no longer documented`, site, p);
        else if (!p && q) this.add('webhook-response-status-added', `receivers may now answer ${statusName}`, site, undefined, q);
        else this.compareContent(p, q, 'request', site, 'request');
        continue;
      }
      const site: Site = { operation, location: 'response', status: statusName, where: `response ${statusName}` };
      if (p && !q) this.add(isSuccess(status) ? 'response-success-status-removed' : 'response-error-status-removed', `response ${statusName} removed`, site, p);
      else if (!p && q) this.add(isSuccess(status) ? 'response-success-status-added' : 'response-error-status-added', `new response ${statusName}`, site, undefined, q);
      else {
        this.compareContent(p, q, 'response', site, 'response');
        this.compareHeaders(p!, q!, site);
      }
    }
  }

  private compareHeaders(before: Loc, after: Loc, site: Site): void {
    const headers = (set: DocumentSet, loc: Loc) => {
      const container = child(loc, 'headers');
      const map = new Map<string, { name: string; loc: Loc }>();
      if (container.node && typeof container.node === 'object') for (const name of Object.keys(container.node)) map.set(name.toLowerCase(), { name, loc: deref(set, child(container, name)) });
      return map;
    };
    const o = headers(this.oldSet, before);
    const n = headers(this.newSet, after);
    const required = (loc: Loc) => (loc.node as { required?: unknown } | undefined)?.required === true;
    for (const key of new Set([...o.keys(), ...n.keys()])) {
      const p = o.get(key);
      const q = n.get(key);
      const headerSite = { ...site, where: `${site.where} header ${(q ?? p)!.name}` };
      if (p && !q) this.add('response-header-removed', `header ${p.name} removed`, headerSite, p.loc);
      else if (!p && q) this.add('response-header-added', `new header ${q.name}`, headerSite, undefined, q.loc);
      else if (p && q) {
        if (required(p.loc) && !required(q.loc)) this.add('response-header-became-optional', `header ${q.name} may now be missing`, headerSite, p.loc, q.loc);
        const schemaOf = (loc: Loc) => {
          const node = loc.node as { schema?: unknown; content?: Record<string, unknown> };
          if (node?.schema !== undefined) return child(loc, 'schema');
          const mediaType = node?.content && Object.keys(node.content)[0];
          return mediaType ? child(loc, 'content', mediaType, 'schema') : undefined;
        };
        this.schemaChanges(schemaOf(p.loc), schemaOf(q.loc), 'response', headerSite);
      }
    }
  }

  private compareSecurity(o: OperationEntry, n: OperationEntry, operation: Site['operation']): void {
    const requirements = (set: DocumentSet, entry: OperationEntry) => {
      const own = child(entry.op, 'security');
      const loc = Array.isArray(own.node) ? own : child(rootLoc(set), 'security');
      const list = Array.isArray(loc.node) ? (loc.node as Record<string, unknown>[]) : [];
      // No requirement at all means anonymous access; {} among them means anonymous is one way.
      const alternatives = (list.length ? list : [{}]).map((req) => new Map(Object.entries(req ?? {}).map(([scheme, scopes]) => [scheme, new Set(Array.isArray(scopes) ? scopes.map(String) : [])])));
      return { loc, alternatives };
    };
    const before = requirements(this.oldSet, o);
    const after = requirements(this.newSet, n);
    const site: Site = { operation, location: 'request', where: 'security' };
    const describe = (alt: Map<string, Set<string>>) => (alt.size === 0 ? 'no credentials' : [...alt].map(([scheme, scopes]) => (scopes.size ? `${scheme} [${[...scopes].join(', ')}]` : scheme)).join(' + '));
    const sameSchemes = (a: Map<string, Set<string>>, b: Map<string, Set<string>>) => a.size === b.size && [...a.keys()].every((k) => b.has(k));
    const subset = (a: Set<string>, b: Set<string>) => [...a].every((x) => b.has(x));
    const refused: Map<string, Set<string>>[] = [];
    for (const a of before.alternatives) {
      const covering = after.alternatives.find((b) => [...b].every(([scheme, scopes]) => a.has(scheme) && subset(scopes, a.get(scheme)!)));
      if (covering) {
        const fewer = after.alternatives.find((b) => sameSchemes(a, b) && [...b].some(([scheme, scopes]) => scopes.size < a.get(scheme)!.size) && [...b].every(([scheme, scopes]) => subset(scopes, a.get(scheme)!)));
        if (fewer) this.add('security-requirement-scope-removed', `${describe(a)} → ${describe(fewer)}`, site, before.loc, after.loc);
        continue;
      }
      const same = after.alternatives.find((b) => sameSchemes(a, b));
      if (same) {
        this.add('security-requirement-scope-added', `${describe(a)} → ${describe(same)}: tokens without the new scopes are refused`, site, before.loc, after.loc);
        continue;
      }
      refused.push(a);
      this.add('security-alternative-removed', `requests with ${describe(a)} are no longer accepted (now: ${after.alternatives.map(describe).join(' or ')})`, site, before.loc, after.loc);
    }
    for (const b of after.alternatives) {
      if (before.alternatives.some((a) => sameSchemes(a, b))) continue;
      // A stricter requirement that replaced a refused one is that refusal, not a new way in.
      if (refused.some((a) => [...a.keys()].every((scheme) => b.has(scheme)))) continue;
      this.add('security-alternative-added', `requests may also authenticate with ${describe(b)}`, site, before.loc, after.loc);
    }
  }

  private compareSecuritySchemes(): void {
    const schemes = (set: DocumentSet) => {
      const loc = child(rootLoc(set), 'components', 'securitySchemes');
      const map = new Map<string, Loc>();
      if (loc.node && typeof loc.node === 'object') for (const name of Object.keys(loc.node)) map.set(name, deref(set, child(loc, name)));
      return map;
    };
    const before = schemes(this.oldSet);
    const after = schemes(this.newSet);
    for (const [name, p] of before) {
      const q = after.get(name);
      if (!q) continue; // operations that used it report the removed alternative
      const a = (p.node ?? {}) as Record<string, unknown>;
      const b = (q.node ?? {}) as Record<string, unknown>;
      const site: Site = { where: `security scheme ${name}` };
      const fields = ['type', 'scheme', 'in', 'name', 'openIdConnectUrl'].filter((field) => String(a[field] ?? '').toLowerCase() !== String(b[field] ?? '').toLowerCase() && (field !== 'name' || a[field] !== b[field]));
      if (fields.length) this.add('security-scheme-changed', `${name}: ${fields.map((f) => `${f} ${String(a[f] ?? 'none')} → ${String(b[f] ?? 'none')}`).join(', ')}`, site, p, q);
      const flowsA = (a.flows ?? {}) as Record<string, Record<string, unknown>>;
      const flowsB = (b.flows ?? {}) as Record<string, Record<string, unknown>>;
      for (const [flow, defA] of Object.entries(flowsA)) {
        const defB = flowsB[flow];
        if (!defB) {
          this.add('security-scheme-changed', `${name}: flow ${flow} removed`, site, child(p, 'flows', flow), q);
          continue;
        }
        const urls = ['tokenUrl', 'authorizationUrl'].filter((field) => defA[field] !== defB[field]);
        if (urls.length) this.add('security-scheme-changed', `${name}: ${flow} ${urls.map((f) => `${f} ${String(defA[f] ?? 'none')} → ${String(defB[f] ?? 'none')}`).join(', ')}`, site, child(p, 'flows', flow), child(q, 'flows', flow));
        const removed = Object.keys((defA.scopes ?? {}) as object).filter((scope) => !((defB.scopes ?? {}) as object).hasOwnProperty(scope));
        if (removed.length) this.add('security-scheme-scope-removed', `${name}: scope ${removed.join(', ')} removed from the ${flow} flow`, site, child(p, 'flows', flow, 'scopes'), child(q, 'flows', flow, 'scopes'));
      }
    }
  }
}

/** A parameter's effective style/explode/allowReserved (OpenAPI defaults filled in). */
function serialization(p: Parameter): string {
  const node = p.loc.node as { style?: unknown; explode?: unknown; allowReserved?: unknown };
  const style = typeof node.style === 'string' ? node.style : p.in === 'query' || p.in === 'cookie' ? 'form' : 'simple';
  const explode = typeof node.explode === 'boolean' ? node.explode : style === 'form';
  return `style ${style}, explode ${explode}${node.allowReserved === true ? ', allowReserved' : ''}`;
}
