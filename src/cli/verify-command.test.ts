import { describe, expect, it } from 'vitest';
import { brokerVerifierOptions } from '../verify/run-verification.js';
import { readVerifyOptions } from './verify-command.js';

const required = ['--base-url', 'https://api.example.com', '--company-id', 'c-1', '--client-id', 'id', '--client-secret', 'secret'];

function options(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const read = readVerifyOptions(argv, env);
  if ('help' in read) throw new Error('unexpected --help');
  return read.options;
}

describe('shipmock verify options', () => {
  it('reads the target and credentials from flags', () => {
    const o = options(required);
    expect(o.baseUrl).toBe('https://api.example.com');
    expect(o.access).toEqual({ companyId: 'c-1', clientId: 'id', clientSecret: 'secret' });
    expect(o.control.kind).toBe('real');
    expect([...o.control.capabilities]).toEqual([]);
  });

  it('falls back to SHIPMOCK_VERIFY_* and PACT_BROKER_* variables; flags win', () => {
    const env = {
      SHIPMOCK_VERIFY_BASE_URL: 'http://127.0.0.1:4010',
      SHIPMOCK_VERIFY_COMPANY_ID: 'env-company',
      SHIPMOCK_VERIFY_CLIENT_ID: 'env-id',
      SHIPMOCK_VERIFY_CLIENT_SECRET: 'env-secret',
      PACT_BROKER_BASE_URL: 'https://broker.example.com',
      PACT_BROKER_TOKEN: 'env-token',
    };
    const o = options(['--client-id', 'flag-id'], env);
    expect(o.baseUrl).toBe('http://127.0.0.1:4010');
    expect(o.access).toEqual({ companyId: 'env-company', clientId: 'flag-id', clientSecret: 'env-secret' });
    expect(o.broker).toMatchObject({ brokerUrl: 'https://broker.example.com', brokerToken: 'env-token' });
    // A local target can reach the verifier's webhook inbox.
    expect([...o.control.capabilities]).toEqual(['webhooks']);
  });

  it('names every missing setting and refuses a base URL that is not a URL', () => {
    expect(() => readVerifyOptions(['--base-url', 'https://x.example'], {})).toThrow('needs --company-id, --client-id, --client-secret');
    expect(() => readVerifyOptions([...required.slice(2), '--base-url', 'not a url'], {})).toThrow('--base-url is not a URL');
    expect(() => readVerifyOptions([...required, '--brokr-url', 'x'], {})).toThrow('unknown flag --brokr-url');
  });

  it('--shipmock adds the control API (clock, rate limit) so no state is skipped', () => {
    const o = options([...required, '--shipmock', '--admin-key', 'k']);
    expect(o.control.kind).toBe('shipmock');
    expect([...o.control.capabilities].sort()).toEqual(['clock', 'rate-limit', 'webhooks']);
  });

  it('passes webhook, pact and log settings on', () => {
    const o = options([...required, '--pact-dir', 'a', '--pact-dir', 'b', '--webhook-port', '9000', '--webhook-public-url', 'https://tunnel.example.com/hook', '--log-level', 'debug']);
    expect(o.pacts).toEqual(['a', 'b']);
    expect(o.webhook).toEqual({ port: 9000, publicUrl: 'https://tunnel.example.com/hook' });
    expect([...o.control.capabilities]).toEqual(['webhooks']);
    expect(o.logLevel).toBe('debug');
  });
});

describe('broker options passed to the Pact Verifier', () => {
  it('maps the broker flags onto Verifier options', () => {
    const o = options([...required, '--broker-url', 'https://broker.example.com', '--broker-token', 't0k', '--publish', '--provider-version', '1.4.2+abc123', '--provider-branch', 'main']);
    expect(brokerVerifierOptions('ShippingPlatformAPI', o.broker!)).toEqual({
      pactBrokerUrl: 'https://broker.example.com',
      pactBrokerToken: 't0k',
      provider: 'ShippingPlatformAPI',
      enablePending: true,
      consumerVersionSelectors: [{ mainBranch: true }, { deployedOrReleased: true }],
      providerVersion: '1.4.2+abc123',
      providerVersionBranch: 'main',
      publishVerificationResult: true,
    });
  });

  it('adds nothing without broker flags (pacts come from --pact-dir)', () => {
    expect(brokerVerifierOptions('ShippingPlatformAPI', options(required).broker!)).toEqual({});
  });

  it('refuses --publish without a provider version or a broker', () => {
    expect(() => brokerVerifierOptions('P', { brokerUrl: 'https://b', publish: true })).toThrow('--publish needs --provider-version');
    expect(() => brokerVerifierOptions('P', { publish: true, providerVersion: '1' })).toThrow('--publish needs --broker-url');
  });
});
