/** A throwaway PostgreSQL cluster (scripts/throwaway-postgres.mjs). */
export interface ThrowawayPostgres {
  port: number;
  /** A new empty database; its URL. */
  createDatabase(): Promise<string>;
  /** What the server logged so far (its errors: a test can assert there are none). */
  log(): string;
  /** Stops the server (immediate) and removes its directory. */
  stop(): void;
}

export function startThrowawayPostgres(): Promise<ThrowawayPostgres>;
