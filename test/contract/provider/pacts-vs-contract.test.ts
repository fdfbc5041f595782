import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createAjv } from '../../../src/contract/compiled-contract.js';
import { loadContract } from '../../../src/contract/load-contract.js';
import { toViolations } from '../../../src/contract/validators.js';
import { isMessageInteraction, readPactFiles } from '../../../src/verify/pact-files.js';

/**
 * Independent of the verification files of this project (no ordering needed): the pact files
 * the consumer project just wrote must (1) only ask for what contract/openapi.yaml allows, checked by
 * @pactflow/swagger-mock-validator with required response properties on, and (2) be exactly
 * the committed ones, so a change to the consumer tests without regenerated pacts fails CI.
 * Webhook messages, which the validator skips, are checked against the contract's `webhooks`
 * schemas with the mock's own validators.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const pactDir = join(root, 'pacts');
const contract = join(root, 'contract/openapi.yaml');
const validatorBin = join(root, 'node_modules/.bin/swagger-mock-validator');
const pactFiles = readdirSync(pactDir).filter((f) => f.endsWith('.json')).sort();
const run = promisify(execFile);

async function validate(pactPath: string): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await run(validatorBin, [contract, pactPath, '--requiredPropertiesInResponse', 'true'], { cwd: root });
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
  }
}

/**
 * The validator checks interaction by interaction and is single-threaded; a pact split into
 * chunks (same interactions, same metadata) is checked in parallel, one process per core.
 */
function chunks(pactPath: string, dir: string, count: number, edit?: (pact: { interactions: any[] }) => void): string[] {
  const pact = JSON.parse(readFileSync(pactPath, 'utf8'));
  edit?.(pact);
  const size = Math.ceil(pact.interactions.length / count) || 1;
  const out: string[] = [];
  for (let i = 0; i * size < pact.interactions.length || i === 0; i++) {
    const path = join(dir, `${i}-${basename(pactPath)}`);
    writeFileSync(path, JSON.stringify({ ...pact, interactions: pact.interactions.slice(i * size, (i + 1) * size) }));
    out.push(path);
  }
  return out;
}

function committed(file: string): string | undefined {
  try {
    return execFileSync('git', ['show', `HEAD:pacts/${file}`], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 });
  } catch {
    return undefined;
  }
}

const inGit = (() => {
  try {
    execFileSync('git', ['rev-parse', '--verify', 'HEAD'], { cwd: root, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('pact files vs the OpenAPI contract', () => {
  it('has the HTTP and the webhook pact', () => {
    expect(pactFiles).toEqual(['ShippingClient-ShippingPlatformAPI.json', 'ShippingWebhookReceiver-ShippingPlatformAPI.json']);
  });

  it('every pact is compatible with contract/openapi.yaml (required response properties on), and a broken one is caught', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipmock-pact-'));
    const parts = pactFiles.flatMap((f) => chunks(join(pactDir, f), dir, Math.min(4, availableParallelism())));
    // One interaction without a required response property proves the check can fail.
    const brokenDir = mkdtempSync(join(tmpdir(), 'shipmock-broken-pact-'));
    const [broken] = chunks(join(pactDir, 'ShippingClient-ShippingPlatformAPI.json'), brokenDir, 1, (pact) => {
      pact.interactions = pact.interactions.filter((i) => i.description === 'a request for a Company token');
      delete pact.interactions[0].response.body.content.tokenType;
    });

    const [brokenResult, ...results] = await Promise.all([validate(broken), ...parts.map(validate)]);
    results.forEach((result, i) => expect(result.ok, `${parts[i]}:\n${result.output}`).toBe(true));
    expect(brokenResult.ok).toBe(false);
    expect(brokenResult.output).toContain("must have required property 'tokenType'");
  });
});

describe('webhook message pacts vs the contract (the validator skips messages)', () => {
  // The mock's Ajv setup (2020-12, formats, OpenAPI keywords), with the whole document so refs resolve.
  const ajv = createAjv(false);
  ajv.addSchema({ ...loadContract(contract).document, $id: 'contract' });
  const validators = {
    validate(pointer: string, value: unknown) {
      const fn = ajv.getSchema(`contract${pointer}`)!;
      return fn(value) ? [] : toViolations(fn.errors, 'body');
    },
  };
  const messages = readPactFiles([pactDir]).flatMap((p) => p.interactions.filter(isMessageInteraction));
  /** The contract's `webhooks` entry for an envelope: typed booking and usage events, else the generic Event. */
  const schemaOf = (event: { topic?: string; type?: string }) =>
    event.topic === 'SHIPMENT_BOOKING' ? 'ShipmentBookingEvent' : event.type === 'USAGE' ? 'UsageEvent' : 'Event';

  it('has the four webhook messages', () => {
    expect(messages.map((m) => m.description).sort()).toEqual([
      'a CARRIER_STATUS OUTAGE mock event',
      'a PARCEL USAGE billing event',
      'a SHIPMENT_BOOKING CREATED event',
      'a TRACKER UPDATED event',
    ]);
  });

  it.each(messages.map((m) => [m.description, m] as const))('%s is an envelope the contract allows', (_description, message) => {
    const contents = (message as unknown as { contents: { content: { topic?: string; type?: string } }; metadata?: Record<string, unknown> }).contents.content;
    expect(validators.validate(`#/components/schemas/${schemaOf(contents)}`, contents)).toEqual([]);
    expect(validators.validate('#/components/schemas/Event', contents)).toEqual([]);
  });

  it('the check catches an envelope the contract does not allow', () => {
    expect(validators.validate('#/components/schemas/ShipmentBookingEvent', { id: 'x', topic: 'SHIPMENT_BOOKING', type: 'CREATED', createdAt: 'now', payload: {} })).not.toEqual([]);
  });
});

describe.skipIf(!inGit)('pact files are committed as generated (run the consumer tests and commit pacts/)', () => {
  it.each(pactFiles)('%s matches git HEAD', (file) => {
    const head = committed(file);
    expect(head, `pacts/${file} is not committed`).toBeDefined();
    const now = readFileSync(join(pactDir, file), 'utf8');
    expect(now === head, `pacts/${file} differs from the committed copy: the consumer tests changed it; commit the regenerated file`).toBe(true);
  });
});
