import { escapePointer, HTTP_METHODS, type Contract, type ContractOperation, type JsonSchema } from '../contract/load-contract.js';
import { followRefs } from '../contract/json-pointer.js';
import { createRouteMatcher } from '../contract/route-matcher.js';
import { toViolations } from '../contract/validators.js';
import type { PactFile, PactInteraction } from '../verify/pact-files.js';
import { checkExpectation, type Finding } from './expectations.js';
import { ruleSet, type RuleSet } from './matching-rules.js';
import { createSchemaContext, schemaPointerAt, type SchemaContext } from './schema-context.js';

/** The operation an interaction was checked against: an HTTP operation, or a webhook for a message. */
export interface CheckedOperation {
  /** Upper-case HTTP method. */
  method: string;
  /** The path template (`/v1/addresses/{address-id}`), or the webhook's name for a message. */
  path: string;
  operationId?: string;
  /** JSON pointer of the operation in the contract (`#/paths/…/get`, `#/webhooks/event/post`). */
  pointer: string;
  webhook?: boolean;
}

/** The verdict on one consumer interaction. */
export interface InteractionResult {
  consumer: string;
  provider: string;
  /** The interaction's description, as in the pact. */
  interaction: string;
  kind: 'http' | 'message';
  /** Undefined when no operation of the contract matches. */
  operation?: CheckedOperation;
  /** The response status the consumer expects (HTTP interactions). */
  status?: number;
  /** `broken` when any finding is broken, `warning` when some may break, else `ok`. */
  verdict: 'ok' | 'warning' | 'broken';
  findings: Finding[];
  /** Where the pact came from: a file path or a broker URL. */
  source: string;
}

export interface CanIDeployReport {
  /** True when no interaction is broken (warnings allowed). */
  ok: boolean;
  results: InteractionResult[];
  counts: { ok: number; warning: number; broken: number };
}

const lowerKeys = (headers: Record<string, unknown> | undefined): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = (Array.isArray(value) ? value : [value]).map(String);
  return out;
};

const mediaTypeOf = (value: string | undefined) => (value ?? '').split(';')[0].trim().toLowerCase();
const isJson = (mediaType: string) => mediaType === 'application/json' || /^application\/[^;]*\+json$/.test(mediaType);

interface PactBody {
  present: boolean;
  value?: unknown;
  contentType?: string;
  /** A body the pact stores encoded (V4 `encoded`), or one that is not JSON: only its media type is checked. */
  opaque: boolean;
}

/** A request or response body in V2/V3 (the value itself) or V4 (`{content, contentType, encoded}`) form. */
function bodyOf(part: { body?: unknown }, v4: boolean): PactBody {
  if (part.body === undefined || part.body === null) return { present: false, opaque: false };
  if (v4 && typeof part.body === 'object' && !Array.isArray(part.body) && 'content' in (part.body as object)) {
    const body = part.body as { content?: unknown; contentType?: string; encoded?: unknown };
    if (body.content === undefined || body.content === '') return { present: false, opaque: false };
    const encoded = body.encoded !== undefined && body.encoded !== false;
    return { present: true, value: body.content, contentType: body.contentType, opaque: encoded || typeof body.content === 'string' && !isJson(mediaTypeOf(body.contentType)) };
  }
  return { present: true, value: part.body, opaque: false };
}

/** `{name: [values]}` (V3/V4) or `a=1&b=2` (V2) as the object the parameter schema checks (one value → a string). */
function queryOf(query: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (name: string, values: string[]) => (out[name] = values.length === 1 ? values[0] : values);
  if (typeof query === 'string') {
    const params = new URLSearchParams(query);
    for (const name of new Set(params.keys())) put(name, params.getAll(name));
  } else if (query && typeof query === 'object') {
    for (const [name, value] of Object.entries(query)) put(name, (Array.isArray(value) ? value : [value]).map(String));
  }
  return out;
}

function verdictOf(findings: Finding[]): InteractionResult['verdict'] {
  if (findings.some((f) => f.severity === 'broken')) return 'broken';
  return findings.length ? 'warning' : 'ok';
}

