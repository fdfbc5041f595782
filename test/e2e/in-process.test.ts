import { afterAll, beforeAll, describe } from 'vitest';
import { startMock, type RunningMock } from '../../src/index.js';
import { defineConformanceSuite } from './conformance-suite.js';

describe('conformance: startMock() in-process', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ port: 0, seed: 1, logLevel: 'silent' });
  });
  afterAll(() => mock.close());
  defineConformanceSuite(() => ({ url: mock.url, ...mock.credentials }));
});
