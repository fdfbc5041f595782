import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { releaseWhenDone } from './lifetime.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));

export interface ServedCli {
  child: ChildProcess;
  /** Everything it printed up to its start banner (stdout and stderr). */
  banner: string;
  /** e.g. http://127.0.0.1:54321 */
  url: string;
}

/**
 * The real `shipmock serve` (bin/shipmock.js → dist/) on a free port with `--log-level warn`,
 * resolved once its banner is printed; killed (SIGKILL) when the test that started it ends.
 * @example const { url, banner } = await startServeCli(['--cors-origin', 'https://app.example']);
 */
export function startServeCli(args: string[], timeoutMs = 10_000): Promise<ServedCli> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'warn', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  releaseWhenDone(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no start within ${timeoutMs / 1000} s:\n${out}`)), timeoutMs);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (/company token/.test(out)) {
        clearTimeout(timer);
        resolve({ child, banner: out, url: /listening on (\S+)/.exec(out)![1] });
      }
    });
    child.stderr!.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before listening:\n${out}`));
    });
  });
}