/**
 * Checks every consumer interaction of `pacts` against `contract` — can this contract version
 * be deployed without breaking a consumer? For an HTTP interaction: an operation matches the
 * method and path (routed exactly as the mock routes), the request the consumer sends is valid
 * (parameters, credentials, body — for interactions that expect success; one that expects a
 * 400 warns when the contract now accepts its request), and the response it expects can be
 * produced: the status is declared, the media type too, and the body with its matchers fits the
 * response schema (expectations.ts). For a message: the webhooks of the contract that deliver
 * it (those whose single-valued envelope fields, such as `topic: [SHIPMENT_BOOKING]`, equal
 * the message's) must each be able to produce it.
 *
 * @example
 * const report = checkPactsAgainstContract(loadContract('contract/openapi.yaml'), readPactFiles(['pacts']));
 * report.results.filter((r) => r.verdict === 'broken').map((r) => `${r.consumer}: ${r.interaction}`)
 */
export function checkPactsAgainstContract(contract: Contract, pacts: readonly PactFile[]): CanIDeployReport {
  const context = createSchemaContext(contract.document);
  const routes = createRouteMatcher(contract.operations);
  const results: InteractionResult[] = [];
  for (const pact of pacts) {
    const v4 = String((pact.raw.metadata as { pactSpecification?: { version?: string } } | undefined)?.pactSpecification?.version ?? '').startsWith('4');
    const messageFile = Array.isArray(pact.raw.messages);
    for (const interaction of pact.interactions) {
      const base = { consumer: pact.consumer, provider: pact.provider, interaction: interaction.description, source: pact.path };
      const type = String(interaction.type ?? '');
      if (messageFile || type === 'Asynchronous/Messages') {
        results.push({ ...base, kind: 'message', ...checkMessage(context, interaction, v4 && !messageFile) });
      } else if (type === 'Synchronous/Messages' || (interaction.type !== undefined && type !== 'Synchronous/HTTP')) {
        const findings: Finding[] = [{ severity: 'warning', at: 'interaction', pointer: '#', message: `${type} interactions have no counterpart in an OpenAPI contract; not checked` }];
        results.push({ ...base, kind: 'message', verdict: 'warning', findings });
      } else {
        results.push({ ...base, kind: 'http', ...checkHttp(context, routes, contract, interaction, v4) });
      }
    }
  }
  const counts = { ok: 0, warning: 0, broken: 0 };
  for (const result of results) counts[result.verdict] += 1;
  return { ok: counts.broken === 0, results, counts };
}

function checkHttp(context: SchemaContext, routes: ReturnType<typeof createRouteMatcher>, contract: Contract, interaction: PactInteraction, v4: boolean) {
  const request = (interaction.request ?? {}) as { method?: string; path?: string; query?: unknown; headers?: Record<string, unknown>; body?: unknown; matchingRules?: unknown };
  const response = (interaction.response ?? {}) as { status?: number; headers?: Record<string, unknown>; body?: unknown; matchingRules?: unknown };
  const method = String(request.method ?? 'GET').toUpperCase();
  const path = String(request.path ?? '/');
  const status = Number(response.status ?? 200);
  const findings: Finding[] = [];
  const match = routes.match(method, path.split('?')[0]);
  if (match.kind === 'not-found') {
    findings.push({ severity: 'broken', at: 'request.path', pointer: '#/paths', message: `no operation of the contract matches ${method} ${path}` });
    return { status, verdict: verdictOf(findings), findings };
  }
  if (match.kind === 'method-not-allowed') {
    findings.push({ severity: 'broken', at: 'request.method', pointer: '#/paths', message: `${method} is not declared for ${path} (the contract has ${match.allowed.join(', ')})` });
    return { status, verdict: verdictOf(findings), findings };
  }
  const { operation } = match;
  const opPointer = `#/paths/${escapePointer(operation.path)}/${operation.method}`;
  const checked: CheckedOperation = { method: operation.method.toUpperCase(), path: operation.path, operationId: operation.operationId, pointer: opPointer };

  const requestFindings = checkRequest(context, contract, operation, opPointer, { ...request, pathParams: match.pathParams }, v4);
  if (status < 400) findings.push(...requestFindings);
  else if (status === 400 && requestFindings.length === 0) {
    findings.push({ severity: 'warning', at: 'request', pointer: opPointer, message: 'the consumer expects 400 but the contract accepts this request; the provider may answer it with success' });
  }
  findings.push(...checkResponse(context, contract, operation, opPointer, response, status, v4));
  return { operation: checked, status, verdict: verdictOf(findings), findings };
}

