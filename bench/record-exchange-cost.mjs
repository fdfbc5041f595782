#!/usr/bin/env node
// The CPU `shipmock record` spends per exchange, in process (issue 26), on what the proxy hands it:
// an answer kept (request converted, key, answer converted, HAR line) and one not kept (past a
// request's bound or already recorded: request and key only). Needs a build (npx tsc -b tsconfig.build.json).
// Usage: node bench/record-exchange-cost.mjs [checkout root, default this one] — e.g. an older checkout to compare.
const root = process.argv[2] ? `${process.argv[2].replace(/\/$/, '')}/` : new URL('..', import.meta.url).pathname;
const { recordedExchangeOf } = await import(`${root}dist/record/recorder.js`);
const { exchangeKey } = await import(`${root}dist/record/exchange-key.js`);
const { exchangeToHarEntry } = await import(`${root}dist/recording/index.js`);
const address = { id: 'adr_01HX5Z3K8Q2W', name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE', createdAt: '2026-11-26T08:00:00.000Z', _links: { self: { href: '/v1/addresses/adr_01HX5Z3K8Q2W' } } };
const reqH = ['Host', '127.0.0.1:4000', 'Connection', 'keep-alive', 'Authorization', 'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhY2MxIn0.sig', 'Content-Type', 'application/json', 'Content-Length', '99'];
const resH = ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', '220', 'ETag', 'W/"dc-abc"', 'X-Request-Id', 'req_123456', 'Date', 'Thu, 26 Nov 2026 08:00:00 GMT', 'Connection', 'keep-alive', 'Keep-Alive', 'timeout=5'];
const mk = (method, body) => ({ startedAt: new Date(), durationMs: 1.234, method, target: method === 'GET' ? '/v1/addresses/adr_01HX5Z3K8Q2W' : '/v1/addresses', requestHeaders: reqH, requestBody: body, operationId: 'op', status: method === 'GET' ? 200 : 201, responseHeaders: resH, responseBody: Buffer.from(JSON.stringify(address)), violations: [] });
const cases = { GET: mk('GET', Buffer.alloc(0)), POST: mk('POST', Buffer.from(JSON.stringify({ name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' }))) };
const N = 20000; const hasReq = (await import(`${root}dist/record/recorder.js`)).recordedRequestOf;
function time(label, f) { for (let i = 0; i < 2000; i++) f(); const t = performance.now(); for (let i = 0; i < N; i++) f(); console.log(label.padEnd(24), ((performance.now() - t) * 1000 / N).toFixed(2), 'µs'); }
for (const [k, c] of Object.entries(cases)) {
  time(`${k} kept: all`, () => {
    let ex;
    if (hasReq) { const r = hasReq(c, 'http://127.0.0.1:4000'); exchangeKey({ request: r }); ex = recordedExchangeOf(c, 'http://127.0.0.1:4000', r); }
    else { ex = recordedExchangeOf(c, 'http://127.0.0.1:4000'); exchangeKey(ex); }
    JSON.stringify(exchangeToHarEntry(ex));
  });
  time(`${k} dropped`, () => {
    if (hasReq) exchangeKey({ request: hasReq(c, 'http://127.0.0.1:4000') });
    else exchangeKey(recordedExchangeOf(c, 'http://127.0.0.1:4000'));
  });
}

// Through a recording folder, as `record` keeps them: each exchange converted, keyed, kept and
// appended to the part file (HAR line, 50 ms batches), 10 per turn of the event loop, fresh
// buffers and a distinct answer each — CPU time of the process (process.cpuUsage: GC and the
// writes' threads included) per exchange, for 5,000 exchanges on a fresh folder after a warm-up.
// With exchangeKeeper (the recorder's own per-exchange step) when the checkout has it, else as its recorder did.
const { openRecordingFolder } = await import(`${root}dist/record/recording-folder.js`);
const { exchangeKeeper } = await import(`${root}dist/record/recorder.js`);
const { mkdtempSync, rmSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const closeUs = [];
async function throughFolder(c, M) {
  const dir = join(mkdtempSync(join(tmpdir(), 'shipmock-exchange-cost-')), 'folder');
  const folder = openRecordingFolder(dir);
  const keep = exchangeKeeper
    ? exchangeKeeper(folder, 'http://127.0.0.1:4000')
    : (captured) => {
        const request = hasReq(captured, 'http://127.0.0.1:4000');
        folder.addKeyed(exchangeKey({ request }), () => recordedExchangeOf(captured, 'http://127.0.0.1:4000', request));
      };
  const fresh = (i) => ({ ...c, startedAt: new Date(), requestHeaders: c.requestHeaders.map((v) => `${v}`), requestBody: Buffer.from(c.requestBody), responseHeaders: c.responseHeaders.map((v) => `${v}`), responseBody: Buffer.from(JSON.stringify({ ...address, id: `adr_${String(i).padStart(10, '0')}` })) });
  const started = process.cpuUsage();
  for (let i = 0; i < M; i += 10) {
    for (let j = i; j < i + 10; j++) {
      keep(fresh(j));
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setTimeout(resolve, 120));
  const used = process.cpuUsage(started);
  const kept = folder.counts().added;
  const closing = process.cpuUsage();
  folder.close();
  const closed = process.cpuUsage(closing);
  closeUs.push((closed.user + closed.system) / M);
  rmSync(dir, { recursive: true, force: true });
  return { us: (used.user + used.system) / M, kept };
}
for (const [k, c] of Object.entries(cases)) await throughFolder(c, 3000); // warm-up
for (const [k, c] of Object.entries(cases)) {
  const { us, kept } = await throughFolder(c, 5000);
  console.log(`${k} kept through a folder`.padEnd(24), us.toFixed(2), 'µs (CPU, GC and writes included)', kept, 'kept;', closeUs.at(-1).toFixed(2), 'µs per exchange to write the files at close');
}
