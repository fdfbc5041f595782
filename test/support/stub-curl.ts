import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A `curl` that sends nothing: it prints the arguments it got, each ended by NUL, so a test can
 * run a copied command through bash and compare, byte for byte, what curl would have received.
 * The command runs in an empty folder of its own, so a test can also see that it created nothing.
 */
export interface StubCurl {
  /** Runs `command` with `bash -c` (the stub first on PATH); curl's arguments, or why it did not run. */
  run(command: string, env?: Record<string, string>): { argv: string[] | undefined; stdout: Buffer; stderr: string; status: number | null };
  /** Files in the folder the commands run in (a command that ran code may have made some). */
  files(): string[];
  dispose(): void;
}

/** What the stub prints for these arguments: each one's UTF-8 bytes and a NUL. */
export function argvBytes(args: string[]): Buffer {
  return Buffer.concat(args.flatMap((arg) => [Buffer.from(arg, 'utf8'), Buffer.alloc(1)]));
}

export function createStubCurl(): StubCurl {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-stub-curl-'));
  const bin = join(dir, 'bin');
  const work = join(dir, 'work');
  for (const folder of [bin, work]) mkdirSync(folder);
  // printf '%s\0' "$@": every argument exactly, NUL-ended (no argument can hold a NUL).
  writeFileSync(join(bin, 'curl'), '#!/bin/sh\nprintf \'%s\\0\' "$@"\nexit 0\n');
  chmodSync(join(bin, 'curl'), 0o755);
  return {
    run(command, env = {}) {
      const result = spawnSync('bash', ['-c', command], { cwd: work, env: { PATH: `${bin}:/usr/bin:/bin`, HOME: work, LC_ALL: 'C.UTF-8', ...env }, encoding: 'buffer', timeout: 10_000 });
      const out = result.stdout.toString('utf8');
      // Exit status 0 and output only from the stub: the words end in NUL.
      const argv = result.status === 0 && (out === '' || out.endsWith('\0')) ? out.split('\0').slice(0, -1) : undefined;
      return { argv, stdout: result.stdout, stderr: result.stderr.toString('utf8'), status: result.status };
    },
    files: () => readdirSync(work),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
