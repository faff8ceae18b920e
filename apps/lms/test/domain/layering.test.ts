import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// CI runs this file once (not again in the PostgreSQL pass): reads the source files' imports, no database.

// The import rules of apps/lms/src (README, "What it owns"): catalog and learning never import
// each other (what both read lives in domain/rules/), rules import neither, the domain never
// imports plugins, routes or pages, and pages never import routes. Read from the source files, so
// a new import that breaks a rule fails here with the file and the line.

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative import of the files under `from`, as [file:line, the imported path relative to src]. */
function importsOf(from: string): [string, string][] {
  const out: [string, string][] = [];
  for (const file of filesUnder(path.join(src, from))) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(/(?:from\s+|import\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
          const target = path.relative(src, path.resolve(path.dirname(file), m[1]!));
          out.push([`${path.relative(src, file)}:${i + 1}`, target]);
        }
      });
  }
  return out;
}

const rules: [string, RegExp, string][] = [
  ['domain/catalog', /^domain\/learning\//, 'catalog imports learning'],
  ['domain/learning', /^domain\/catalog\//, 'learning imports catalog'],
  ['domain/rules', /^domain\/(catalog|learning|authoring)\//, 'a rule imports a reader of it'],
  ['domain', /^(plugins|routes|pages)\//, 'the domain imports HTTP code'],
  ['pages', /^routes\//, 'a page imports a route module'],
];

for (const [from, forbidden, what] of rules) {
  t.test(`${from}: no import where ${what}`, async (t) => {
    const all = importsOf(from);
    t.ok(all.length > 0, `${from} has imports to check`);
    t.same(
      all.filter(([, target]) => forbidden.test(target)).map(([at, target]) => `${at} → ${target}`),
      [],
    );
  });
}

t.test('the check sees a forbidden import when there is one', async (t) => {
  // course-detail.ts imports domain/rules (allowed); the same line pointing at learning is caught.
  const line = "import { loadCourseProgress } from '../learning/access.js';";
  const target = path.relative(src, path.resolve(path.join(src, 'domain/catalog'), line.match(/'([^']+)'/)![1]!));
  t.match(target, rules[0]![1]);
});

// Pages read and write through domain/ (README, "What it owns"): no file under pages/ imports
// drizzle-orm for a value (`import type { Db } from '@lms/db'` is a type and is fine) or runs SQL
// itself, by `.execute(` or a `sql` template.
const SQL_IN_PAGES: [RegExp, string][] = [
  [/^\s*import\s+(?!type\b)[^;]*?\bfrom\s+['"]drizzle-orm(?:\/[^'"]*)?['"]/, 'imports drizzle-orm'],
  [/\.execute\s*\(/, 'runs SQL (.execute)'],
  [/\bsql\s*`/, 'writes a sql template'],
];

/** Each line of the given files that reads the database itself, as `file:line what`. */
function sqlIn(files: [string, string][]): string[] {
  return files.flatMap(([name, text]) => {
    // An import spread over several lines is read as one, on the line where it starts (the lines after keep their numbers).
    const oneLine = (whole: string) => whole.replace(/\n/g, ' ') + '\n'.repeat(whole.split('\n').length - 1);
    const lines = text.replace(/^import\s[^;]*;/gm, oneLine).split('\n');
    return lines.flatMap((line, i) => SQL_IN_PAGES.filter(([pattern]) => pattern.test(line)).map(([, what]) => `${name}:${i + 1} ${what}`));
  });
}

t.test('pages: no drizzle-orm import and no SQL of their own', async (t) => {
  const files = filesUnder(path.join(src, 'pages')).map((f): [string, string] => [path.relative(src, f), readFileSync(f, 'utf8')]);
  t.ok(files.length > 10, 'pages has files to check');
  t.same(sqlIn(files), []);
});

t.test('the check sees a page that imports drizzle-orm or runs SQL', async (t) => {
  const found = sqlIn([
    ['pages/a.ts', "import { sql } from 'drizzle-orm';"],
    ['pages/b.ts', "import {\n  eq,\n  sql,\n} from 'drizzle-orm';"],
    ['pages/c.ts', "import {\n  a,\n} from './x.js';\nconst { rows } = await app.db.execute(query);"],
    ['pages/d.ts', 'const where = sql`u.id = 1`;'],
    ['pages/e.ts', "import type { SQL } from 'drizzle-orm';\nimport type { Db } from '@lms/db';"],
  ]);
  t.same(found, [
    'pages/a.ts:1 imports drizzle-orm',
    'pages/b.ts:1 imports drizzle-orm',
    'pages/c.ts:4 runs SQL (.execute)',
    'pages/d.ts:1 writes a sql template',
  ]);
});
