import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeys, chapterCompletions, courses, enrollments, hashToken, partnerKeys, partners, sessions, users } from '@lms/db';
import { createTestDb, type TestDb } from '@lms/db/testing';
import { eq, sql } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, importSPKI } from 'jose';
import t from 'tap';
import { commandGroups, runCli } from '../../src/cli/run.js';
import { testConfig } from '../../src/config.js';
import { findApiKeyOwner } from '../../src/domain/api-keys.js';
import { createSession } from '../../src/domain/sessions.js';

interface CliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs the CLI's main function against the test database: on PostgreSQL through DATABASE_URL,
 * exactly as an operator would; on PGlite (in memory) through the shared test handle.
 */
function cliFor(db: TestDb, scratch: string) {
  return async (...argv: string[]): Promise<CliRun> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      io: { out: (l) => out.push(l), err: (l) => err.push(l), progress: (s) => err.push(s), isTty: false },
      config: testConfig(db.url ? { DATABASE_URL: db.url } : {}),
      cwd: scratch,
      ...(db.url ? {} : { db }),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
}

t.test('admin CLI', async (t) => {
  const db = await createTestDb();
  const scratch = await mkdtemp(join(tmpdir(), 'lms-cli-'));
  t.teardown(async () => {
    await db.destroy();
    await rm(scratch, { recursive: true, force: true });
  });
  const cli = cliFor(db, scratch);

  t.test('help and usage errors', async (t) => {
    const main = await cli('--help');
    t.equal(main.code, 0);
    for (const g of commandGroups) for (const s of g.subcommands) t.match(main.out, `${g.name} ${s.name}`);
    // pnpm run lms-admin -- --help passes the "--" through.
    t.equal((await cli('--', '--help')).code, 0);

    const none = await cli();
    t.equal(none.code, 2, 'no command is a usage error');
    t.match(none.err, 'Usage: lms-admin <command>');
    const unknown = await cli('frobnicate');
    t.equal(unknown.code, 2);
    t.match(unknown.err, 'unknown command "frobnicate"');
    t.equal((await cli('partner', 'fly')).code, 2);
    t.equal((await cli('partner')).code, 2);
    t.equal((await cli('partner', '--help')).code, 0);

    for (const g of commandGroups) {
      for (const s of g.subcommands) {
        const r = await cli(g.name, s.name, '--help');
        t.equal(r.code, 0, `${g.name} ${s.name} --help exits 0`);
        t.match(r.out, `Usage: lms-admin ${s.usage}`);
      }
    }
    const badOption = await cli('user', 'add', '--emial', 'a@b.c');
    t.equal(badOption.code, 2);
    t.match(badOption.err, "Unknown option '--emial'");
  });

  t.test('db migrate is repeatable', async (t) => {
    const r = await cli('db', 'migrate');
    t.equal(r.code, 0, r.err);
    t.match(r.out, 'Migrations applied');
  });

  let demoKey = '';
  t.test('seed demo prints the demo key once and adds nothing the second time', async (t) => {
    const first = await cli('seed', 'demo');
    t.equal(first.code, 0, first.err);
    t.match(first.out, /^lms_key_[A-Za-z0-9_-]{43}$/);
    demoKey = first.out;
    const owner = await findApiKeyOwner(db.db, hashToken(demoKey));
    const [teacher] = await db.db.select().from(users).where(eq(users.email, 'teacher@demo.lms'));
    t.same(owner && { userId: owner.userId, role: owner.role }, { userId: teacher!.id, role: 'teacher' });

    const second = await cli('seed', 'demo');
    t.equal(second.code, 0);
    t.equal(second.out, '', 'no key the second time');
    t.match(second.err, 'already seeded');
  });

  t.test('partner add / list / remove', async (t) => {
    const jwks = await cli('partner', 'add', '--iss', 'Univ.Example.ac.id', '--jwks-url', 'https://univ.example.ac.id/jwks.json', '--name', 'Universitas Contoh');
    t.equal(jwks.code, 0, jwks.err);
    const [row] = await db.db.select().from(partners).where(eq(partners.issuer, 'univ.example.ac.id'));
    t.match(row, { name: 'Universitas Contoh', jwksUrl: 'https://univ.example.ac.id/jwks.json', isActive: true });

    const again = await cli('partner', 'add', '--iss', 'univ.example.ac.id', '--jwks-url', 'https://univ.example.ac.id/v2/jwks.json');
    t.equal(again.code, 0);
    t.match(again.out, 'updated');
    const [updated] = await db.db.select().from(partners).where(eq(partners.issuer, 'univ.example.ac.id'));
    t.equal(updated!.jwksUrl, 'https://univ.example.ac.id/v2/jwks.json');
    t.equal(updated!.name, 'Universitas Contoh', 'name kept when not given');

    // PEM: the default kid is the RFC 7638 thumbprint; the path is relative to where the command was typed.
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await writeFile(join(scratch, 'partner.pem'), pem);
    const thumbprint = await calculateJwkThumbprint(await exportJWK(await importSPKI(pem, 'RS256', { extractable: true })));
    const pemAdd = await cli('partner', 'add', '--iss', 'asosiasi.example.or.id', '--public-key', 'partner.pem');
    t.equal(pemAdd.code, 0, pemAdd.err);
    t.match(pemAdd.out, `kid=${thumbprint}`);
    const keys = await db.db
      .select({ kid: partnerKeys.kid, pem: partnerKeys.publicKeyPem, jwksUrl: partners.jwksUrl })
      .from(partnerKeys)
      .innerJoin(partners, eq(partners.id, partnerKeys.partnerId))
      .where(eq(partners.issuer, 'asosiasi.example.or.id'));
    t.same(keys, [{ kid: thumbprint, pem, jwksUrl: null }]);

    // Rotation: a second key with an explicit kid; the same kid twice is refused.
    const second = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await writeFile(join(scratch, 'next.pem'), second);
    t.equal((await cli('partner', 'add', '--iss', 'asosiasi.example.or.id', '--public-key', 'next.pem', '--kid', 'key-2026')).code, 0);
    const dupKid = await cli('partner', 'add', '--iss', 'asosiasi.example.or.id', '--public-key', 'next.pem', '--kid', 'key-2026');
    t.equal(dupKid.code, 1);
    t.match(dupKid.err, 'already has a key with kid "key-2026"');

    // Refusals.
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await writeFile(join(scratch, 'ec.pem'), ec);
    const ecAdd = await cli('partner', 'add', '--iss', 'ec.example.com', '--public-key', 'ec.pem');
    t.equal(ecAdd.code, 1);
    t.match(ecAdd.err, 'not an RSA public key');
    // A 1024-bit RSA key: factorable with public effort, so refused with its size named.
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await writeFile(join(scratch, 'small.pem'), small);
    const smallAdd = await cli('partner', 'add', '--iss', 'small.example.com', '--public-key', 'small.pem');
    t.equal(smallAdd.code, 1, 'a 1024-bit key is refused');
    t.match(smallAdd.err, 'is a 1024-bit RSA key: partner keys must have at least 2048 bits');
    t.equal((await db.db.select().from(partners).where(eq(partners.issuer, 'small.example.com'))).length, 0, 'nothing stored for a short key');
    await writeFile(join(scratch, 'private.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const priv = await cli('partner', 'add', '--iss', 'priv.example.com', '--public-key', 'private.pem');
    t.equal(priv.code, 1);
    t.match(priv.err, 'PRIVATE key');
    const missing = await cli('partner', 'add', '--iss', 'missing.example.com', '--public-key', 'nope.pem');
    t.equal(missing.code, 1);
    t.match(missing.err, 'cannot read the public key file');
    t.equal((await cli('partner', 'add', '--iss', 'x.example.com', '--jwks-url', 'https://x/j', '--public-key', 'partner.pem')).code, 2);
    t.equal((await cli('partner', 'add', '--iss', 'x.example.com')).code, 2);
    t.equal((await cli('partner', 'add', '--iss', 'not a domain', '--jwks-url', 'https://x/j')).code, 2);
    t.equal((await cli('partner', 'add', '--iss', 'x.example.com', '--jwks-url', 'ftp://x/j')).code, 2);
    t.equal((await db.db.select().from(partners).where(eq(partners.issuer, 'ec.example.com'))).length, 0, 'nothing stored on refusal');

    const list = await cli('partner', 'list');
    t.equal(list.code, 0);
    t.match(list.out, /univ\.example\.ac\.id\s+Universitas Contoh\s+yes\s+jwks https:\/\/univ\.example\.ac\.id\/v2\/jwks\.json/);
    t.match(list.out, `kid ${thumbprint}, kid key-2026`);
    t.match(list.out, 'demo-partner.local', 'the demo partner from seed demo');

    t.equal((await cli('partner', 'remove', '--iss', 'asosiasi.example.or.id')).code, 0);
    t.equal((await db.db.select().from(partnerKeys)).length, 0, 'its keys went with it');
    const gone = await cli('partner', 'remove', '--iss', 'asosiasi.example.or.id');
    t.equal(gone.code, 1);
    t.match(gone.err, 'no partner with issuer asosiasi.example.or.id');
  });

  t.test('user add / deactivate', async (t) => {
    const add = await cli('user', 'add', '--email', 'Guru.Baru@Example.COM', '--name', 'Guru Baru', '--role', 'teacher', '--institution', '1');
    t.equal(add.code, 0, add.err);
    const [row] = await db.db.select().from(users).where(eq(users.id, add.out));
    t.match(row, { email: 'guru.baru@example.com', name: 'Guru Baru', role: 'teacher', institutionId: 1, isActive: true });

    const dup = await cli('user', 'add', '--email', 'guru.baru@example.com', '--name', 'X', '--role', 'teacher');
    t.equal(dup.code, 1);
    t.match(dup.err, 'already exists');
    const badRole = await cli('user', 'add', '--email', 'a@example.com', '--name', 'A', '--role', 'owner');
    t.equal(badRole.code, 2);
    t.match(badRole.err, '--role must be one of student, teacher, admin, super_admin');
    const noInst = await cli('user', 'add', '--email', 'b@example.com', '--name', 'B', '--role', 'admin', '--institution', '999');
    t.equal(noInst.code, 1);
    t.match(noInst.err, 'no institution with id 999');
    t.equal((await cli('user', 'add', '--email', 'c@example.com', '--role', 'admin')).code, 2, '--name is required');

    await createSession(db.db, add.out, new Date(), 3_600_000);
    const off = await cli('user', 'deactivate', '--email', 'GURU.BARU@example.com');
    t.equal(off.code, 0, off.err);
    t.match(off.out, '1 session ended');
    const [after] = await db.db.select().from(users).where(eq(users.id, add.out));
    t.equal(after!.isActive, false);
    t.equal((await db.db.select().from(sessions).where(eq(sessions.userId, add.out))).length, 0);
    const unknown = await cli('user', 'deactivate', '--email', 'nobody@example.com');
    t.equal(unknown.code, 1);
    t.match(unknown.err, 'no user with e-mail nobody@example.com');
  });

  t.test('api-key create / list / revoke', async (t) => {
    const create = await cli('api-key', 'create', '--email', 'teacher2@demo.lms', '--name', 'Integrasi Web');
    t.equal(create.code, 0, create.err);
    t.match(create.out, /^lms_key_[A-Za-z0-9_-]{43}$/);
    const owner = await findApiKeyOwner(db.db, hashToken(create.out));
    t.equal(owner?.role, 'teacher');

    const student = await cli('api-key', 'create', '--email', 'admin@demo.lms');
    t.equal(student.code, 1, 'non-teachers are refused');
    t.match(student.err, 'admin@demo.lms is a admin: API keys are for teachers');
    t.equal((await cli('api-key', 'create', '--email', 'guru.baru@example.com')).code, 1, 'deactivated teacher refused');
    t.equal((await cli('api-key', 'create', '--email', 'ghost@example.com')).code, 1);

    const prefix = create.out.slice(0, 'lms_key_'.length + 6);
    const list = await cli('api-key', 'list');
    t.equal(list.code, 0);
    t.match(list.out, new RegExp(`${prefix}\\s+teacher2@demo\\.lms\\s+Integrasi Web\\s+.*active`));
    t.notMatch(list.out, create.out.slice(prefix.length), 'never the key itself');
    const only = await cli('api-key', 'list', '--email', 'teacher@demo.lms');
    t.notMatch(only.out, 'teacher2@demo.lms');
    t.match(only.out, 'teacher@demo.lms');

    const revoke = await cli('api-key', 'revoke', prefix);
    t.equal(revoke.code, 0, revoke.err);
    t.equal(await findApiKeyOwner(db.db, hashToken(create.out)), null, 'revoked key no longer authenticates');
    t.match((await cli('api-key', 'list')).out, new RegExp(`${prefix}.*revoked`));
    const twice = await cli('api-key', 'revoke', prefix);
    t.equal(twice.code, 1);
    t.match(twice.err, `no active API key with prefix ${prefix}`);
    t.equal((await cli('api-key', 'revoke')).code, 2);
    t.equal((await cli('api-key', 'revoke', 'abc')).code, 2);
    t.not(await findApiKeyOwner(db.db, hashToken(demoKey)), null, 'other keys untouched');
  });

  t.test('seed synthetic', async (t) => {
    const before = await db.db.execute<{ n: number }>(sql`select count(*)::int as n from ${enrollments}`);
    const r = await cli('seed', 'synthetic', '--courses', '20', '--students', '50', '--enrollments', '300', '--completions', '1_500');
    t.equal(r.code, 0, r.err);
    t.match(r.out, /20 courses, \d+ chapters, 50 students, 300 enrollments, \d+ completions/);
    t.match(r.err, /completions\s+\[#+\]\s+100%/, 'progress on stderr');
    const tag = /tag (\w+)/.exec(r.out)![1]!;
    const after = await db.db.execute<{ n: number }>(sql`select count(*)::int as n from ${enrollments}`);
    t.equal(after.rows[0]!.n - before.rows[0]!.n, 300);
    const completions = Number(/(\d+) completions/.exec(r.out)![1]);
    t.ok(completions > 1_200 && completions < 1_800, `about 1500 completions (${completions})`);

    // Every completion is of a chapter of a course its student is enrolled in; counters are right.
    const check = await db.db.execute<{ orphans: number; wrong_enrollments: number; wrong_courses: number; triggers_off: number }>(sql`
      select
        (select count(*)::int from ${chapterCompletions} cc
          where not exists (select 1 from ${enrollments} e where e.user_id = cc.user_id and e.course_id = cc.course_id)) as orphans,
        (select count(*)::int from ${enrollments} e
          where e.completed_chapters <> (select count(*) from ${chapterCompletions} cc where cc.user_id = e.user_id and cc.course_id = e.course_id)) as wrong_enrollments,
        (select count(*)::int from ${courses} c
          where c.student_count <> (select count(*) from ${enrollments} e where e.course_id = c.id)
             or c.chapter_count <> (select count(*) from chapters ch where ch.course_id = c.id)) as wrong_courses,
        (select count(*)::int from pg_trigger where tgname like '%_trg' and tgenabled = 'D') as triggers_off`);
    t.same(check.rows[0], { orphans: 0, wrong_enrollments: 0, wrong_courses: 0, triggers_off: 0 });
    const synthUsers = await db.db.execute<{ n: number }>(sql`select count(*)::int as n from ${users} where id like ${`${tag}\\_%`}`);
    t.equal(synthUsers.rows[0]!.n, 51, '50 students and their teacher');

    const missing = await cli('seed', 'synthetic', '--courses', '1', '--students', '1', '--enrollments', '1');
    t.equal(missing.code, 2);
    t.match(missing.err, '--completions is required');
    const bad = await cli('seed', 'synthetic', '--courses', 'many', '--students', '1', '--enrollments', '1', '--completions', '0');
    t.equal(bad.code, 2);
    const tooMany = await cli('seed', 'synthetic', '--courses', '2', '--students', '2', '--enrollments', '5', '--completions', '0');
    t.equal(tooMany.code, 1);
    t.match(tooMany.err, 'at most students x courses = 4 enrollments');
  });

  t.test('database errors are one clear line', async (t) => {
    const err: string[] = [];
    const r = await runCli(['partner', 'list'], {
      io: { out: () => {}, err: (l) => err.push(l), isTty: false },
      config: testConfig({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }),
    });
    t.equal(r, 1);
    t.equal(err.length, 1);
    t.match(err[0], /^lms-admin partner list failed: .*ECONNREFUSED/);
    t.notMatch(err[0], /\n\s+at /, 'no stack trace');
  });
});

t.test('bad configuration exits 1 naming the variable', async (t) => {
  const err: string[] = [];
  const code = await runCli(['db', 'migrate'], { io: { err: (l) => err.push(l), out: () => {} }, env: { DATABASE_URL: 'not a url' } });
  t.equal(code, 1);
  t.match(err.join('\n'), 'DATABASE_URL');
});

t.test('the api_keys table holds only the hash and the visible prefix of the printed key', async (t) => {
  const db = await createTestDb();
  t.teardown(() => db.destroy());
  const out: string[] = [];
  const code = await runCli(['seed', 'demo'], { io: { out: (l) => out.push(l), err: () => {} }, config: testConfig(db.url ? { DATABASE_URL: db.url } : {}), ...(db.url ? {} : { db }) });
  t.equal(code, 0);
  const rows = await db.db.select({ keyHash: apiKeys.keyHash, prefix: apiKeys.prefix }).from(apiKeys);
  t.same(rows, [{ keyHash: hashToken(out[0]!), prefix: out[0]!.slice(0, 14) }]);
});

t.test('two seed demo runs at once seed once', async (t) => {
  const db = await createTestDb();
  t.teardown(() => db.destroy());
  const run = async () => {
    const out: string[] = [];
    const code = await runCli(['seed', 'demo'], {
      io: { out: (l) => out.push(l), err: () => {}, isTty: false },
      config: testConfig(db.url ? { DATABASE_URL: db.url } : {}),
      ...(db.url ? {} : { db }),
    });
    return { code, out: out.join('\n') };
  };
  const [a, b] = await Promise.all([run(), run()]);
  t.same([a.code, b.code], [0, 0]);
  t.equal([a.out, b.out].filter((o) => /^lms_key_/.test(o)).length, 1, 'one of them created the key');
  const n = await db.db.execute<{ courses: number; keys: number }>(
    sql`select (select count(*)::int from ${courses}) as courses, (select count(*)::int from ${apiKeys}) as keys`,
  );
  t.same(n.rows[0], { courses: 30, keys: 1 });
});
