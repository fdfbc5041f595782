import pg from 'pg';

/** The advisory lock keys of a shared PostgreSQL store (src/store/postgres-store.ts): the wide lock, and the namespace of account locks. */
const WIDE_LOCK = 0x73686d02;
const ACCOUNT_LOCKS = 0x73686d03;

/**
 * A connection holding the locks of a batch (an account's — the wide lock shared, then the
 * account's — or the wide one) until `release`: tests watch what completes while it does.
 */
export async function holdLocks(url: string, lock: { account: string } | 'wide'): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  if (lock === 'wide') await client.query('SELECT pg_advisory_xact_lock($1)', [WIDE_LOCK]);
  else {
    await client.query('SELECT pg_advisory_xact_lock_shared($1)', [WIDE_LOCK]);
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ACCOUNT_LOCKS, lock.account]);
  }
  return {
    async release() {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

/** How many sessions wait on an advisory lock now. */
export async function waitingOnLocks(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}
