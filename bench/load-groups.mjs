// Runs one autocannon instance per connection group at once, in this one process (a load
// generator no busier than run.mjs's single autocannon), and prints their aggregate as JSON:
// `node bench/load-groups.mjs '{"duration":5,"counters":[url…],"groups":[{"url":…,"connections":12,"method":"GET","headers":{…},"body":…}]}'`
// (bench/scale-out.mjs: each group is its own account, on its own process or all on one).
// `counters`: JSON endpoints (GET /__admin/store/batches of each process) read right before and
// right after the load, summed: what the load cost, over `wallMs` between the two reads.
import autocannon from 'autocannon';

function runGroup(group, duration) {
  return new Promise((resolve, reject) => {
    autocannon({ ...group, duration, skipAggregateResult: true }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** Every endpoint's numeric fields, summed. */
async function readCounters(urls) {
  const sum = {};
  for (const url of urls) {
    // Once more when the server closed the keep-alive socket that sat idle during the load.
    const get = () => fetch(url, { headers: { 'X-Shipmock-Admin': '1' } });
    const counters = await (await get().catch(get)).json();
    // Nested counters (byLock, reads) as `reads.batches`.
    const flat = Object.entries(counters).flatMap(([key, value]) => (value && typeof value === 'object' ? Object.entries(value).map(([sub, inner]) => [`${key}.${sub}`, inner]) : [[key, value]]));
    for (const [key, value] of flat) if (typeof value === 'number') sum[key] = (sum[key] ?? 0) + value;
  }
  return sum;
}

const { duration, groups, counters = [] } = JSON.parse(process.argv[2]);
const before = await readCounters(counters);
const started = performance.now();
const results = await Promise.all(groups.map((group) => runGroup(group, duration)));
const wallMs = performance.now() - started;
const after = await readCounters(counters);
const connections = groups.reduce((sum, group) => sum + group.connections, 0);
const total = autocannon.aggregateResult(results, { url: groups[0].url, connections });
const seconds = (result) => (new Date(result.finish) - new Date(result.start)) / 1000;
console.log(
  JSON.stringify({
    requests: total.latency.totalCount,
    rps: Math.round(total.latency.totalCount / seconds(total)),
    p50: total.latency.p50,
    p99: total.latency.p99,
    meanMs: total.latency.mean,
    non2xx: total.non2xx + total.errors + total.timeouts,
    perGroup: results.map((result) => Math.round(result.totalCompletedRequests / seconds(result))),
    wallMs: Math.round(wallMs),
    ...Object.fromEntries(Object.keys(after).map((key) => [key, after[key] - before[key]])),
  }),
);
