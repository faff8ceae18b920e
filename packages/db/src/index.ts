export * as schema from './schema/index.js';
export * from './schema/index.js';
export { createDb, type Db, type DbConfig, type DbHandle, type QueryResultHKT } from './client.js';
export { migrate, migrationsFolder } from './migrate.js';
export * from './credentials.js';
