// The throwaway PostgreSQL cluster of the shared-store tests lives in scripts/ (plain JavaScript),
// so that `npm run bench -- --store postgres` starts the same one.
export { startThrowawayPostgres, type ThrowawayPostgres } from '../../scripts/throwaway-postgres.mjs';
