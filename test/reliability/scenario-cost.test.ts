import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { SCENARIO_BOUNDS } from '../../src/scenarios/scenario-file.js';
import { call, startLiveMock } from '../support/live-mock.js';

/**
 * Control-plane input is bounded in cost (issue 23): the largest scenario documents the mock
 * accepts activate without stalling the event loop, larger ones get a problem naming the bound,
 * and requests stay cheap while such scenarios are active. Real HTTP to an in-process mock, so
 * the activation's CPU time and the event loop's delay are measured in this process. On a
 * shared, loaded 2-core machine (load average 15 while this was written) CPU time inflates
 * with contention, so the bound asserted is generous (250 ms of CPU for the request that
 * activates; ~50 ms is the aim, and 13–80 ms what most of these took there); the real numbers
 * are printed. Before issue 23, the 1 MiB document alone stalled the loop 2.75–4 s.
 */
let mock: RunningMock;
let salt = 0;
const measured: string[] = [];

beforeAll(async () => {
  mock = await startLiveMock();
  // Warm-up: the YAML parser, RE2 and the schema validator load on first use.
  await activate({ name: 'warm-up', rules: [rule({ path: '/v1/x/*', headers: { 'x-a': '/b+/' } })] });
  await activate('name: warm-up\nrules:\n  - match: { path: /v1/y/* }\n    effect: { respond: { status: 503 } }\n');
  await call(mock, 'DELETE', '/__admin/scenarios/warm-up');
});
afterAll(async () => {
  process.stdout.write(`scenario activation cost (CPU ms / max event-loop delay ms):\n${measured.join('\n')}\n`);
  await mock?.close();
});

const rule = (match: object) => ({ match, effect: { respond: { status: 503 } } });

/** POSTs a definition (object) or YAML text; returns the answer with the CPU time and loop delay it cost. */
async function activate(definition: object | string) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const cpu = process.cpuUsage();
  const answer =
    typeof definition === 'string'
      ? await fetch(`${mock.url}/__admin/scenarios`, { method: 'POST', headers: { 'Content-Type': 'application/yaml' }, body: definition }).then(async (res) => ({ status: res.status, body: await res.json() }))
      : await call(mock, 'POST', '/__admin/scenarios', { body: { definition } });
  const used = process.cpuUsage(cpu);
  histogram.disable();
  return { ...answer, cpuMs: (used.user + used.system) / 1000, stallMs: histogram.max / 1e6 };
}

/** Documents at the bounds, each with patterns no earlier test compiled (`salt`). */
const largest: Record<string, () => object | string> = {
  // Ten 400-character path globs with ~190 stars each: 4,000 of the 4,096 units.
  'many-star path globs': () => ({ rules: Array.from({ length: 10 }, (_, i) => rule({ path: `/v1/${'a*'.repeat(190)}${salt}-${i}`.slice(0, 400) })) }),
  'many-** path globs': () => ({ rules: Array.from({ length: 10 }, (_, i) => rule({ path: `/v1/${'**/a'.repeat(95)}${salt}-${i}`.slice(0, 400) })) }),
  'many-star body globs': () => ({ rules: Array.from({ length: 10 }, (_, i) => rule({ body: { reference: `${'*a'.repeat(195)}${salt}-${i}`.slice(0, 400) } })) }),
  // Regular expressions expanded to ~1,000 RE2 instructions (4 units each).
  'nested repetitions': () => ({ rules: Array.from({ length: 1 }, (_, i) => rule({ headers: { 'x-h': `/(?:(?:a{10}){10}){10}${salt}r${i}/` } })) }),
  'range repetitions': () => ({ rules: Array.from({ length: 8 }, (_, i) => rule({ headers: { 'x-h': `/[A-Za-z]{1,100}${salt}r${i}/`, 'x-i': `/\\d{0,10}${salt}/` } })) }),
  // 16 KiB of YAML: rules of 14 plain paths each (plain text weighs nothing).
  'largest YAML text': () => yamlOfSize(SCENARIO_BOUNDS.maxBytes - 64),
};

