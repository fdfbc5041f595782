import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Idle-memory guard: the real `shipmock serve` (dist/), once started and after its first answers,
 * holds about 77 MiB here (issue 16 target: ≤ 80 MiB). The bound is generous so machine noise
 * cannot fail it; what it catches is a dependency loaded at start again (pdfkit, Prism, Pact…
 * are tens of MiB each) or state built up front.
 */
const IDLE_RSS_LIMIT_MIB = 110;
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));

function rssMib(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

describe('idle memory of shipmock serve', () => {
  it(`stays under ${IDLE_RSS_LIMIT_MIB} MiB after start and its first answers`, async () => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (chunk) => {
          out += chunk;
          const match = /listening on (\S+)/.exec(out);
          if (match) resolve(match[1]);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const basic = `Basic ${Buffer.from('shipmock-demo-client:shipmock-demo-secret').toString('base64')}`;
      for (let i = 0; i < 20; i++) await (await fetch(`${url}/v1/carriers`, { headers: { Authorization: basic } })).arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const rss = rssMib(child.pid!);
      expect(rss, `RSS ${rss.toFixed(1)} MiB`).toBeLessThan(IDLE_RSS_LIMIT_MIB);
      expect(rss).toBeGreaterThan(20); // it measured the mock, not an empty process
    } finally {
      child.kill('SIGKILL');
    }
  });
});
