import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createHarness } from '../support/harness.js';

describe('the served contract: GET /openapi.yaml and /openapi.json', () => {
  const h = createHarness();
  const document = h.contract.document;

  it('serves the contract this mock runs, as JSON and as YAML, to any origin', async () => {
    const json = await h.http.get('/openapi.json');
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.headers['access-control-allow-origin']).toBe('*');
    expect(json.body).toEqual(document);

    const yaml = await h.http.get('/openapi.yaml').buffer(true).parse((res, done) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => done(null, text));
    });
    expect(yaml.status).toBe(200);
    expect(yaml.headers['content-type']).toMatch(/^application\/yaml/);
    expect(parse(yaml.body as string)).toEqual(document);
  });

  it('answers 304 to its own ETag, and HEAD without a body', async () => {
    const first = await h.http.get('/openapi.json');
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await h.http.get('/openapi.json').set('If-None-Match', etag);
    expect(again.status).toBe(304);
    const head = await h.http.head('/openapi.yaml');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toMatch(/^\d+$/);
  });

  it('refuses other methods with a 405 problem naming GET and HEAD, and is not journaled', async () => {
    const res = await h.http.post('/openapi.json').send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.body.type).toBe('https://shipmock.dev/problems/method-not-allowed');
    expect(h.journal.find({ path: '/openapi.json' })).toEqual([]);
  });
});
