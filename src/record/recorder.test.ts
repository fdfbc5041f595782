import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { CapturedExchange } from '../proxy/validation-proxy.js';
import { redactExchange } from '../recording/index.js';
import { exchangeKey } from './exchange-key.js';
import { partLineText } from './part-line.js';
import { exchangeKeeper, recordedExchangeOf, recordedRequestOf } from './recorder.js';
import { HAR_FILE, SCENARIO_FILE, writeRecording } from './recording-files.js';
import { openRecordingFolder, type RecordingFolder } from './recording-folder.js';

const ORIGIN = 'http://real.invalid';
const TOKEN_1 = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY2NvdW50LTEifQ.c2lnbmF0dXJlLW9uZQ';
const TOKEN_2 = 'eyJraWQiOiJ0d28ifQ.eyJzdWIiOiJhY2NvdW50LTIifQ.c2lnbmF0dXJlLXR3bw';
const CLIENT_SECRET = 'cs_live_2c26b46b68ffc68ff99b453c1d304134';
const ISSUED = 'tok_issued_a1b2c3d4e5f6a7b8c9d0e1f2';
const SECRETS = [TOKEN_1, TOKEN_2, CLIENT_SECRET, ISSUED, 'sid0123456789abcdef', 'sig_00112233445566778899'];

/** Exchanges as the proxy hands them over: raw header pairs, bytes as sent (a gzipped answer), secrets everywhere. */
function captured(): CapturedExchange[] {
  const at = new Date('2026-11-26T08:00:00.000Z');
  const base = { startedAt: at, durationMs: 2.345, violations: [] };
  return [
    {
      ...base,
      method: 'POST',
      target: '/v1/companies/c1/tokens',
      requestHeaders: ['Host', '127.0.0.1:4020', 'Authorization', `Basic ${Buffer.from(`client:${CLIENT_SECRET}`).toString('base64')}`, 'Content-Type', 'application/json', 'X-Forwarded-For', '10.0.0.1', 'x-forwarded-for', '10.0.0.2'],
      requestBody: Buffer.from(`{"grantType":"client_credentials","clientSecret":"${CLIENT_SECRET}"}`),
      operationId: 'createCompanyToken',
      status: 200,
      responseHeaders: ['Content-Type', 'application/json', 'Content-Encoding', 'gzip', 'Content-Length', '99', 'Set-Cookie', 'sid=sid0123456789abcdef; Path=/', 'Set-Cookie', 'theme=dark-and-long; HttpOnly'],
      responseBody: gzipSync(`{"accessToken":"${ISSUED}","tokenType":"Bearer"}`),
    },
    {
      ...base,
      method: 'GET',
      target: `/v1/documents/d1/data?b=2&access_token=${ISSUED}&a=1`,
      requestHeaders: ['Host', '127.0.0.1:4020', 'Authorization', `Bearer ${TOKEN_1}`, 'Accept', 'image/png'],
      requestBody: Buffer.alloc(0),
      operationId: 'getDocumentData',
      status: 200,
      responseHeaders: ['Content-Type', 'image/png', 'X-Signature', 'sig_00112233445566778899'],
      responseBody: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0x01]),
    },
    ...[TOKEN_1, TOKEN_1, TOKEN_2, TOKEN_1].map(
      (token, i): CapturedExchange => ({
        ...base,
        method: 'GET',
        target: '/v1/addresses/a1',
        requestHeaders: ['Host', '127.0.0.1:4020', 'Authorization', `Bearer ${token}`],
        requestBody: Buffer.alloc(0),
        status: 200,
        responseHeaders: ['Content-Type', 'application/json; charset=utf-8', 'Location', `/v1/addresses/a1?token=${ISSUED}`],
        responseBody: Buffer.from(`{"id":"a1","name":"Erika ${i}","_links":{"self":{"href":"/v1/addresses/a1"}}}`),
        violations: i === 2 ? [{ in: 'response', field: 'body/name', message: 'must match pattern' }] : [],
      }),
    ),
  ];
}

