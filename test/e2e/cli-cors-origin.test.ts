import { spawnSync } from 'node:child_process';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startServeCli } from '../support/serve-cli.js';

/** `--cors-origin` on the real `shipmock` command (bin/shipmock.js → dist/). */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));

/** Access-Control-Allow-Origin of an API answer to a page of `origin` (fetch would not send Origin as given). */
function allowOriginFor(url: string, origin: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    get(`${url}/v1/addresses`, { headers: { Origin: origin } }, (res) => {
      res.resume();
      resolve(res.headers['access-control-allow-origin'] as string | undefined);
    }).on('error', reject);
  });
}

describe('shipmock serve --cors-origin', () => {
  it('allows pages of this machine by default and the named origins besides, no others', async () => {
    const plain = (await startServeCli([])).url;
    expect(await allowOriginFor(plain, 'http://localhost:3000')).toBe('http://localhost:3000');
    expect(await allowOriginFor(plain, 'https://app.example')).toBe(plain);

    const widened = (await startServeCli(['--cors-origin', 'https://app.example,https://b.example', '--cors-origin=https://c.example'])).url;
    for (const origin of ['https://app.example', 'https://b.example', 'https://c.example', 'http://127.0.0.1:5173']) expect(await allowOriginFor(widened, origin)).toBe(origin);
    expect(await allowOriginFor(widened, 'https://evil.example')).toBe(widened);

    const open = (await startServeCli(['--cors-origin', '*'])).url;
    expect(await allowOriginFor(open, 'https://evil.example')).toBe('*');
  });

  it('refuses a value that is not an origin, naming the flag', () => {
    const run = spawnSync(process.execPath, [bin, 'serve', '--port', '0', '--cors-origin', 'app.example'], { cwd: root, encoding: 'utf8', timeout: 15_000 });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('--cors-origin');
    expect(run.stderr).toContain('app.example');
  });
});
