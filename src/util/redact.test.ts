import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHeaderRedactor, holdsSecretWord, isSecretName, redactBody, redactHeader, redactJson, redactQuery, redactUrl, shortenSecret } from './redact.js';

// Credentials in every shape the contracts have (openapi.yaml securitySchemes CompanyToken,
// AccountToken, AffiliateToken, AdminToken: bearer JWT; ClientCredentials: basic; admin.yaml
// AdminKey: X-Admin-Key) and the write-only fields (EventChannel webhook.secret and
// webhook.headers, AuthorizationResponse accessToken, client secrets, carrier settings).
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJsdmwiOiJBQ0NPVU5UIn0.c2lnbmF0dXJlLWxvbmc';
const BASIC = Buffer.from('shipmock-demo-client:shipmock-demo-secret').toString('base64');
const WHSEC = 'whsec_9f86d081884c7d65';

describe('headers', () => {
  it.each([
    ['authorization', `Bearer ${JWT}`, 'Bearer eyJhbG…'],
    ['Authorization', `bearer ${JWT}`, 'bearer eyJhbG…'],
    ['authorization', `Basic ${BASIC}`, 'Basic c2hpcG…'],
    ['authorization', JWT, 'eyJhbG…'],
    // The issue: the token first, a word after it was taken as the scheme and the token kept whole.
    ['authorization', `${JWT} Bearer`, 'eyJhbG…'],
    ['authorization', `Token  ${JWT}`, 'Token  eyJhbG…'],
    ['authorization', 'Bearer abc', 'Bearer …'],
    ['authorization', 'short', 's…'],
    ['proxy-authorization', `Basic ${BASIC}`, 'Basic c2hpcG…'],
    ['x-admin-key', 'correct-horse-battery', 'corre…'],
    ['x-api-key', 'key-1234', 'ke…'],
    ['X-Auth-Token', JWT, 'eyJhbG…'],
    ['x-client-secret', 'shipmock-demo-secret', 'shipm…'],
    ['cookie', 'sid=abcdefghijkl; theme=darkmode', 'sid=abc…; theme=da…'],
    ['set-cookie', 'session=abcdefghijkl; Path=/; HttpOnly', 'session=abc…; Path=/; HttpOnly'],
    ['referer', 'https://user:s3cr3t-pass@example.com/cb?access_token=abcdefghijkl&x=1', 'https://user:s3…@example.com/cb?access_token=abc…&x=1'],
    ['content-type', 'application/json', 'application/json'],
    ['idempotency-key', 'c0ffee00-1234', 'c0ffee00-1234'],
    ['x-request-id', 'req-1', 'req-1'],
  ])('%s: %s → %s', (name, value, shown) => {
    expect(redactHeader(name, value)).toBe(shown);
  });

  it('never shows more than a quarter of a secret, at most six characters, and keeps what is already shortened', () => {
    for (const length of [0, 1, 3, 4, 7, 8, 23, 24, 25, 200]) {
      const secret = 'x'.repeat(length);
      const shown = shortenSecret(secret);
      expect(shown.endsWith('…')).toBe(true);
      expect(shown.length - 1).toBeLessThanOrEqual(Math.min(6, length / 4));
    }
    expect(redactHeader('authorization', redactHeader('authorization', `Bearer ${JWT}`))).toBe('Bearer eyJhbG…');
    expect(redactQuery(redactQuery(`access_token=${JWT}`))).toBe('access_token=eyJhbG…');
  });
});

describe('a header redactor that remembers (createHeaderRedactor)', () => {
  const headers: [string, string][] = [
    ['Authorization', `Bearer ${JWT}`],
    ['authorization', `Basic ${BASIC}`],
    ['Proxy-Authorization', 'Bearer abc'],
    ['X-Admin-Key', 'correct-horse-battery'],
    ['Cookie', 'sid=abcdefghijkl; theme=darkmode'],
    ['Set-Cookie', 'session=abcdefghijkl; Path=/; HttpOnly\nother=zyxwvutsrqpo; Secure'],
    ['Referer', 'https://user:s3cr3t-pass@example.com/cb?access_token=abcdefghijkl&x=1'],
    ['Location', '/v1/addresses/1?token=abcdefghijkl'],
    ['Content-Type', 'application/json'],
    ['X-Request-Id', 'req-1'],
  ];

  it('gives what redactHeader gives, for the same and for changing values of every kind of header', () => {
    const redact = createHeaderRedactor();
    for (let round = 0; round < 3; round++) {
      for (const [name, value] of headers) {
        // Round 1 changes each value: a remembered shortening must not be given for another value.
        const sent = round === 1 ? `${value}-${round}` : value;
        expect(redact(name, sent)).toBe(redactHeader(name, sent));
      }
    }
  });
});