function yamlOfSize(bytes: number): string {
  const head = `name: largest-yaml\nrules:\n`;
  const rules: string[] = [];
  let size = head.length;
  for (let r = 0; ; r++) {
    const text = `  - match:\n      path:\n${Array.from({ length: 14 }, (_, p) => `        - /v1/p${salt}-${r}-${p}`).join('\n')}\n    effect: { respond: { status: 503 } }\n`;
    if (size + text.length > bytes || r === 50) break;
    rules.push(text);
    size += text.length;
  }
  return head + rules.join('');
}

describe('scenario activation cost', () => {
  it.each(Object.keys(largest))('the largest accepted document (%s) activates without stalling the event loop', async (kind) => {
    salt++;
    const made = largest[kind]();
    const definition = typeof made === 'string' ? made : { name: `largest-${salt}`, ...made };
    const answer = await activate(definition);
    if (answer.status === 201) await call(mock, 'DELETE', `/__admin/scenarios/${answer.body.name}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    measured.push(`  ${kind}: ${answer.cpuMs.toFixed(1)} / ${answer.stallMs.toFixed(1)}`);
    expect(answer.cpuMs).toBeLessThan(250);
  });

  it('a document over the size bound is a 413 naming the bound, before it is parsed; nothing is activated', async () => {
    // The document: 50 rules × 50 long globs, ~1 MiB (it stalled the loop 2.75 s).
    const glob = (i: number) => `/v1/${'a*'.repeat(195)}`.slice(0, 390) + i;
    const big = { name: 'big', rules: Array.from({ length: 50 }, (_, r) => rule({ path: Array.from({ length: 50 }, (_, p) => glob(r * 50 + p)) })) };
    const answer = await activate(big);
    expect(answer.status).toBe(413);
    expect(answer.body.type).toMatch(/payload-too-large$/);
    expect(answer.body.properties.violations[0]).toEqual({ field: 'body/definition', message: expect.stringMatching(/^is \d+ bytes; a scenario is at most 16384 bytes \(16 KiB\)/) });
    measured.push(`  1 MiB document (refused): ${answer.cpuMs.toFixed(1)} / ${answer.stallMs.toFixed(1)}`);
    // Most of it is reading the 1 MiB body (JSON parse, the control plane's schema check, the journal).
    expect(answer.cpuMs).toBeLessThan(600);
    const yaml = await activate(`name: big\nrules:\n${'  - match: { path: /v1/a }\n    effect: { respond: { status: 503 } }\n'.repeat(400)}`);
    expect(yaml.status).toBe(413);
    expect(yaml.body.properties.violations[0].field).toBe('body');
    expect((await call(mock, 'GET', '/__admin/scenarios')).body.active).toEqual([]);
  });

  it.each([
    ['patterns over the weight bound', () => ({ rules: Array.from({ length: 11 }, (_, i) => rule({ path: `/v1/${'a*'.repeat(190)}-${i}`.slice(0, 400) })) }), 'body/definition/rules', /weigh 4\d{3} pattern units; .* at most 4096 together/],
    ['a counted repetition above 100', () => ({ rules: [rule({ headers: { 'x-h': '/a{1000}/' } })] }), 'body/definition/rules/0/match/headers/x-h', /repeats \{1000\}; a counted repetition is at most \{100\}/],
  ])('%s is a 400 naming the bound and the field; nothing is activated', async (_name, make, field, message) => {
    const answer = await activate({ name: 'over', ...make() });
    expect(answer.status).toBe(400);
    expect(answer.body.properties.violations).toContainEqual({ field, message: expect.stringMatching(message) });
    expect(answer.cpuMs).toBeLessThan(250);
    expect((await call(mock, 'GET', '/__admin/scenarios')).body.active).toEqual([]);
  });

  it('the active scenarios together are bounded too: one more is a 400 naming the bound', async () => {
    const heavy = (name: string) => ({ name, rules: Array.from({ length: 10 }, (_, i) => rule({ path: `/v1/${'a*'.repeat(190)}${name}${i}`.slice(0, 400) })) });
    expect((await activate(heavy('heavy-one'))).status).toBe(201);
    expect((await activate(heavy('heavy-two'))).status).toBe(201);
    const third = await activate(heavy('heavy-three'));
    expect(third.status).toBe(400);
    expect(third.body.properties.violations[0].message).toMatch(/would weigh \d+ pattern units together; at most 8192 are active at once/);
    // Replacing an active scenario by its name does not count it twice.
    expect((await activate(heavy('heavy-two'))).status).toBe(201);
    expect((await call(mock, 'GET', '/__admin/scenarios')).body.active.map((a: { name: string }) => a.name)).toEqual(['heavy-one', 'heavy-two']);
  });

  it('requests stay cheap with the largest scenarios active, whatever their path, headers and body', async () => {
    // heavy-one and heavy-two are active (8,000 units): adversarial texts of the longest matched length.
    const texts = [`/v1/${'a'.repeat(2_040)}`, `/v1/${'a/'.repeat(1_020)}`, `/v1/addresses/${'x'.repeat(6_000)}`];
    const cpu = process.cpuUsage();
    for (const path of texts) {
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${mock.url}${path}`, { headers: { 'x-h': 'a'.repeat(2_000) } });
        // No rule matches these (nor may one crash on them): the pipeline answers (401 without a token, 404 off the contract).
        expect([401, 404]).toContain(res.status);
        await res.arrayBuffer();
      }
    }
    const used = process.cpuUsage(cpu);
    const perRequest = (used.user + used.system) / 1000 / 15;
    measured.push(`  a request with 8,000 units active: ${perRequest.toFixed(1)} CPU ms`);
    expect(perRequest).toBeLessThan(50);
    await call(mock, 'DELETE', '/__admin/scenarios/heavy-one');
    await call(mock, 'DELETE', '/__admin/scenarios/heavy-two');
  });

  it('scenarios named in X-Shipmock-Scenario keep to the same bound per request: beyond it a 400 naming the header', async () => {
    const heavy = (name: string) => ({ name, rules: Array.from({ length: 10 }, (_, i) => rule({ path: `/v1/${'a*'.repeat(190)}${name}${i}`.slice(0, 400) })) });
    // Activated once (so the header can name them), then deactivated: none is active.
    for (const name of ['named-one', 'named-two', 'named-three']) {
      expect((await activate(heavy(name))).status).toBe(201);
      await call(mock, 'DELETE', `/__admin/scenarios/${name}`);
    }
    const two = await fetch(`${mock.url}/v1/addresses`, { headers: { 'X-Shipmock-Scenario': 'named-one, named-two, named-one' } });
    expect(two.status).toBe(401);
    const three = await call(mock, 'GET', '/v1/addresses', { headers: { 'X-Shipmock-Scenario': 'named-one,named-two,named-three' } });
    expect(three.status).toBe(400);
    expect(three.body.properties.violations).toEqual([{ field: 'header/X-Shipmock-Scenario', message: expect.stringMatching(/^names scenarios weighing \d+ pattern units; at most 8192 together$/) }]);
  });

  it('a glob does not run on a text over 2,048 characters (a plain path still compares)', async () => {
    expect((await activate({ name: 'any-address', rules: [rule({ path: '/v1/addresses/**' })] })).status).toBe(201);
    expect((await fetch(`${mock.url}/v1/addresses/${'x'.repeat(100)}`)).status).toBe(503);
    expect((await fetch(`${mock.url}/v1/addresses/${'x'.repeat(SCENARIO_BOUNDS.maxMatchedText)}`)).status).toBe(401);
    await call(mock, 'DELETE', '/__admin/scenarios/any-address');
  });
});

describe('--scenario files at start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-scenario-cost-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a file at the size bound starts; one over it is refused at start naming the bound', async () => {
    salt++;
    const fits = join(dir, 'fits.yaml');
    writeFileSync(fits, yamlOfSize(SCENARIO_BOUNDS.maxBytes - 64));
    expect(yamlOfSize(SCENARIO_BOUNDS.maxBytes - 64).length).toBeGreaterThan(SCENARIO_BOUNDS.maxBytes - 400);
    const started = await startLiveMock({ scenarios: [fits] });
    expect(started.scenarios.list().map((s) => s.name)).toEqual(['largest-yaml']);
    await started.close();
    const over = join(dir, 'over.yaml');
    writeFileSync(over, `${yamlOfSize(SCENARIO_BOUNDS.maxBytes - 64)}${'# padding\n'.repeat(100)}`);
    await expect(startLiveMock({ scenarios: [over] })).rejects.toThrow(/over\.yaml is too large: scenario is \d+ bytes; a scenario is at most 16384 bytes/);
  });
});