describe('what record keeps of each exchange (exchangeKeeper)', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('is what the converter makes of the exchange, verdict included, with no secret: in the folder and in its files', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'shipmock-keeper-')), 'staging');
    dirs.push(dir);
    const raw = captured().map((exchange) => recordedExchangeOf(exchange, ORIGIN));
    mkdirSync(dir, { recursive: true });
    writeRecording(dir, raw);
    const expectedHar = readFileSync(join(dir, HAR_FILE), 'utf8');
    const expectedScenario = readFileSync(join(dir, SCENARIO_FILE), 'utf8');
    unlinkSync(join(dir, HAR_FILE));
    unlinkSync(join(dir, SCENARIO_FILE));

    const folder = openRecordingFolder(dir);
    const keep = exchangeKeeper(folder, ORIGIN);
    for (const exchange of captured()) expect(keep(exchange)).toBe(true);
    // Every exchange as the converter redacts it — a header redactor that remembers gives each token its own shortening.
    expect(folder.exchanges()).toEqual(raw.map((exchange) => redactExchange(exchange)));
    expect(folder.exchanges()[4].verdict).toEqual({ conforms: false, violations: [{ field: 'response/body/name', message: 'must match pattern' }] });
    folder.close();
    const har = readFileSync(join(dir, HAR_FILE), 'utf8');
    const scenario = readFileSync(join(dir, SCENARIO_FILE), 'utf8');
    expect(har).toBe(expectedHar);
    expect(scenario).toBe(expectedScenario);
    for (const secret of SECRETS) {
      expect(har).not.toContain(secret);
      expect(scenario).not.toContain(secret);
    }
    // Repeated identical requests: one rule, its answers in order.
    const rule = JSON.parse(scenario).rules.find((r: { match: { path: string } }) => r.match.path === '/v1/addresses/a1');
    expect(rule.sequence.map((step: { respond: { body: { name: string } } }) => step.respond.body.name)).toEqual(['Erika 0', 'Erika 1', 'Erika 2', 'Erika 3']);
  });

  it('joins a repeated header whatever its case, in few headers and in many', () => {
    for (const filler of [0, 40]) {
      const extra = Array.from({ length: filler }, (_, i) => [`X-Fill-${i}`, String(i)]).flat();
      const request = recordedRequestOf({ ...captured()[0], requestHeaders: ['Accept', 'a', ...extra, 'ACCEPT', 'b', 'Cookie', 'x=1', 'accept', 'c', 'cookie', 'y=2'] }, ORIGIN);
      expect(request.headers).toMatchObject({ Accept: 'a, b, c', Cookie: 'x=1, y=2' });
      expect(Object.keys(request.headers)).toHaveLength(2 + filler);
    }
    const answer = recordedExchangeOf({ ...captured()[1], responseHeaders: ['Set-Cookie', 'a=1', 'set-cookie', 'b=2', 'SET-COOKIE', 'c=3'] }, ORIGIN);
    expect(answer.response.headers).toEqual({ 'Set-Cookie': 'a=1\nb=2\nc=3' });
  });
});

