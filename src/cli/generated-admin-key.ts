import { randomBytes } from 'node:crypto';
import cluster from 'node:cluster';

/** The --admin-key value that asks for a key generated at start (too short to be a key itself). */
export const GENERATE_ADMIN_KEY = 'auto';

// How node:cluster workers get the key their primary generated: they all must accept the same one.
const INHERITED_KEY_ENV = 'SHIPMOCK_WORKER_ADMIN_KEY';

/**
 * `--admin-key auto` (the container image's default): a random key for this run, printed once in
 * the start banner, so a control plane reachable from outside a container is never open. Workers
 * of `--workers N` take their primary's key. Any other value is returned as it is.
 *
 * @example resolveAdminKey('auto') // { adminKey: 'k7Q…', generated: true }
 */
export function resolveAdminKey(value: string | undefined): { adminKey: string | undefined; generated: boolean } {
  if (value !== GENERATE_ADMIN_KEY) return { adminKey: value, generated: false };
  let key = cluster.isWorker ? process.env[INHERITED_KEY_ENV] : undefined;
  if (!key) {
    key = randomBytes(18).toString('base64url');
    // cluster.fork() passes the primary's environment on to its workers.
    process.env[INHERITED_KEY_ENV] = key;
  }
  return { adminKey: key, generated: true };
}