function checkRequest(
  context: SchemaContext,
  contract: Contract,
  operation: ContractOperation,
  opPointer: string,
  request: { query?: unknown; headers?: Record<string, unknown>; body?: unknown; pathParams: Record<string, string> },
  v4: boolean,
): Finding[] {
  const findings: Finding[] = [];
  const headers = lowerKeys(request.headers);
  // Each parameter on its own (the mock's location schemas, without compiling one per operation).
  const checkParameters = (where: 'path' | 'query' | 'header', values: Record<string, unknown>) => {
    const params = operation.parameters.filter((p) => p.in === where);
    const add = (field: string, message: string) => findings.push({ severity: 'broken', at: `request.${field}`, pointer: `${opPointer}/parameters`, message: `${field} ${message}` });
    for (const p of params) {
      const raw = values[p.name];
      if (raw === undefined) {
        if (p.required) add(`${where}/${p.name}`, 'is required');
        continue;
      }
      for (const v of toViolations(context.validateSchema(p.schema, fromText(context, p.schema, raw)), `${where}/${p.name}`)) add(v.field, v.message);
    }
    if (where === 'query') for (const name of Object.keys(values)) if (!params.some((p) => p.name === name)) add(`query/${name}`, 'is not a known query parameter');
  };
  checkParameters('path', { ...request.pathParams });
  checkParameters('query', queryOf(request.query));
  const headerValues: Record<string, unknown> = {};
  for (const p of operation.parameters) if (p.in === 'header' && headers[p.name]) headerValues[p.name] = headers[p.name][0];
  checkParameters('header', headerValues);

  if (operation.security.length) {
    const schemes = (contract.document.components?.securitySchemes ?? {}) as Record<string, { type?: string; scheme?: string; in?: string; name?: string }>;
    const satisfied = operation.security.some((name) => {
      const scheme = schemes[name];
      if (!scheme) return true;
      if (scheme.type === 'http') return (headers.authorization ?? []).some((v) => v.toLowerCase().startsWith(`${String(scheme.scheme ?? '').toLowerCase()} `));
      if (scheme.type === 'apiKey' && scheme.in === 'header') return headers[String(scheme.name).toLowerCase()] !== undefined;
      return true; // oauth2, openIdConnect, cookies: not judged from a pact
    });
    if (!satisfied) findings.push({ severity: 'broken', at: 'request.headers.Authorization', pointer: `${opPointer}/security`, message: `the operation needs ${operation.security.join(' or ')}; the request carries no such credentials` });
  }

  const body = bodyOf(request, v4);
  const spec = operation.requestBody;
  if (!spec) {
    if (body.present) findings.push({ severity: 'broken', at: 'request.body', pointer: opPointer, message: 'the operation takes no request body' });
    return findings;
  }
  if (!body.present) {
    if (spec.required) findings.push({ severity: 'broken', at: 'request.body', pointer: `${opPointer}/requestBody`, message: 'the operation requires a request body' });
    return findings;
  }
  const mediaType = mediaTypeOf(headers['content-type']?.[0] ?? body.contentType) || (spec.mediaTypes.includes('application/json') ? 'application/json' : '');
  if (!spec.mediaTypes.some((m) => m.toLowerCase() === mediaType)) {
    findings.push({ severity: 'broken', at: 'request.headers.Content-Type', pointer: `${opPointer}/requestBody/content`, message: `the operation takes ${spec.mediaTypes.join(' or ')}, not ${mediaType || 'an untyped body'}` });
    return findings;
  }
  if (isJson(mediaType) && spec.schemaPointer && !body.opaque) {
    const errors = context.validate(spec.schemaPointer, body.value);
    for (const v of toViolations(errors, 'body')) {
      const instancePath = v.field.slice('body'.length);
      findings.push({ severity: 'broken', at: `request.${v.field}`, pointer: schemaPointerAt(context, spec.schemaPointer, instancePath), message: `${v.field} ${v.message}` });
    }
  }
  return findings;
}

