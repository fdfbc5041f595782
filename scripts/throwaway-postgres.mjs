import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

// A throwaway PostgreSQL cluster, for the shared-store tests (test/support/postgres.ts) and
// `npm run bench -- --store postgres`. Plain JavaScript so the bench can load it without a build.
/**
 * A throwaway PostgreSQL cluster for tests: initdb into a temp directory, started on a free
 * port on 127.0.0.1, stopped and deleted afterwards. PostgreSQL refuses to run as root, so as
 * root the server runs as the `postgres` user (TOOLCHAIN.md). If it cannot start, this throws
 * with PostgreSQL's own output: the tests that need it fail and say why, nothing is skipped.
 *
 * @example
 * const cluster = await startThrowawayPostgres();
 * const url = await cluster.createDatabase(); // postgres://postgres@127.0.0.1:PORT/shipmock_1
 * cluster.stop();
 */
/**
 * @typedef {object} ThrowawayPostgres
 * @property {number} port
 * @property {() => Promise<string>} createDatabase A new empty database; its URL.
 * @property {() => void} stop Stops the server (immediate) and removes its directory.
 * @property {() => string} log What the server logged so far (its errors: a test can assert there are none).
 */

/** The directory of initdb/pg_ctl: $PG_BIN, else the newest /usr/lib/postgresql/<v>/bin, else PATH. */
function binDir() {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(root, versions[0], 'bin');
  }
  return '';
}

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL tool, as the postgres user when we are root; throws with its output. */
/** @param {string} tool @param {string[]} args */
function run(tool, args) {
  const bin = binDir();
  const command = bin ? join(bin, tool) : tool;
  try {
    if (isRoot()) {
      const quoted = [command, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
      execFileSync('su', ['postgres', '-s', '/bin/bash', '-c', quoted], { stdio: 'pipe', timeout: 60_000 });
    } else {
      execFileSync(command, args, { stdio: 'pipe', timeout: 60_000 });
    }
  } catch (error) {
    const { stdout, stderr, message } = /** @type {{ stdout?: Buffer; stderr?: Buffer; message: string }} */ (error);
    throw new Error(`PostgreSQL could not be started for the shared-store tests (${tool} failed: ${message})\n${stdout ?? ''}${stderr ?? ''}\nInstall PostgreSQL (Debian: apt-get install postgresql) or set PG_BIN to its bin directory.`);
  }
}

/** @returns {Promise<ThrowawayPostgres>} */
export async function startThrowawayPostgres() {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-pg-'));
  if (isRoot()) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  // fsync off: a killed shipmock is what the tests crash, never the database server.
  run('pg_ctl', ['-D', data, '-w', '-t', '30', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'start']);
  let databases = 0;
  const base = `postgres://postgres@127.0.0.1:${port}`;
  return {
    port,
    log: () => (existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8') : ''),
    async createDatabase() {
      const name = `shipmock_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `${base}/${name}`;
    },
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function postgresUser() {
  try {
    return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
  } catch {
    throw new Error('PostgreSQL refuses to run as root and there is no `postgres` user: install PostgreSQL (Debian: apt-get install postgresql), which creates it.');
  }
}

// `node scripts/throwaway-postgres.mjs [--port N]`: a PostgreSQL to try a shared sandbox with.
// Prints the URL of an empty database `shipmock`, runs until Ctrl-C, then removes everything.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const cluster = await startThrowawayPostgres();
  const url = await cluster.createDatabase();
  console.log(`PostgreSQL ${cluster.port}: ${url}\n(throwaway: Ctrl-C stops it and deletes its files)`);
  const stop = () => {
    cluster.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  setInterval(() => {}, 1 << 30);
}
