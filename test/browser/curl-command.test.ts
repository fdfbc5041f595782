import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { curlCommand, shellWord, type CurlRequest } from '../../ui/inspector/src/curl-command.js';
import { argvBytes, createStubCurl } from '../support/stub-curl.js';

/**
 * The inspector's "Copy as curl" (ui/inspector/src/curl-command.ts): whatever a journaled request
 * holds — any client, or any web page, can send it — the copied command, run by bash, passes
 * exactly those bytes to curl and runs nothing else. Checked by running every command through
 * bash against a stub curl that prints its arguments.
 */
const stub = createStubCurl();
afterAll(() => stub.dispose());

/** What a shell treats specially, and what a terminal does (controls, C1, bidi), mixed with any Unicode. */
const nasty = fc.constantFrom(
  "'", '"', '$', '`', '\\', '!', '(', ')', '{', '}', '[', ']', ';', '|', '&', '<', '>', '*', '?', '~', '#', '%', '^', ' ', '\t', '\n', '\r', '\r\n',
  '\u0000', '\u0001', '\u0003', '\u001b', '\u001b[201~', '\u007f', '\u0085', '\u009b', '\u2028', '\u202e', '\u2066', '\ufeff', 'é', '😀', 'x',
  '$(touch${IFS}pwned)', '`touch pwned`', '${IFS}', "'\\''", '$\'\\x41\'', '!!', '!$', '\\x41', 'Bearer ',
);
const text = fc.string({ unit: fc.oneof(nasty, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 40 });
/** Header names as HTTP allows them (a token), lower case as the journal keeps them. */
const headerName = fc.oneof(fc.constantFrom('authorization', 'cookie', 'host', 'sec-fetch-site'), fc.stringMatching(/^[a-z0-9!#$%&'*+.^_`|~-]{1,20}$/));

const request: fc.Arbitrary<CurlRequest> = fc.record({
  method: fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), text),
  url: fc.oneof(text, text.map((t) => `http://127.0.0.1:4010/v1/x?q=${t}`)),
  headers: fc.array(fc.tuple(headerName, text), { maxLength: 4 }),
  body: fc.option(text, { nil: undefined }),
});

const withoutNul = (value: string) => value.replace(/\u0000/g, '');
const SKIPPED = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'user-agent', 'transfer-encoding']);

/** The arguments curl must get for `request` (NUL left out), with TOKEN standing for the Authorization credential. */
function expectedArgs(request: CurlRequest, token: string): string[] {
  return sentParts(request, token).map(withoutNul);
}

function sentParts(request: CurlRequest, token: string): string[] {
  const args = ['-i', '-X', request.method, request.url, '--globoff'];
  for (const [name, value] of request.headers) {
    if (SKIPPED.has(name) || name.startsWith('sec-')) continue;
    const scheme = /^(basic|bearer|concealed|digest|dpop|gnap|hoba|mutual|negotiate|ntlm|oauth|privatetoken|scram-sha-1|scram-sha-256|vapid|token|apikey|aws4-hmac-sha256) /i.exec(value)?.[0] ?? '';
    args.push('-H', name === 'authorization' ? `${name}: ${scheme}${token}` : `${name}: ${value}`);
  }
  if (request.body) args.push('--data-raw', request.body);
  return args;
}

describe('Copy as curl runs nothing but curl, with exactly the request’s bytes', () => {
  it('for any method, URL, header and body (random strings full of shell and terminal syntax)', () => {
    fc.assert(
      fc.property(request, text, (req, rawToken) => {
        const token = withoutNul(rawToken);
        const { command, droppedNul } = curlCommand(req);
        const ran = stub.run(command, { TOKEN: token });
        expect(ran.stderr).toBe('');
        expect(ran.stdout.equals(argvBytes(expectedArgs(req, token))), `${JSON.stringify(command)} gave ${JSON.stringify(ran.argv)}`).toBe(true);
        const held = sentParts(req, token).some((part) => part.includes('\u0000'));
        expect(droppedNul).toBe(held);
        // One line, printable: a terminal gets nothing it could act on, whatever the paste mode.
        expect(command).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u);
        expect(stub.files()).toEqual([]);
      }),
      { numRuns: 200, seed: 23 },
    );
    // Each run starts a bash: generous on a loaded machine.
  }, 180_000);

  it('the issue’s attack: Authorization "$(touch${IFS}pwned) x", backticks, and the same in any header and the body', () => {
    for (const attack of ['$(touch${IFS}pwned) x', '`touch pwned` x', 'Bearer $(touch pwned)', "x' ; touch pwned ; '"]) {
      const req: CurlRequest = { method: 'POST', url: `http://127.0.0.1:1/v1/a?${attack}`, headers: [['authorization', attack], ['x-note', attack]], body: attack };
      const { command } = curlCommand(req);
      const ran = stub.run(command, { TOKEN: 'tok' });
      expect(ran.argv).toEqual(expectedArgs(req, 'tok'));
      expect(stub.files()).toEqual([]);
    }
  });

  it('reads as a normal command for a normal request', () => {
    const { command } = curlCommand({
      method: 'POST',
      url: 'http://127.0.0.1:4010/v1/addresses',
      headers: [['host', '127.0.0.1:4010'], ['authorization', 'Bearer eyJhbG…'], ['content-type', 'application/json']],
      body: '{"name":"O\'Brien"}',
    });
    expect(command).toBe(`curl -i -X POST 'http://127.0.0.1:4010/v1/addresses' --globoff -H 'authorization: Bearer '"$TOKEN" -H 'content-type: application/json' --data-raw '{"name":"O'\\''Brien"}'`);
    expect(shellWord('a\nb')).toBe(`'a'$'\\x0a''b'`);
    expect(shellWord('')).toBe(`''`);
  });
});
