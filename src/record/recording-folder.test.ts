import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { redactExchange, type Exchange } from '../recording/index.js';
import { parsePartLine } from './part-line.js';
import { HAR_FILE, SCENARIO_FILE, writeRecording } from './recording-files.js';
import { openRecordingFolder, PART_FILE } from './recording-folder.js';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZWNyZXQtYWNjb3VudC0xMjM0NSJ9.c2lnbmF0dXJlLXNlY3JldA';
const CLIENT_SECRET = 'cs_live_9f86d081884c7d659a2feaa0c55ad015';
const WEBHOOK_SECRET = 'whsec_2c26b46b68ffc68ff99b453c1d304134';
const COOKIE = 'sid=0123456789abcdef0123; theme=dark';
const URL_TOKEN = 'tok_a1b2c3d4e5f6a7b8c9d0';
const SECRETS = [TOKEN, CLIENT_SECRET, WEBHOOK_SECRET, '0123456789abcdef0123', URL_TOKEN, 'hunter2hunter2'];

/** Exchanges with a secret in every place a recorder meets one, some requests repeated (a sequence). */
function exchanges(): Exchange[] {
  const base = { verdict: { conforms: true, violations: [] }, startedAt: '2026-11-26T08:00:00.000Z', durationMs: 1.5 };
  const json = { 'Content-Type': 'application/json' };
  return [
    {
      ...base,
      operationId: 'createAddress',
      request: { method: 'POST', url: 'http://real.invalid/v1/addresses', headers: { Authorization: `Bearer ${TOKEN}`, ...json, Cookie: COOKIE }, body: '{"name":"Erika","street":"Hauptstrasse 5"}' },
      response: { status: 201, headers: { ...json, 'Set-Cookie': 'sid=abcdefabcdefabcdef; Path=/\nother=zyxwvutsrqponm; HttpOnly', Location: `https://real.invalid/v1/addresses/1?access_token=${URL_TOKEN}` }, body: '{"id":"1","name":"Erika"}' },
    },
    {
      ...base,
      request: { method: 'POST', url: 'http://real.invalid/v1/addresses', headers: { Authorization: `Bearer ${TOKEN}`, ...json, Cookie: COOKIE }, body: '{"street":"Hauptstrasse 5","name":"Erika"}' },
      response: { status: 201, headers: json, body: '{"id":"2","name":"Erika"}' },
    },
    {
      ...base,
      request: { method: 'POST', url: 'http://real.invalid/v1/companies/c1/tokens', headers: { Authorization: `Basic ${Buffer.from(`client:${CLIENT_SECRET}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_secret=${CLIENT_SECRET}` },
      response: { status: 202, headers: json, body: `{"accessToken":"${TOKEN}","tokenType":"Bearer"}` },
    },
    {
      ...base,
      verdict: { conforms: false, violations: [{ field: 'response/body/secret', message: 'is not allowed' }] },
      request: { method: 'POST', url: `http://user:hunter2hunter2@real.invalid/v1/event-channels?token=${URL_TOKEN}`, headers: { 'X-Api-Key': CLIENT_SECRET, 'Content-Type': 'application/json; charset=utf-8' }, body: `{"url":"https://hooks.invalid/in","secret":"${WEBHOOK_SECRET}","headers":{"X-Hook":"${CLIENT_SECRET}"}}` },
      response: { status: 201, headers: { 'Content-Type': 'text/plain' }, body: `secret=${WEBHOOK_SECRET} ok` },
    },
    {
      ...base,
      request: { method: 'GET', url: 'http://real.invalid/v1/documents/d1?b=2&a=1', headers: { Authorization: `Bearer ${TOKEN}`, Accept: 'application/pdf' } },
      response: { status: 200, headers: { 'Content-Type': 'application/pdf', 'X-Signature': 'sig_0011223344556677' }, body: Buffer.from([0x25, 0x50, 0x44, 0x46, 0xff, 0x00, 0x01]) },
    },
  ];
}

describe('a recording folder writes what the converter writes', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const folderDir = () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'shipmock-folder-')), 'staging');
    dirs.push(dir);
    return dir;
  };

  it('the same bytes in the HAR, the scenario and the part file as writeRecording of the raw exchanges, and no secret', async () => {
    const dir = folderDir();
    // What the converter writes from the exchanges as they came (secrets in them): the files to match.
    mkdirSync(dir, { recursive: true });
    writeRecording(dir, exchanges());
    const expectedHar = readFileSync(join(dir, HAR_FILE), 'utf8');
    const expectedScenario = readFileSync(join(dir, SCENARIO_FILE), 'utf8');
    unlinkSync(join(dir, HAR_FILE));
    unlinkSync(join(dir, SCENARIO_FILE));

    const folder = openRecordingFolder(dir);
    for (const exchange of exchanges()) expect(folder.add(exchange)).toBe(true);
    // The part file is appended a moment later (50 ms batches).
    const partPath = join(dir, PART_FILE);
    let part = '';
    for (let waited = 0; waited < 5000 && part.split('\n').length <= exchanges().length; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      try {
        part = readFileSync(partPath, 'utf8');
      } catch {
        // not written yet
      }
    }
    // One line per exchange, holding what the converter makes of it (secrets shortened), nothing more or less.
    const lines = part.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => parsePartLine(line))).toEqual(exchanges().map((exchange) => redactExchange(exchange)));
    // Nothing of this run is kept in memory but what the folder held: the files are built from the part.
    expect(folder.exchanges()).toEqual(exchanges().map((exchange) => redactExchange(exchange)));
    folder.close();
    expect(existsSync(partPath)).toBe(false);

    const har = readFileSync(join(dir, HAR_FILE), 'utf8');
    const scenario = readFileSync(join(dir, SCENARIO_FILE), 'utf8');
    expect(har).toBe(expectedHar);
    expect(scenario).toBe(expectedScenario);
    for (const secret of SECRETS) {
      expect(har).not.toContain(secret);
      expect(scenario).not.toContain(secret);
      expect(part).not.toContain(secret);
    }
  });
});
