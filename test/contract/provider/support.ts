import { fork } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../../src/logging/logger.js';
import { startMock, type RunningMock } from '../../../src/server/start-mock.js';
import { readPactFiles, type PactInteraction } from '../../../src/verify/pact-files.js';
import type { InteractionOutcome, VerificationReport } from '../../../src/verify/run-verification.js';

export const PACT_DIR = fileURLToPath(new URL('../../../pacts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * shipmock as the provider under test: a real socket, no Prism fallback (an operation without a
 * stateful handler answers 501, so a missing family shows as exactly that, never as a lucky
 * generated answer), quiet logs.
 */
export function startProviderMock(): Promise<RunningMock> {
  return startMock({ port: 0, unhandled: 'error', logger: createLogger({ level: 'silent', format: 'json' }) });
}

/** Writes copies of the committed pacts that keep only the interactions `keep` accepts. */
export function pactSubset(keep: (interaction: PactInteraction) => boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-pact-subset-'));
  for (const pact of readPactFiles([PACT_DIR])) {
    const interactions = pact.interactions.filter(keep);
    if (interactions.length) writeFileSync(join(dir, basename(pact.path)), JSON.stringify({ ...pact.raw, interactions }, null, 2));
  }
  return dir;
}

/** An interaction that failed only because shipmock does not implement an operation it needs yet. */
export function blockedByMissingOperation(outcome: InteractionOutcome): boolean {
  return outcome.status === 'failed' && outcome.reasons.length > 0 && outcome.reasons.some((r) => /answered 501 \(not-implemented|but was 501/.test(r));
}

export const descriptionsOf = (outcomes: InteractionOutcome[]) => outcomes.map((o) => o.description).sort();

/** How the breaking proxy damages one route's answers. */
export interface Breakage {
  method: string;
  path: RegExp;
  /** Answer this status instead. */
  status?: number;
  /** Rename a top-level field of the JSON body. */
  rename?: [from: string, to: string];
}

/**
 * A deliberately broken provider: shipmock behind a tiny proxy that changes the answers of
 * the listed routes and passes everything else through untouched.
 */
export async function startBreakingProxy(upstream: string, breakages: Breakage[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers.set(name, value);
    const answer = await fetch(upstream + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    let body = Buffer.from(await answer.arrayBuffer());
    let status = answer.status;
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    for (const breakage of breakages) {
      if (breakage.method !== req.method || !breakage.path.test(path)) continue;
      if (breakage.status) status = breakage.status;
      if (breakage.rename) {
        const json = JSON.parse(body.toString('utf8'));
        json[breakage.rename[1]] = json[breakage.rename[0]];
        delete json[breakage.rename[0]];
        body = Buffer.from(JSON.stringify(json));
      }
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection') out[name] = value;
    });
    res.writeHead(status, { ...out, 'content-length': String(body.length) });
    res.end(status === 204 ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What verify-in-child.ts runs: verifyProvider with shipmockControl(shipmockUrl). */
export interface CapturedVerificationRequest {
  baseUrl: string;
  access: { companyId: string; clientId: string; clientSecret: string };
  /** The shipmock whose control API sets up the states (may differ from baseUrl, e.g. behind a breaking proxy). */
  shipmockUrl: string;
  pacts: string[];
}
export type CapturedVerificationReply = { report: VerificationReport } | { error: string };

/**
 * verifyProvider for a verification that fails on purpose, with its console output captured
 * instead of printed. The Pact verifier (native pact-core) prints its report, "FAILED" lines,
 * mismatch diffs and "Verification unsuccessful" straight to the process's stdout, which no
 * log level or logger option reaches; run in a child process, all of it lands in `output`
 * (for the tests' failure messages) and a green run shows none of it. The report is the same
 * one verifyProvider returns in-process (plain JSON data), from the same sources (tsx).
 */
export function verifyProviderCaptured(request: CapturedVerificationRequest): Promise<{ report: VerificationReport; output: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./verify-in-child.ts', import.meta.url)), [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    let reply: CapturedVerificationReply | undefined;
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('message', (message) => (reply = message as CapturedVerificationReply));
    child.on('error', reject);
    // 'close': the process has exited and its stdout and stderr are fully read.
    child.on('close', (code, signal) => {
      output = output.replace(/\x1b\[[0-9;]*m/g, '');
      if (reply && 'report' in reply) resolve({ report: reply.report, output });
      else reject(new Error(`verification child process ${reply ? `failed: ${reply.error}` : `exited (${signal ?? code}) without a report`}\n--- its output ---\n${output}`));
    });
    child.send(request);
  });
}
