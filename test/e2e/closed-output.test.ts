/**
 * A mock whose output nobody reads any more (`shipmock serve | head -5`, a log collector that
 * went away) keeps serving: a broken stdout pipe must not end the process (src/cli/closed-output.ts).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));

/** Reads the child's stdout until the banner names its URL, then closes our end of the pipe. */
function urlThenClose(child: ChildProcessByStdio<null, Readable, Readable>): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(seen)?.[1];
      if (!url) return;
      child.stdout.destroy();
      resolve(url);
    });
    child.on('exit', (code) => reject(new Error(`shipmock exited (${code}) before it listened: ${seen}`)));
  });
}

describe('shipmock serve with a closed stdout', () => {
  let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
  });

  it('keeps answering after the reader of its log went away, and logs each request into the void', async () => {
    // --log-level info: every request writes a log line to the closed pipe.
    child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let exited: number | null | undefined;
    child.on('exit', (code) => (exited = code));
    const url = await urlThenClose(child);
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${url}/v1/carriers`);
      // 401: no credentials; the point is that a request log line was written to the closed pipe.
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }
    const health = await fetch(`${url}/__admin/health`);
    expect(health.status).toBe(200);
    expect(exited).toBeUndefined();
  }, 30_000);
});
