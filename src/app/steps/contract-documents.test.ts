import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { OpenApiDocument } from '../../contract/load-contract.js';
import type { Answer } from '../../http/types.js';
import { createLogger } from '../../logging/logger.js';
import type { Responder } from '../respond.js';
import { contractDocuments, isContractDocument } from './contract-documents.js';
import { requestId } from './request-id.js';

const started = requestId({ logger: createLogger({ level: 'silent', format: 'json' }), now: () => 0 });
const document = { openapi: '3.1.0', info: { title: 'Tiny', version: '1.0.0' }, paths: {} } as unknown as OpenApiDocument;

/** The step over a tiny document; `get` sends one request and returns the answer it composed, or 'next'. */
function served() {
  const answers: Answer[] = [];
  const responder = { send: (_req: unknown, _res: unknown, answer: Answer) => void answers.push(answer) } as Responder;
  const step = contractDocuments({ document, responder });
  const get = (url: string, method = 'GET', headers: Record<string, string> = {}) => {
    const req = Object.assign(new IncomingMessage(new Socket()), { method, url, headers });
    const res = new ServerResponse(req);
    started(req, res, () => {});
    let went = false;
    step(req, res, () => (went = true));
    return went ? 'next' : answers.at(-1)!;
  };
  return { get };
}

describe('contractDocuments step', () => {
  it('serves the document as JSON and as YAML, to any origin, with a strong ETag', () => {
    const { get } = served();
    const json = get('/openapi.json') as Answer;
    const yaml = get('/openapi.yaml') as Answer;
    expect(json).toMatchObject({ status: 200, contentType: 'application/json', headers: { 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*' } });
    expect(JSON.parse(String(json.payload))).toEqual(document);
    expect(yaml.contentType).toBe('application/yaml');
    expect(parse(String(yaml.payload))).toEqual(document);
    expect(json.headers!.ETag).toMatch(/^"[\w-]{27}"$/);
    expect(json.headers!.ETag).not.toBe(yaml.headers!.ETag);
  });

  it('answers 304 without a body to its own ETag, and serves HEAD', () => {
    const { get } = served();
    const etag = (get('/openapi.json') as Answer).headers!.ETag;
    expect(get('/openapi.json', 'GET', { 'if-none-match': etag })).toEqual({ status: 304, headers: { ETag: etag, 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*' } });
    expect(get('/openapi.json', 'GET', { 'if-none-match': '"other"' })).toMatchObject({ status: 200 });
    expect(get('/openapi.yaml', 'HEAD')).toMatchObject({ status: 200 });
  });

  it('refuses other methods with 405 and Allow, and leaves every other path to the next step', () => {
    const { get } = served();
    expect(() => get('/openapi.json', 'POST')).toThrow(expect.objectContaining({ slug: 'method-not-allowed', init: expect.objectContaining({ headers: { Allow: 'GET, HEAD' } }) }));
    expect(get('/openapi.json.bak')).toBe('next');
    expect(get('/v1/addresses')).toBe('next');
    expect([isContractDocument('/openapi.yaml'), isContractDocument('/openapi.yml')]).toEqual([true, false]);
  });
});
