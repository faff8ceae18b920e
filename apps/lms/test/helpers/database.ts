/**
 * The PostgreSQL server the tests create their databases on (TEST_DATABASE_URL), given to
 * createTestDb() of @lms/db/testing; unset, each test gets an embedded database. The suite runs
 * twice (PGlite, then PostgreSQL): tests that need a second connection look at this.
 */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

/** The machine's PostgreSQL, for tests that need a server whatever TEST_DATABASE_URL says. */
export const postgresUrl = testDatabaseUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres';
