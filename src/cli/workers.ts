import cluster from 'node:cluster';

/** Environment variable a worker learns its number (1-based) from. */
export const WORKER_ENV = 'SHIPMOCK_WORKER';

/** The worker's number when this process is one of `--workers N` (1-based), else undefined. */
export function workerNumber(): number | undefined {
  const value = Number(process.env[WORKER_ENV]);
  return cluster.isWorker && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Checks `--workers N` before anything starts. Workers must share one store: a PostgreSQL
 * database or a SQLite file in the shared layout (which the workers create); the in-memory store
 * is one process's.
 * @example checkWorkers(4, 'postgres://shipmock@127.0.0.1/shipmock') // fine
 */
export function checkWorkers(workers: number, data: string | undefined): void {
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new Error(`--workers must be a whole number from 1 to 64, got ${workers}`);
  if (workers === 1) return;
  if (!data) {
    throw new Error(`--workers ${workers} needs a store the workers share: add --data FILE (SQLite, this host) or --data postgres://user@host:port/db (the in-memory store lives in one process, so each worker would be a mock of its own)`);
  }
}

/**
 * The primary of `--workers N` (node:cluster): forks N workers that each run `shipmock serve`
 * with the same flags on one shared port (the operating system spreads connections over them)
 * and one shared store. A worker that dies is started again; one that cannot start (a bad data
 * file) stops them all with exit code 1; SIGINT/SIGTERM stop them all.
 * Only worker 1 prints the start banner, so the output reads as one mock's.
 */
export function runPrimary(workers: number, log: (line: string) => void): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    let exitCode = 0;
    const numbers = new Map<number, number>();
    const listening = new Set<number>();
    const fork = (n: number) => {
      const worker = cluster.fork({ [WORKER_ENV]: String(n) });
      numbers.set(worker.id, n);
    };
    for (let n = 1; n <= workers; n++) fork(n);
    cluster.on('listening', (worker) => listening.add(worker.id));
    cluster.on('exit', (worker, code, signal) => {
      const n = numbers.get(worker.id);
      numbers.delete(worker.id);
      const started = listening.delete(worker.id);
      if (stopping) {
        if (numbers.size === 0) resolve(exitCode);
        return;
      }
      if (n === undefined) return;
      if (!started) {
        // It could not start (its error is printed above): starting it again would fail again.
        log(`worker ${n} could not start (${signal ?? `exit ${code}`}); stopping`);
        exitCode = 1;
        stop();
        return;
      }
      log(`worker ${n} stopped (${signal ?? `exit ${code}`}); starting it again`);
      fork(n);
    });
    const stop = () => {
      if (stopping) return;
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      if (numbers.size === 0) resolve(exitCode);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