describe('names', () => {
  it.each([
    ['accessToken', true], ['access_token', true], ['refresh-token', true], ['id_token', true], ['clientSecret', true], ['client_secret', true], ['secret', true],
    ['password', true], ['PASSWORD', true], ['passwd', true], ['apiKey', true], ['api_key', true], ['X-Api-Key', true], ['x-admin-key', true], ['privateKey', true],
    ['credentials', true], ['sessionId', true], ['pin', true], ['Shipmock-Signature', true], ['X-Hub-Signature-256', true],
    ['tokens', false], ['tokenType', false], ['expiresAt', false], ['key', false], ['value', false], ['headerNames', false], ['signed', false], ['name', false], ['username', false],
  ])('%s: %s', (name, secret) => {
    expect(isSecretName(name)).toBe(secret);
  });
});

describe('bodies', () => {
  it.each([
    ['the token endpoints’ answer', 'application/json', `{"accessToken":"${JWT}","expiresAt":"2026-01-01T04:00:00.000Z","tokenType":"Bearer"}`, '{"accessToken":"eyJhbG…","expiresAt":"2026-01-01T04:00:00.000Z","tokenType":"Bearer"}'],
    [
      'an Event Channel: secret and custom header values, layout kept',
      'application/json; charset=utf-8',
      `{\n  "name": "Bookings",\n  "webhook": {\n    "url": "https://receiver.example/hook",\n    "secret": "${WHSEC}",\n    "headers": { "X-Api-Key": "key-1234", "X-Tenant": "tenant-4711" }\n  }\n}`,
      `{\n  "name": "Bookings",\n  "webhook": {\n    "url": "https://receiver.example/hook",\n    "secret": "whsec…",\n    "headers": { "X-Api-Key": "ke…", "X-Tenant": "te…" }\n  }\n}`,
    ],
    ['client credentials in a body', 'application/json', '{"clientId":"shipmock-demo-client","clientSecret":"shipmock-demo-secret"}', '{"clientId":"shipmock-demo-client","clientSecret":"shipm…"}'],
    [
      'carrier settings: a credential key, in either order',
      'application/json',
      '{"settings":[{"key":"username","value":"api-user-4711"},{"key":"password","value":"s3cr3t-staging"},{"value":"s3cr3t-live","key":"apiKey"}]}',
      '{"settings":[{"key":"username","value":"api-user-4711"},{"key":"password","value":"s3c…"},{"value":"s3…","key":"apiKey"}]}',
    ],
    ['an escaped member name', 'application/json', `{"access\\u0054oken":"${JWT}"}`, '{"access\\u0054oken":"eyJhbG…"}'],
    ['a secret object, arrays and numbers inside it', 'application/json', '{"credentials":{"user":"alice-1234","pins":[12345678,"abcdefgh"]}}', '{"credentials":{"user":"al…","pins":["12…","ab…"]}}'],
    ['a body cut in the middle of a token', 'application/json', `{"tokenType":"Bearer","accessToken":"${JWT.slice(0, 40)}`, '{"tokenType":"Bearer","accessToken":"eyJhbG…"'],
    ['JSON sent as text', 'text/plain', `{"secret":"${WHSEC}"}`, '{"secret":"whsec…"}'],
    ['a URL with a password and a token in its query', 'application/json', '{"webhook":{"url":"https://hook:s3cr3t-pass@example.com/in?token=abcdefghijkl"}}', '{"webhook":{"url":"https://hook:s3…@example.com/in?token=abc…"}}'],
    [
      'a problem naming the request’s URL',
      'application/problem+json',
      `{"status":400,"instance":"/v1/addresses?access_token=${JWT}&limit=5"}`,
      '{"status":400,"instance":"/v1/addresses?access_token=eyJhbG…&limit=5"}',
    ],
    ['a form', 'application/x-www-form-urlencoded', 'grant_type=client_credentials&client_id=demo&client_secret=shipmock-demo-secret', 'grant_type=client_credentials&client_id=demo&client_secret=shipm…'],
    ['YAML', 'application/yaml', 'user: alice\npassword: s3cr3t-staging\n', 'user: alice\npassword: s3c…\n'],
    // The fast look for a candidate (no scan without one) must find names as they are compared: separators and case left out.
    ['a secret name split by separators', 'application/json', '{"Client-Se_cret":"shipmock-demo-secret","s.e.c.r.e.t":"abcdefghijkl"}', '{"Client-Se_cret":"shipm…","s.e.c.r.e.t":"abc…"}'],
    ['a header map in capitals', 'application/json', '{"HEADERS":{"X-Tenant":"tenant-4711"}}', '{"HEADERS":{"X-Tenant":"te…"}}'],
    ['a setting whose key is spelled apart', 'application/json', '{"settings":[{"key":"P-I-N","value":"12345678"}]}', '{"settings":[{"key":"P-I-N","value":"12…"}]}'],
    ['a URL password, no secret word anywhere', 'application/json', '{"url":"https://u:hunter2hunter2@x.test/"}', '{"url":"https://u:hun…@x.test/"}'],
    ['a text pair spelled apart', 'text/plain', 'api-KEY=abcdefghijkl ok', 'api-KEY=abc… ok'],
    ['nothing secret', 'application/json', '{"name":"Erika","tokens":12,"tokenType":"Bearer","headerNames":["X-Api-Key"]}', '{"name":"Erika","tokens":12,"tokenType":"Bearer","headerNames":["X-Api-Key"]}'],
  ])('%s', (_case, type, body, shown) => {
    expect(redactBody(body, type)).toBe(shown);
  });

  it('redactJson: the same rules on a parsed value', () => {
    expect(redactJson({ webhook: { url: 'https://x.test/in', secret: WHSEC, headers: { 'X-Api-Key': 'key-1234' }, headerNames: ['X-Api-Key'] }, settings: [{ key: 'password', value: 's3cr3t-live' }] })).toEqual({
      webhook: { url: 'https://x.test/in', secret: 'whsec…', headers: { 'X-Api-Key': 'ke…' }, headerNames: ['X-Api-Key'] },
      settings: [{ key: 'password', value: 's3…' }],
    });
  });
});

