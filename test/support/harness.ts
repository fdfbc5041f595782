import request from 'supertest';
import type { Express } from 'express';
import { createApp } from '../../src/app/create-app.js';
import { createRuntime, type MockRuntime } from '../../src/app/runtime.js';
import type { MockOptions } from '../../src/config/options.js';
import { createLogger } from '../../src/logging/logger.js';
import type { Services } from '../../src/resources/index.js';

/**
 * An in-process mock for API tests: the real app (response validation on, 'error' mode, so a
 * handler answering outside the contract fails the test with a 500), a manual clock, seed 1.
 */
export interface Harness {
  runtime: MockRuntime;
  app: Express;
  services: Services;
  http: ReturnType<typeof request>;
  /** Basic header of the default company's client credentials. */
  basic: string;
  companyId: string;
}

const silent = createLogger({ level: 'silent', format: 'json' });

export function createHarness(options: MockOptions = {}): Harness {
  const runtime = createRuntime({ seed: 1, clock: { mode: 'manual' }, responseValidation: 'error', ...options }, silent);
  const { app, services } = createApp(runtime);
  const company = runtime.credentials.defaultCompany;
  return {
    runtime,
    app,
    services,
    http: request(app),
    basic: `Basic ${Buffer.from(`${company.clientId}:${company.clientSecret}`).toString('base64')}`,
    companyId: company.companyId,
  };
}
