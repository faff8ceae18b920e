import { defineConfig } from 'drizzle-kit';

// Only `drizzle-kit generate` is used: it diffs src/schema against the committed snapshots
// offline and needs no database. Migrations are applied by src/migrate.ts.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/schema/index.ts',
  out: './drizzle',
  casing: 'snake_case',
});