describe('the look for a secret word in a whole text (holdsSecretWord)', () => {
  // The definition: the text lower-cased and stripped to letters and digits, as names are compared, holds one of the words.
  const WORDS = ['secret', 'passw', 'passphrase', 'apikey', 'accesskey', 'privatekey', 'signingkey', 'adminkey', 'authorization', 'credential', 'session', 'cookie', 'signature', 'token', 'auth', 'pwd', 'pin', 'otp', 'headers'];
  const byDefinition = (text: string) => {
    const plain = text.toLowerCase().replace(/[^a-z0-9]/g, '');
    return WORDS.some((word) => plain.includes(word));
  };

  it.each([
    ['{"name":"Erika","street":"Hauptstrasse 5"}', false],
    ['{"Client-Se_cret":"x"}', true],
    ['S.E.C.R.E.T', true],
    ['a pi-n', true],
    ['shipping', true],
    ['passpassw', true],
    ['authoriz', true],
    ['toke', false],
    ['tok\\u0065n', false],
    ['töken', false],
    ['Key', false],
    ['apiKey', true],
    ['café token', true],
    ['', false],
  ])('%s → %s', (text, holds) => {
    expect(holdsSecretWord(text)).toBe(holds);
    expect(byDefinition(text)).toBe(holds);
  });

  it('is the definition for any text: pieces of the words, capitals, separators, digits and characters beyond ASCII', () => {
    const piece = fc.oneof(
      fc.constantFrom(...WORDS).chain((word) => fc.nat({ max: word.length }).chain((cut) => fc.constantFrom(word.slice(0, cut), word.slice(cut), word.toUpperCase().slice(cut)))),
      fc.constantFrom('-', '_', '.', ' ', '"', ':', '{', '}', '0', '9', 'A', 'z', '`', '@', '[', '\u00e9', '\u212a', '\u0130', '\u00df'),
      fc.string({ maxLength: 2 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(holdsSecretWord(text)).toBe(byDefinition(text));
      }),
      { numRuns: 3000, seed: 26 },
    );
  });
});