function checkResponse(
  context: SchemaContext,
  contract: Contract,
  operation: ContractOperation,
  opPointer: string,
  response: { headers?: Record<string, unknown>; body?: unknown; matchingRules?: unknown },
  status: number,
  v4: boolean,
): Finding[] {
  const findings: Finding[] = [];
  const rawResponses = (context.resolve(opPointer).schema as { responses?: Record<string, unknown> } | undefined)?.responses ?? {};
  const code = [String(status), `${String(status)[0]}XX`, 'default'].find((c) => c in rawResponses);
  if (!code) {
    findings.push({ severity: 'broken', at: 'response.status', pointer: `${opPointer}/responses`, message: `status ${status} is not declared for ${operation.method.toUpperCase()} ${operation.path} (declared: ${Object.keys(rawResponses).join(', ')})` });
    return findings;
  }
  const { value, pointer: responsePointer } = followRefs(contract.document, rawResponses[code], `${opPointer}/responses/${code}`);
  const declared = value as { content?: Record<string, { schema?: unknown }>; headers?: Record<string, unknown> };
  const headers = lowerKeys(response.headers);
  const headerRules = ruleSet(response.matchingRules, 'header');
  const body = bodyOf(response, v4);

  if (body.present) {
    const content = Object.keys(declared.content ?? {});
    if (content.length === 0) {
      findings.push({ severity: 'broken', at: 'response.body', pointer: responsePointer, message: `the consumer expects a body; the contract's ${code} answer has none` });
    } else {
      const expected = mediaTypeOf(headers['content-type']?.[0] ?? body.contentType);
      const regex = headerRules.named('content-type')?.matchers.find((m) => m.match === 'regex')?.regex;
      let chosen = content.find((m) => m.toLowerCase() === expected);
      if (!chosen && regex) chosen = content.find((m) => safeTest(regex, m));
      if (!chosen && !expected) chosen = content.find((m) => isJson(m.toLowerCase())) ?? content[0];
      if (!chosen) {
        findings.push({ severity: 'broken', at: 'response.headers.Content-Type', pointer: `${responsePointer}/content`, message: `the contract answers ${code} with ${content.join(' or ')}, not ${expected}` });
      } else if (isJson(chosen.toLowerCase()) && declared.content?.[chosen]?.schema !== undefined && !body.opaque) {
        checkExpectation(
          { context, rules: ruleSet(response.matchingRules, 'body'), where: 'response.body', warnOptional: true, findings },
          `${responsePointer}/content/${escapePointer(chosen)}/schema`,
          body.value,
        );
      }
    }
  }

  for (const [name, values] of Object.entries(headers)) {
    if (name === 'content-type') continue;
    const declaredName = Object.keys(declared.headers ?? {}).find((h) => h.toLowerCase() === name);
    if (!declaredName) {
      findings.push({ severity: 'warning', at: `response.headers.${name}`, pointer: `${responsePointer}/headers`, message: `the consumer expects header ${name}, which the contract does not declare for ${code}` });
      continue;
    }
    const header = followRefs(contract.document, declared.headers![declaredName], `${responsePointer}/headers/${escapePointer(declaredName)}`);
    const schemaPointer = `${header.pointer}/schema`;
    const matchers = headerRules.named(name)?.matchers ?? [];
    if (matchers.length) continue; // a matched header value: its type is all a header has
    const errors = context.validate(schemaPointer, fromText(context, schemaPointer, values[0]));
    if (errors.length) findings.push({ severity: 'broken', at: `response.headers.${name}`, pointer: schemaPointer, message: `the value ${JSON.stringify(values[0])} (matched as written) ${errors[0].message} in the contract` });
  }
  return findings;
}

/**
 * A parameter's or header's text as the value its schema describes (`limit=2` and
 * `X-RateLimit-Limit: 100` are integers; a repeated query parameter is an array).
 */
