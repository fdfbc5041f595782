// The throwaway PostgreSQL cluster of the shared-store tests lives in scripts/ (plain JavaScript),
// so that `npm run bench -- --store postgres` starts the same one.
import { afterAll, beforeAll } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../scripts/throwaway-postgres.mjs';

export { startThrowawayPostgres, type ThrowawayPostgres };

/**
 * One throwaway cluster for a test file: started before its first test (`use` receives it),
 * stopped after its last, once every process in `running` (the mocks the tests started) is killed.
 * @example let cluster: ThrowawayPostgres; const running: ChildMock[] = []; throwawayPostgresForFile(running, (c) => (cluster = c));
 */
export function throwawayPostgresForFile(running: { kill(): Promise<unknown> }[], use: (cluster: ThrowawayPostgres) => void): void {
  let cluster: ThrowawayPostgres | undefined;
  beforeAll(async () => {
    cluster = await startThrowawayPostgres();
    use(cluster);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(running.map((mock) => mock.kill().catch(() => {})));
    cluster?.stop();
  });
}
