import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exchangeToHarEntry, redactExchange, type Exchange } from '../recording/index.js';
import { parsePartLine, partLine, partLineText } from './part-line.js';
import { HAR_FILE, SCENARIO_FILE, writeRecording } from './recording-files.js';
import { openRecordingFolder, partAppender, PART_FILE } from './recording-folder.js';

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

  it('takes in what a killed run left in the part (its lines, an older HAR-entry line, not the line cut by the kill) and appends after it', async () => {
    const all = exchanges();
    const dir = folderDir();
    mkdirSync(dir, { recursive: true });
    writeRecording(dir, all);
    const expectedHar = readFileSync(join(dir, HAR_FILE), 'utf8');
    const expectedScenario = readFileSync(join(dir, SCENARIO_FILE), 'utf8');
    unlinkSync(join(dir, HAR_FILE));
    unlinkSync(join(dir, SCENARIO_FILE));

    // What a killed run leaves: two lines of its own, one HAR entry of an older shipmock, and a line cut mid-write.
    const cut = partLine(redactExchange(all[3]));
    writeFileSync(join(dir, PART_FILE), `${partLine(redactExchange(all[0]))}${JSON.stringify(exchangeToHarEntry(all[1]))}\n${partLine(redactExchange(all[2]))}${cut.slice(0, cut.length / 2)}`);
    const folder = openRecordingFolder(dir);
    expect(folder.counts()).toMatchObject({ found: 3, added: 0 });
    // The cut exchange and the last come again: kept after what was found, on lines of their own.
    expect(folder.add(all[3])).toBe(true);
    expect(folder.add(all[4])).toBe(true);
    expect(folder.add(all[0])).toBe(false);
    folder.close();
    expect(readFileSync(join(dir, HAR_FILE), 'utf8')).toBe(expectedHar);
    expect(readFileSync(join(dir, SCENARIO_FILE), 'utf8')).toBe(expectedScenario);
    expect(existsSync(join(dir, PART_FILE))).toBe(false);
  });

  it('a killed run loses at most its last 50 ms: what it appended is in the part, secrets shortened', async () => {
    const dir = folderDir();
    const folder = openRecordingFolder(dir);
    for (const exchange of exchanges()) folder.add(exchange);
    const partPath = join(dir, PART_FILE);
    let part = '';
    for (let waited = 0; waited < 5000 && part.split('\n').length <= exchanges().length; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (existsSync(partPath)) part = readFileSync(partPath, 'utf8');
    }
    // The run "dies" here: its folder is read by the next one as it is on disk.
    const copy = folderDir();
    mkdirSync(copy, { recursive: true });
    writeFileSync(join(copy, PART_FILE), part);
    folder.close();
    const next = openRecordingFolder(copy);
    expect(next.exchanges()).toEqual(exchanges().map((exchange) => redactExchange(exchange)));
    next.close();
    for (const secret of SECRETS) expect(readFileSync(join(copy, HAR_FILE), 'utf8')).not.toContain(secret);
  });
});


describe('the part appender', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  /** A distinct exchange per number, its answer `size` characters long (a wide character in every other). */
  const numbered = (i: number, size = 200): Exchange => ({
    request: { method: 'GET', url: `http://real.invalid/v1/addresses/${i}`, headers: { Authorization: 'Bearer eyJhbG…' } },
    response: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: `${i % 2 ? 'Straße ' : ''}${String(i).padEnd(size, 'x')}` },
  });

  it('writes every line in order, in whole batches, each ending in a newline: a turn of more than a batch holds, a line larger than its buffer, lines after that', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipmock-appender-'));
    dirs.push(dir);
    const path = join(dir, PART_FILE);
    writeFileSync(path, 'what an earlier run left\n');
    const start = 'what an earlier run left\n'.length;
    const part = partAppender(path, start, (error) => {
      throw error;
    });
    const exchanges = [...Array.from({ length: 3000 }, (_, i) => numbered(i, 500)), numbered(3000, 3_000_000), numbered(3001)];
    // One turn: past the batch's bound, so some are written before the 50 ms are up.
    // Lines with their newline and without (partLineText: the appender adds it).
    exchanges.forEach((exchange, i) => part.push(i % 2 ? partLine(exchange) : partLineText(exchange)));
    expect(readFileSync(path).length).toBeGreaterThan(start);
    await new Promise((resolve) => setTimeout(resolve, 120));
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('what an earlier run left\n')).toBe(true);
    expect(text.slice(start)).toBe(exchanges.map((exchange) => partLine(exchange)).join(''));
    part.push(partLine(numbered(3002)));
    expect(part.readBack()).toEqual([...exchanges, numbered(3002)]);
    part.close();
  });

  it('keeps in memory what the part file cannot take (a full disk), in order, and says so once per batch', () => {
    const errors: Error[] = [];
    const part = partAppender('/dev/full', 0, (error) => errors.push(error));
    const exchanges = Array.from({ length: 10 }, (_, i) => numbered(i));
    for (const exchange of exchanges.slice(0, 5)) part.push(partLineText(exchange));
    expect(part.readBack()).toEqual(exchanges.slice(0, 5));
    expect(errors).toHaveLength(1);
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('ENOSPC');
    for (const exchange of exchanges.slice(5)) part.push(partLine(exchange));
    expect(part.readBack()).toEqual(exchanges);
    expect(errors).toHaveLength(1);
    part.close();
  });
});
