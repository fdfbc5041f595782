/**
 * The inspector and the API reference go over the wire compressed (issue 25: the README said
 * "17.6 KB gzipped" while 56 KB went out). Raw HTTP on a real socket (node:http, which, unlike
 * fetch, does not decompress), so the test sees the bytes a browser receives.
 */
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_DIR, INSPECTOR_DIR } from '../../src/admin/pages.js';
import type { RunningMock } from '../../src/server/start-mock.js';
import { startLiveMock } from '../support/live-mock.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as they came over the wire. */
  wire: Buffer;
}

function get(url: string, headers: Record<string, string>, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, wire: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function decoded(answer: RawAnswer): Buffer {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(answer.wire);
  if (encoding === 'gzip') return gunzipSync(answer.wire);
  expect(encoding, 'an encoding the test does not know').toBeUndefined();
  return answer.wire;
}

/** The page and what it loads: index.html plus the scripts and styles it names. */
function inspectorFiles(): string[] {
  const html = readFileSync(join(INSPECTOR_DIR, 'index.html'), 'utf8');
  const assets = [...html.matchAll(/(?:src|href)="\.\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  expect(assets.length).toBeGreaterThanOrEqual(2);
  return ['', ...assets];
}

const BROWSER = 'gzip, deflate, br, zstd';

describe('the pages go over the wire compressed', () => {
  let mock: RunningMock;
  const sizes: string[] = [];
  beforeAll(async () => {
    mock = await startLiveMock();
  });
  afterAll(async () => {
    await mock?.close();
    // The numbers the README quotes (issue 25's closing note).
    console.log(sizes.join('\n'));
  });

  async function total(paths: string[], base: string, acceptEncoding: string | undefined) {
    let wire = 0;
    let plain = 0;
    for (const path of paths) {
      const answer = await get(`${mock.url}${base}${path}`, acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding });
      expect(answer.status, path).toBe(200);
      const file = readFileSync(join(base === '/docs/' ? DOCS_DIR : INSPECTOR_DIR, path || 'index.html'));
      // The bytes a browser ends up with are exactly the built file's.
      expect(decoded(answer).equals(file), `${path}: decompressed bytes differ from the built file`).toBe(true);
      expect(Number(answer.headers['content-length']), `${path}: Content-Length is the wire size`).toBe(answer.wire.length);
      wire += answer.wire.length;
      plain += file.length;
    }
    return { wire, plain };
  }

  it('the inspector: brotli for a browser, about 16 KB instead of 54 KB', async () => {
    const files = inspectorFiles();
    for (const path of files) {
      const answer = await get(`${mock.url}/__admin/ui/${path}`, { 'Accept-Encoding': BROWSER });
      expect(answer.headers['content-encoding'], path).toBe('br');
      expect(String(answer.headers.vary), path).toMatch(/Accept-Encoding/i);
      expect(answer.headers['content-type'], path).toMatch(path === '' ? /^text\/html/ : path.endsWith('.js') ? /^(text|application)\/javascript/ : /^text\/css/);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
      // Hashed assets stay immutable in their compressed form; the page itself is revalidated.
      expect(answer.headers['cache-control'], path).toBe(path === '' ? 'no-cache' : 'public, max-age=31536000, immutable');
    }
    const br = await total(files, '/__admin/ui/', BROWSER);
    const gzip = await total(files, '/__admin/ui/', 'gzip');
    const identity = await total(files, '/__admin/ui/', undefined);
    sizes.push(`inspector: ${identity.wire} B plain, ${gzip.wire} B gzip, ${br.wire} B brotli`);
    expect(identity.wire).toBe(identity.plain);
    expect(br.wire).toBeLessThan(identity.plain * 0.4);
    expect(gzip.wire).toBeLessThan(identity.plain * 0.4);
    expect(br.wire).toBeLessThan(gzip.wire);
  });

  it('the API reference: Swagger UI in brotli or gzip, a fifth of its size', async () => {
    const files = ['', 'swagger-ui-bundle.js', 'swagger-ui.css', 'docs.js', 'docs.css'];
    const br = await total(files, '/docs/', BROWSER);
    const gzip = await total(files, '/docs/', 'gzip, deflate');
    sizes.push(`API reference: ${br.plain} B plain, ${gzip.wire} B gzip, ${br.wire} B brotli`);
    expect(br.wire).toBeLessThan(br.plain * 0.25);
    expect(gzip.wire).toBeLessThan(gzip.plain * 0.3);
  });

  it('follows Accept-Encoding: q=0 refuses an encoding, no header gets the file as it is', async () => {
    const url = `${mock.url}/docs/swagger-ui.css`;
    expect((await get(url, { 'Accept-Encoding': 'br;q=0, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await get(url, { 'Accept-Encoding': 'gzip;q=0.5, br;q=0.9' })).headers['content-encoding']).toBe('br');
    const none = await get(url, { 'Accept-Encoding': 'identity' });
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(none.wire.equals(readFileSync(join(DOCS_DIR, 'swagger-ui.css')))).toBe(true);
    // Images are compressed already: sent as they are, whatever the browser accepts.
    const png = await get(`${mock.url}/docs/favicon-32x32.png`, { 'Accept-Encoding': BROWSER });
    expect(png.status).toBe(200);
    expect(png.headers['content-encoding']).toBeUndefined();
  });

  it('HEAD answers the compressed length without a body; a missing page is still a 404 problem', async () => {
    const head = await get(`${mock.url}/__admin/ui/`, { 'Accept-Encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('br');
    expect(Number(head.headers['content-length'])).toBe(readFileSync(join(INSPECTOR_DIR, 'index.html.br')).length);
    expect(head.wire.length).toBe(0);
    for (const path of ['/docs/nothing-here.js', '/__admin/ui/assets/%E0%A4%A', '/docs/index.html.br.gz']) {
      const missing = await get(`${mock.url}${path}`, { 'Accept-Encoding': BROWSER });
      expect(missing.status, path).toBe(404);
      expect(missing.headers['content-type'], path).toMatch(/^application\/problem\+json/);
      expect(missing.headers['content-encoding'], path).toBeUndefined();
      expect(JSON.parse(missing.wire.toString()).status, path).toBe(404);
    }
    // A POST to a page that has a compressed form: a plain 405 problem, no encoding claimed.
    const post = await get(`${mock.url}/__admin/ui/`, { 'Accept-Encoding': BROWSER, 'X-Shipmock-Admin': '1' }, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(post.wire.toString()).type).toMatch(/method-not-allowed$/);
  });
});