describe('query strings and URLs', () => {
  it.each([
    [`access_token=${JWT}&page=2`, 'access_token=eyJhbG…&page=2'],
    ['client_secret=shipmock-demo-secret', 'client_secret=shipm…'],
    ['api%5Fkey=abcdefghijkl', 'api%5Fkey=abc…'],
    ['pass_word=abcdefghijkl&Se.Cret=abcdefghijkl', 'pass_word=abc…&Se.Cret=abc…'],
    ['callback=' + encodeURIComponent('https://u:s3cr3t-pass@x.test/'), 'callback=' + encodeURIComponent('https://u:s3…@x.test/')],
    ['limit=10&cursor=abc', 'limit=10&cursor=abc'],
  ])('%s → %s', (query, shown) => {
    expect(redactQuery(query)).toBe(shown);
  });

  it('keeps a secret already shortened and percent-encoded (a recorded URL redacted again): no second shortening', () => {
    const once = redactUrl(`https://api.test/v1/x?access_token=${JWT}&page=2`);
    // As a URL serialises it: the mark percent-encoded.
    const serialised = new URL(once).href;
    expect(serialised).toContain('access_token=eyJhbG%E2%80%A6');
    expect(redactUrl(serialised)).toBe(serialised);
    expect(redactQuery('tok=ab%E2%80%A6&x=1')).toBe('tok=ab%E2%80%A6&x=1');
  });

  it('keeps a URL without secrets as it is', () => {
    expect(redactUrl('https://example.com/a?b=c#d')).toBe('https://example.com/a?b=c#d');
    expect(redactUrl('https://user@example.com/')).toBe('https://user@example.com/');
    expect(redactUrl('https://example.com/a/b#c')).toBe('https://example.com/a/b#c');
    expect(redactUrl('https://u:s3cr3t-pass@example.com/a#b')).toBe('https://u:s3…@example.com/a#b');
    expect(redactUrl('/v1/x#?token=abcdefghijkl')).toBe('/v1/x#?token=abcdefghijkl');
  });
});

describe('any input', () => {
  const anyText = fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '{', '}', '[', ']', ':', ',', '=', '&', '?', '/', 'token', 'secret', 'headers', 'key', 'value', ' '), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 60 });
  const secretValue = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_-.'.split('')), minLength: 8, maxLength: 40 });
  const secretName = fc.constantFrom('accessToken', 'access_token', 'clientSecret', 'secret', 'password', 'apiKey', 'X-Auth-Token');

  it('never throws, and shortening twice changes nothing', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', undefined), (text, type) => {
        const once = redactBody(text, type);
        expect(redactBody(once, type)).toBe(once);
        expect(redactQuery(redactQuery(text))).toBe(redactQuery(text));
        expect(redactHeader('authorization', redactHeader('authorization', text))).toBe(redactHeader('authorization', text));
      }),
      { numRuns: 500, seed: 23 },
    );
  });

  it('leaves no secret whole under a secret name spelled with any separators and case', () => {
    const spelled = fc.tuple(secretName, fc.array(fc.constantFrom('', '', '-', '_', '.', ' '), { minLength: 20, maxLength: 20 }), fc.boolean()).map(([name, separators, upper]) =>
      [...name].map((c, i) => `${upper ? c.toUpperCase() : c}${separators[i % 20]}`).join(''),
    );
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 2 }), spelled, secretValue, (around, name, value) => {
        const body = JSON.stringify({ data: around, [name]: value });
        expect(redactBody(body, 'application/json')).not.toContain(value);
        // A text's names are made of letters, digits, `_`, `.` and `-` only.
        if (!name.includes(' ')) expect(redactBody(`${name}: ${value}`, 'text/plain')).not.toContain(value);
      }),
      { numRuns: 300, seed: 29 },
    );
  });

  it('leaves no secret whole wherever it sits in a JSON body, whole or cut', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), secretName, secretValue, fc.nat(), fc.boolean(), (around, name, value, cut, inHeaders) => {
        const member = inHeaders ? { headers: { 'X-Custom': value } } : { [name]: value };
        const body = JSON.stringify({ data: around, ...member, more: around }, null, cut % 2 ? 2 : undefined);
        const shown = redactBody(body, 'application/json');
        expect(shown).not.toContain(value);
        expect(JSON.parse(shown)).toBeDefined();
        const start = body.indexOf(value);
        expect(redactBody(body.slice(0, start + 1 + (cut % (value.length - 1))), 'application/json')).not.toContain(value);
      }),
      { numRuns: 300, seed: 23 },
    );
  });
});