describe('the keeper’s key and line, made without the converter’s objects in between', () => {
  /** What the keeper hands a folder for each exchange: its key and its line. */
  function kept(exchanges: CapturedExchange[]): { key: string; line: string }[] {
    const out: { key: string; line: string }[] = [];
    const folder = { addLine: (key: string, line: () => string) => out.push({ key, line: line() }) > 0 } as unknown as RecordingFolder;
    const keep = exchangeKeeper(folder, ORIGIN);
    for (const exchange of exchanges) keep(exchange);
    return out;
  }
  /** The same by the converter: the exchange recorded, its key, and its line redacted whole. */
  const converted = (exchange: CapturedExchange) => {
    const recorded = recordedExchangeOf(exchange, ORIGIN);
    return { key: exchangeKey(recorded), line: partLineText(redactExchange(recorded)) };
  };

  it('are exchangeKey of the recorded exchange and partLineText of it redacted, for every exchange of the keeper test', () => {
    expect(kept(captured())).toEqual(captured().map(converted));
  });

  it('are the same for any exchange: secrets, bodies of every kind, repeated headers, compressed answers, queries', () => {
    const token = fc.constantFrom(TOKEN_1, TOKEN_2, CLIENT_SECRET, 'short');
    const header = fc.oneof(
      token.map((t) => ['Authorization', `Bearer ${t}`]),
      token.map((t) => ['X-Api-Key', t]),
      token.map((t) => ['cookie', `sid=${t}; theme=dark`]),
      fc.constantFrom(['Content-Type', 'application/json'], ['content-type', 'application/x-www-form-urlencoded'], ['Content-Type', 'text/plain; charset=utf-8'], ['CONTENT-TYPE', 'application/json']),
      fc.constantFrom(['Accept', 'a'], ['accept', 'b'], ['X-Odd', 'a\u0001b'], ['Referer', `/v1/x?token=${ISSUED}`]),
    );
    const body = fc.oneof(
      fc.constant(Buffer.alloc(0)),
      token.map((t) => Buffer.from(`{"b":1,"clientSecret":"${t}","a":[1,2]}`)),
      token.map((t) => Buffer.from(`grant_type=client_credentials&client_secret=${t}&a=1`)),
      token.map((t) => Buffer.from(`password=${t} and more`)),
      fc.constantFrom(Buffer.from('{"name":"Erika","street":"Hauptstraße 5"}'), Buffer.from([0xff, 0xfe, 0x00, 0x01]), Buffer.from('{"n":1e400,"s":"x"}')),
    );
    const target = fc.constantFrom('/v1/addresses', '/v1/addresses/a1?b=2&a=1', `/v1/x?access_token=${ISSUED}&page=2`, '/v1/a/../b/%7e?x=%E2%80%A6', '/v1/files?');
    const answer = fc.oneof(
      token.map((t) => ({ headers: ['Content-Type', 'application/json', 'Set-Cookie', `sid=${t}`, 'set-cookie', 'b=2'], body: Buffer.from(`{"accessToken":"${t}","id":"1"}`) })),
      token.map((t) => ({ headers: ['Content-Type', 'application/json', 'Content-Encoding', 'gzip', 'Content-Length', '10'], body: gzipSync(`{"accessToken":"${t}"}`) })),
      fc.constant({ headers: ['Content-Type', 'application/json', 'Content-Encoding', 'gzip'], body: Buffer.from('not gzip') }),
      fc.constant({ headers: ['Content-Type', 'image/png', 'X-Signature', 'sig_00112233445566778899'], body: Buffer.from([0x89, 0x50, 0xff]) }),
      fc.constant({ headers: ['Location', `https://real.invalid/v1/a?token=${ISSUED}`], body: Buffer.alloc(0) }),
    );
    const exchange = fc.record({
      method: fc.constantFrom('GET', 'POST', 'put'),
      target,
      requestHeaders: fc.array(header, { maxLength: 6 }).map((pairs) => pairs.flat()),
      requestBody: body,
      answer,
      status: fc.constantFrom(200, 201, 404),
      operationId: fc.constantFrom(undefined, 'createAddress'),
      violations: fc.constantFrom([], [{ in: 'response' as const, field: 'body/name', message: 'must match pattern' }]),
    });
    fc.assert(
      fc.property(fc.array(exchange, { minLength: 1, maxLength: 4 }), (drawn) => {
        const exchanges = drawn.map(({ answer: a, ...rest }): CapturedExchange => ({ ...rest, startedAt: new Date('2026-11-26T08:00:00.123Z'), durationMs: 1.26, responseHeaders: [...a.headers], responseBody: a.body, violations: [...rest.violations] }));
        expect(kept(exchanges)).toEqual(exchanges.map(converted));
      }),
      { numRuns: 300, seed: 26 },
    );
  });
});