function fromText(context: SchemaContext, schema: JsonSchema | string, raw: unknown): unknown {
  const resolved = typeof schema === 'string' ? context.resolve(schema).schema : typeof schema.$ref === 'string' ? context.resolve(schema.$ref).schema : schema;
  const node = resolved && typeof resolved === 'object' ? resolved : {};
  const types = Array.isArray(node.type) ? (node.type as string[]) : [node.type as string | undefined];
  if (types.includes('array')) {
    const items = node.items && typeof node.items === 'object' ? (node.items as JsonSchema) : {};
    return (Array.isArray(raw) ? raw : String(raw).split(',')).map((item) => fromText(context, items, item));
  }
  if (Array.isArray(raw)) return raw;
  const text = String(raw);
  if ((types.includes('integer') || types.includes('number')) && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

function safeTest(regex: string, value: string): boolean {
  try {
    return new RegExp(regex).test(value);
  } catch {
    return false;
  }
}

interface Webhook {
  name: string;
  method: string;
  pointer: string;
  operationId?: string;
  mediaTypes: string[];
  schemaPointer?: string;
  /** Single-valued envelope fields (`const` or a one-value `enum`): the messages this webhook delivers. */
  discriminators: Record<string, unknown>;
}

function webhooksOf(context: SchemaContext): Webhook[] {
  const out: Webhook[] = [];
  const document = context.document;
  for (const [name, rawItem] of Object.entries<unknown>(document.webhooks ?? {})) {
    const item = followRefs(document, rawItem, `#/webhooks/${escapePointer(name)}`);
    for (const method of HTTP_METHODS) {
      const op = (item.value as Record<string, { operationId?: string; requestBody?: unknown }>)[method];
      if (!op) continue;
      const pointer = `${item.pointer}/${method}`;
      const body = op.requestBody ? followRefs(document, op.requestBody, `${pointer}/requestBody`) : undefined;
      const content = (body?.value as { content?: Record<string, { schema?: unknown }> } | undefined)?.content ?? {};
      const mediaTypes = Object.keys(content);
      const json = mediaTypes.find((m) => isJson(m.toLowerCase()));
      const schemaPointer = json && content[json].schema !== undefined ? `${body!.pointer}/content/${escapePointer(json)}/schema` : undefined;
      const discriminators: Record<string, unknown> = {};
      const schema = schemaPointer ? context.resolve(schemaPointer) : undefined;
      const properties = schema?.schema && typeof schema.schema === 'object' ? (schema.schema.properties as Record<string, unknown> | undefined) : undefined;
      for (const property of Object.keys(properties ?? {})) {
        const resolved = context.resolve(`${schema!.pointer}/properties/${escapePointer(property)}`).schema;
        if (!resolved || typeof resolved !== 'object') continue;
        if ('const' in resolved) discriminators[property] = resolved.const;
        else if (Array.isArray(resolved.enum) && resolved.enum.length === 1) discriminators[property] = resolved.enum[0];
      }
      out.push({ name, method, pointer, operationId: op.operationId, mediaTypes, schemaPointer, discriminators });
    }
  }
  return out;
}

function checkMessage(context: SchemaContext, interaction: PactInteraction, v4: boolean) {
  const findings: Finding[] = [];
  const raw = interaction as PactInteraction & { contents?: unknown; metadata?: Record<string, unknown>; metaData?: Record<string, unknown>; matchingRules?: unknown };
  const metadata = raw.metadata ?? raw.metaData; // V3 message pacts spell it metaData
  const contents = v4 && raw.contents && typeof raw.contents === 'object' && 'content' in (raw.contents as object) ? (raw.contents as { content?: unknown; contentType?: string }) : { content: raw.contents, contentType: undefined };
  const mediaType = mediaTypeOf(String(metadata?.contentType ?? metadata?.['content-type'] ?? contents.contentType ?? 'application/json'));
  const content = contents.content;
  const webhooks = webhooksOf(context);
  const applicable = webhooks.filter((w) => {
    if (!content || typeof content !== 'object') return Object.keys(w.discriminators).length === 0;
    return Object.entries(w.discriminators).every(([key, value]) => (content as Record<string, unknown>)[key] === value);
  });
  if (applicable.length === 0) {
    const what = content && typeof content === 'object' ? Object.entries(content as Record<string, unknown>).filter(([, v]) => typeof v === 'string').slice(0, 2).map(([k, v]) => `${k} ${v}`).join(', ') : 'this message';
    findings.push({ severity: 'broken', at: 'message', pointer: '#/webhooks', message: `no webhook of the contract delivers ${what}` });
    return { verdict: verdictOf(findings), findings };
  }
  // The most specific webhook names the operation; the message must fit every one that delivers it.
  applicable.sort((a, b) => Object.keys(b.discriminators).length - Object.keys(a.discriminators).length);
  const seen = new Set<string>();
  for (const webhook of applicable) {
    const local: Finding[] = [];
    if (!webhook.mediaTypes.some((m) => m.toLowerCase() === mediaType)) {
      local.push({ severity: 'broken', at: 'message.metadata.contentType', pointer: `${webhook.pointer}/requestBody/content`, message: `webhook ${webhook.name} delivers ${webhook.mediaTypes.join(' or ') || 'no body'}, not ${mediaType}` });
    } else if (webhook.schemaPointer && isJson(mediaType)) {
      checkExpectation({ context, rules: ruleSet(raw.matchingRules, 'body'), where: 'message.contents', warnOptional: true, findings: local }, webhook.schemaPointer, content);
    }
    for (const finding of local) {
      const key = `${finding.severity}|${finding.at}|${finding.message}`;
      if (!seen.has(key)) {
        seen.add(key);
        findings.push(finding);
      }
    }
  }
  const primary = applicable[0];
  const operation: CheckedOperation = { method: primary.method.toUpperCase(), path: primary.name, operationId: primary.operationId, pointer: primary.pointer, webhook: true };
  return { operation, verdict: verdictOf(findings), findings };
}
