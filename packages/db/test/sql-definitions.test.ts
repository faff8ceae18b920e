import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import t from 'tap';
import type { Db } from '../src/client.js';
import { createTestDb } from '../src/testing.js';
import { testDatabaseUrl } from './helpers.js';

// packages/db/sql holds the trigger functions and triggers as the migrations leave them (0003
// replaced five of 0002's functions). Nothing applies those files; this test keeps them true:
// it reads every function and trigger of the migrated database, drops them, loads the files in
// their place and reads them again. The server renders both sides, so only the bodies' text can
// differ, and only in white space.

const sqlFolder = fileURLToPath(new URL('../sql', import.meta.url));

type Definitions = Map<string, string>;

const normalise = (definition: string) => definition.replace(/\s+/g, ' ').trim();

/** Functions of the public schema (not an extension's, e.g. pg_trgm's) and user triggers, by name. */
async function definitions(db: Db): Promise<{ functions: Definitions; triggers: Definitions }> {
  const functions = await db.execute<{ name: string; def: string }>(sql`
    select p.oid::regprocedure::text as name, pg_get_functiondef(p.oid) as def
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public'
      and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')`);
  const triggers = await db.execute<{ name: string; def: string }>(sql`
    select tgname as name, pg_get_triggerdef(oid) as def from pg_trigger where not tgisinternal`);
  const byName = (rows: { name: string; def: string }[]) => new Map(rows.map((r) => [r.name, normalise(r.def)]));
  return { functions: byName(functions.rows), triggers: byName(triggers.rows) };
}

/**
 * The statements of a SQL file: split at top-level semicolons, outside $$ bodies, with the
 * comments outside bodies dropped (a comment inside a body is part of the function).
 */
function statements(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let inBody = false;
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith('$$', i)) {
      inBody = !inBody;
      current += '$$';
      i += 1;
    } else if (!inBody && text.startsWith('--', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end - 1;
    } else if (!inBody && text[i] === ';') {
      if (current.trim()) out.push(current.trim());
      current = '';
    } else {
      current += text[i];
    }
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

t.test('statements() splits outside bodies and drops comments outside them', async (t) => {
  t.same(statements('-- a; b\nCREATE FUNCTION f() AS $$ x; -- y;\n$$;\nSELECT 1; -- z\n'), [
    'CREATE FUNCTION f() AS $$ x; -- y;\n$$',
    'SELECT 1',
  ]);
});

t.test('packages/db/sql defines every trigger function and trigger as the migrations leave them', async (t) => {
  const h = await createTestDb(testDatabaseUrl);
  t.teardown(() => h.destroy());
  const migrated = await definitions(h.db);
  t.ok(migrated.functions.size >= 10 && migrated.triggers.size >= 10, 'the migrated database has the counter functions and triggers');

  const files = (await readdir(sqlFolder)).filter((f) => f.endsWith('.sql')).sort();
  for (const [name] of migrated.functions) await h.db.execute(sql.raw(`drop function ${name} cascade`));
  const left = await definitions(h.db);
  t.equal(left.functions.size + left.triggers.size, 0, 'dropping the functions removed every trigger too');
  for (const file of files) {
    for (const statement of statements(await readFile(`${sqlFolder}/${file}`, 'utf8'))) {
      await h.db.execute(sql.raw(statement));
    }
  }
  const fromFiles = await definitions(h.db);

  for (const kind of ['functions', 'triggers'] as const) {
    t.same([...fromFiles[kind].keys()].sort(), [...migrated[kind].keys()].sort(), `the files define the same ${kind}`);
    for (const [name, def] of migrated[kind]) {
      t.equal(fromFiles[kind].get(name), def, `${name} is as migrated`);
    }
  }
});
