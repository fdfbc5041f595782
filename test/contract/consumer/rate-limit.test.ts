import { describe, expect, it } from 'vitest';
import { M, accountAuth, consumerClient, createPact, problemBody, problemContentType } from './support/pact.js';

const pact = createPact();

describe('rate limiting', () => {
  it('gets 429 with Retry-After, waits that long once, then hands the 429 back', async () => {
    await pact
      .addInteraction()
      .given('the rate limit of the account is exhausted')
      .uponReceiving('a request while the rate limit is exhausted')
      .withRequest('GET', '/v1/addresses', (b) => b.headers(accountAuth))
      .willRespondWith(429, (b) =>
        b
          .headers({
            'Content-Type': problemContentType,
            'Retry-After': M.regex(/^\d+$/, '30'),
            'X-RateLimit-Limit': M.regex(/^\d+$/, '100'),
            'X-RateLimit-Remaining': '0',
            'X-RateLimit-Reset': M.regex(/^\d+$/, '30'),
          })
          .jsonBody(problemBody(429)),
      )
      .executeTest(async (server) => {
        const waits: number[] = [];
        const client = consumerClient(server.url, { maxRetries: 1, sleep: async (ms) => void waits.push(ms) });
        const { error, response } = await client.account.GET('/v1/addresses');
        expect(waits).toEqual([30_000]);
        expect(response.status).toBe(429);
        expect(response.headers.get('retry-after')).toBe('30');
        expect(error?.status).toBe(429);
      });
  });
});
