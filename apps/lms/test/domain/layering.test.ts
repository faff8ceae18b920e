import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

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
