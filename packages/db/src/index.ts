export * as schema from './schema/index.js';
export * from './schema/index.js';
export {
  affectedRows,
  createDb,
  type Db,
  type DbConfig,
  type DbHandle,
  type JobsConnection,
  JOBS_SCHEMA,
  type QueryResultHKT,
  type AvailabilityListener,
  type DbStats,
  type DbErrorCounts,
} from './client.js';
export { GENERIC_PLAN_OPTIONS, genericPlanName, plansGenerically, poolSizes } from './generic-plans.js';
export { isDatabaseUnavailable, isTransactionConflict, sqlStateOf } from './errors.js';
export { inTransaction, TRANSACTION_ATTEMPTS } from './transactions.js';
export { migrate, migrationsFolder } from './migrate.js';
export { type RawRow, type RawSelect, type SnakeCase, typedRows } from './raw.js';
export { DATA_DIR_LOCK_FILE, DataDirLockedError, type DataDirLockOwner } from './data-dir-lock.js';
export * from './credentials.js';
