import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  apiKeys,
  chapterCompletions,
  courses,
  enrollments,
  hashToken,
  identities,
  institutions,
  partnerInstitutions,
  partnerKeys,
  partners,
  sessions,
  users,
} from '@lms/db';
import { createTestDb, type TestDb } from '@lms/db/testing';
import { postgresUrl, testDatabaseUrl } from '../helpers/database.js';
import { and, eq, sql } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, importSPKI } from 'jose';
import t, { type Test } from 'tap';
import { commandGroups, runCli } from '../../src/cli/run.js';
import { testConfig } from '../../src/testing.js';
import { findApiKeyOwner } from '../../src/domain/api-keys.js';
import { createSession } from '../../src/domain/sessions.js';
import { cliFor, scratchDataDir } from '../helpers/cli.js';
import { abortFirstTryByDeadlock, holdTransaction } from '../helpers/lock-holder.js';

/** A teacher added through the CLI on its own database, with one open session: whom `user deactivate` signs out. */
async function teacherWithSession(t: Test, db: TestDb, email: string, name: string) {
  const cli = cliFor(db);
  const add = await cli('user', 'add', '--email', email, '--name', name, '--role', 'teacher');
  t.equal(add.code, 0, add.err);
  await createSession(db.db, add.out, new Date(), 3_600_000);
  return { cli, userId: add.out };
}

t.test('admin CLI', async (t) => {
  const db = await createTestDb(testDatabaseUrl);
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
    const jwks = await cli(
      'partner',
      'add',
      '--iss',
      'Univ.Example.ac.id',
      '--jwks-url',
      'https://univ.example.ac.id/jwks.json',
      '--name',
      'Universitas Contoh',
    );
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
    t.equal(
      (await db.db.select().from(partners).where(eq(partners.issuer, 'small.example.com'))).length,
      0,
      'nothing stored for a short key',
    );
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
    t.match(list.out, /univ\.example\.ac\.id\s+Universitas Contoh\s+yes\s+\(none\)\s+jwks https:\/\/univ\.example\.ac\.id\/v2\/jwks\.json/);
    t.match(list.out, `kid ${thumbprint}, kid key-2026`);
    t.match(list.out, /demo-partner\.local\s+Demo Partner\s+yes\s+1\s/, 'the demo partner from seed demo, bound to institution 1');

    t.equal((await cli('partner', 'remove', '--iss', 'asosiasi.example.or.id')).code, 0);
    t.equal((await db.db.select().from(partnerKeys)).length, 0, 'its keys went with it');
    const gone = await cli('partner', 'remove', '--iss', 'asosiasi.example.or.id');
    t.equal(gone.code, 1);
    t.match(gone.err, 'no partner with issuer asosiasi.example.or.id');
  });

  t.test('partner add --institution / bind / unbind: the institutions a partner creates courses for', async (t) => {
    const [second] = await db.db.insert(institutions).values({ name: 'Institut Kedua' }).returning({ id: institutions.id });
    const two = second!.id;
    const boundTo = async (issuer: string) =>
      (
        await db.db
          .select({ id: partnerInstitutions.institutionId })
          .from(partnerInstitutions)
          .innerJoin(partners, eq(partners.id, partnerInstitutions.partnerId))
          .where(eq(partners.issuer, issuer))
      )
        .map((r) => r.id)
        .sort((a, b) => a - b);

    const add = await cli(
      'partner',
      'add',
      '--iss',
      'kampus.example.ac.id',
      '--jwks-url',
      'https://kampus.example.ac.id/jwks.json',
      '--institution',
      '1',
      '--institution',
      String(two),
    );
    t.equal(add.code, 0, add.err);
    t.match(add.out, `Partner kampus.example.ac.id added: JWKS https://kampus.example.ac.id/jwks.json; institutions 1, ${two}`);
    t.same(await boundTo('kampus.example.ac.id'), [1, two]);

    // An unknown institution: nothing is stored, the partner included.
    const unknownInst = await cli(
      'partner',
      'add',
      '--iss',
      'baru.example.ac.id',
      '--jwks-url',
      'https://baru.example.ac.id/j',
      '--institution',
      '999',
    );
    t.equal(unknownInst.code, 1);
    t.match(unknownInst.err, 'no institution with id 999');
    t.equal((await db.db.select().from(partners).where(eq(partners.issuer, 'baru.example.ac.id'))).length, 0, 'nothing stored');
    t.equal(
      (await cli('partner', 'add', '--iss', 'baru.example.ac.id', '--jwks-url', 'https://baru.example.ac.id/j', '--institution', 'one'))
        .code,
      2,
    );

    const list = await cli('partner', 'list');
    t.match(
      list.out,
      new RegExp(`kampus\\.example\\.ac\\.id\\s+kampus\\.example\\.ac\\.id\\s+yes\\s+1,${two}\\s+jwks`),
      'list shows the institutions',
    );

    const unbind = await cli('partner', 'unbind', '--iss', 'kampus.example.ac.id', '--institution', '1');
    t.equal(unbind.code, 0, unbind.err);
    t.match(unbind.out, 'Partner kampus.example.ac.id unbound from institution 1.');
    t.same(await boundTo('kampus.example.ac.id'), [two]);
    const notBound = await cli('partner', 'unbind', '--iss', 'kampus.example.ac.id', '--institution', '1', '--institution', String(two));
    t.equal(notBound.code, 1);
    t.match(notBound.err, 'partner kampus.example.ac.id is not bound to institution 1');
    t.same(await boundTo('kampus.example.ac.id'), [two], 'all or nothing: the bound one stays');

    const bind = await cli('partner', 'bind', '--iss', 'kampus.example.ac.id', '--institution', '1');
    t.equal(bind.code, 0, bind.err);
    t.match(bind.out, 'Partner kampus.example.ac.id bound to institution 1.');
    t.same(await boundTo('kampus.example.ac.id'), [1, two]);
    const again = await cli('partner', 'bind', '--iss', 'kampus.example.ac.id', '--institution', '1');
    t.equal(again.code, 0, 'binding again changes nothing');
    t.match(again.err, 'already bound to institution 1');
    t.same(await boundTo('kampus.example.ac.id'), [1, two]);

    const noPartner = await cli('partner', 'bind', '--iss', 'nobody.example.org', '--institution', '1');
    t.equal(noPartner.code, 1);
    t.match(noPartner.err, 'no partner with issuer nobody.example.org');
    t.equal((await cli('partner', 'unbind', '--iss', 'nobody.example.org', '--institution', '1')).code, 1);
    const noInst = await cli('partner', 'bind', '--iss', 'kampus.example.ac.id', '--institution', '999');
    t.equal(noInst.code, 1);
    t.match(noInst.err, 'no institution with id 999');
    for (const usage of [
      ['partner', 'bind', '--iss', 'kampus.example.ac.id'],
      ['partner', 'bind', '--institution', '1'],
      ['partner', 'bind', '--iss', 'kampus.example.ac.id', '--institution', '0'],
      ['partner', 'unbind', '--iss', 'kampus.example.ac.id'],
      ['partner', 'bind', '--iss', 'kampus.example.ac.id', '--institution', '1', '--kid', 'x'],
    ]) {
      t.equal((await cli(...usage)).code, 2, usage.join(' '));
    }

    t.equal((await cli('partner', 'remove', '--iss', 'kampus.example.ac.id')).code, 0);
    t.same(await boundTo('kampus.example.ac.id'), [], 'its bindings went with it');
  });

  t.test('user add / deactivate', async (t) => {
    const add = await cli(
      'user',
      'add',
      '--email',
      'Guru.Baru@Example.COM',
      '--name',
      'Guru Baru',
      '--role',
      'teacher',
      '--institution',
      '1',
    );
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

  t.test('user link / show / unlink', async (t) => {
    const add = await cli('user', 'add', '--email', 'linked.teacher@example.com', '--name', 'Linked Teacher', '--role', 'teacher');
    t.equal(add.code, 0, add.err);
    const userId = add.out;
    const identitiesOf = (id: string) =>
      db.db
        .select({ issuer: identities.issuer, membershipId: identities.membershipId, origin: identities.origin })
        .from(identities)
        .where(eq(identities.userId, id));

    // seed demo linked the demo staff to the demo partner, as this command would.
    const demo = await cli('user', 'show', '--email', 'teacher@demo.lms');
    t.equal(demo.code, 0, demo.err);
    t.match(demo.out, /role\s+teacher/);
    t.match(demo.out, /demo-partner\.local\s+STAFF-001\s+operator/);
    const same = await cli('user', 'link', '--email', 'teacher2@demo.lms', '--iss', 'demo-partner.local', '--membership-id', 'STAFF-002');
    t.equal(same.code, 0, 'the same link again is a no-op');
    t.equal(same.out, '');
    t.match(same.err, 'already linked to demo-partner.local as membership id STAFF-002 (origin operator): nothing changed');

    const none = await cli('user', 'show', '--email', 'linked.teacher@example.com');
    t.match(none.out, 'No SSO identity');

    const link = await cli(
      'user',
      'link',
      '--email',
      'Linked.Teacher@example.com',
      '--iss',
      'Demo-Partner.LOCAL',
      '--membership-id',
      ' T-77 ',
    );
    t.equal(link.code, 0, link.err);
    t.equal(link.out, 'Linked linked.teacher@example.com to demo-partner.local as membership id T-77.');
    t.same(await identitiesOf(userId), [{ issuer: 'demo-partner.local', membershipId: 'T-77', origin: 'operator' }]);
    t.match((await cli('user', 'show', '--email', 'linked.teacher@example.com')).out, /demo-partner\.local\s+T-77\s+operator/);

    const again = await cli(
      'user',
      'link',
      '--email',
      'linked.teacher@example.com',
      '--iss',
      'demo-partner.local',
      '--membership-id',
      'T-77',
    );
    t.equal(again.code, 0);
    t.match(again.err, 'nothing changed');

    // Refusals change nothing.
    const second = await cli(
      'user',
      'link',
      '--email',
      'linked.teacher@example.com',
      '--iss',
      'demo-partner.local',
      '--membership-id',
      'T-78',
    );
    t.equal(second.code, 1, 'one identity per partner');
    t.match(second.err, 'linked.teacher@example.com is already linked to demo-partner.local as membership id T-77');
    t.match(second.err, 'unlink it first: lms-admin user unlink --email linked.teacher@example.com --iss demo-partner.local');
    const taken = await cli(
      'user',
      'link',
      '--email',
      'linked.teacher@example.com',
      '--iss',
      'demo-partner.local',
      '--membership-id',
      'STAFF-001',
    );
    t.equal(taken.code, 1, 'an identity belongs to one account');
    t.match(taken.err, 'demo-partner.local membership id STAFF-001 already belongs to teacher@demo.lms (teacher)');
    // A demo member who came through the demo partner.
    const [student] = await db.db
      .select({ id: users.id, email: users.email, membershipId: identities.membershipId })
      .from(users)
      .innerJoin(identities, eq(identities.userId, users.id))
      .where(and(eq(users.role, 'student'), eq(identities.issuer, 'demo-partner.local')))
      .limit(1);
    const ofStudent = await cli(
      'user',
      'link',
      '--email',
      'linked.teacher@example.com',
      '--iss',
      'demo-partner.local',
      '--membership-id',
      student!.membershipId,
    );
    t.equal(ofStudent.code, 1, "a partner member's own identity cannot be taken over by a link");
    t.match(ofStudent.err, `already belongs to ${student!.email} (student)`);
    const unknownPartner = await cli(
      'user',
      'link',
      '--email',
      'linked.teacher@example.com',
      '--iss',
      'nobody.example.com',
      '--membership-id',
      'X-1',
    );
    t.equal(unknownPartner.code, 1);
    t.match(unknownPartner.err, 'no partner with issuer nobody.example.com');
    const unknownUser = await cli('user', 'link', '--email', 'ghost@example.com', '--iss', 'demo-partner.local', '--membership-id', 'X-1');
    t.equal(unknownUser.code, 1);
    t.match(unknownUser.err, 'no user with e-mail ghost@example.com');
    t.same(await identitiesOf(userId), [{ issuer: 'demo-partner.local', membershipId: 'T-77', origin: 'operator' }], 'still the one link');
    t.same(
      await identitiesOf(student!.id),
      [{ issuer: 'demo-partner.local', membershipId: student!.membershipId, origin: 'sso' }],
      "the member's identity untouched",
    );

    // Usage errors (exit 2).
    const empty = await cli(
      'user',
      'link',
      '--email',
      'linked.teacher@example.com',
      '--iss',
      'demo-partner.local',
      '--membership-id',
      '  ',
    );
    t.equal(empty.code, 2);
    t.match(empty.err, '--membership-id is required');
    const long = await cli(
      'user',
      'link',
      '--email',
      'ghost@example.com',
      '--iss',
      'demo-partner.local',
      '--membership-id',
      'x'.repeat(256),
    );
    t.equal(long.code, 2);
    t.match(long.err, '--membership-id must be 1 to 255 characters (got 256)');
    t.equal((await cli('user', 'link', '--email', 'linked.teacher@example.com', '--iss', 'demo-partner.local')).code, 2);
    t.equal((await cli('user', 'link', '--email', 'linked.teacher@example.com', '--iss', 'not a domain', '--membership-id', 'X')).code, 2);
    t.equal((await cli('user', 'unlink', '--email', 'linked.teacher@example.com')).code, 2, 'unlink needs --iss');

    // Unlink removes the identity and ends every session of the user.
    await createSession(db.db, userId, new Date(), 3_600_000);
    await createSession(db.db, userId, new Date(), 3_600_000);
    const unlink = await cli('user', 'unlink', '--email', 'linked.teacher@example.com', '--iss', 'demo-partner.local');
    t.equal(unlink.code, 0, unlink.err);
    t.equal(
      unlink.out,
      'Unlinked linked.teacher@example.com from demo-partner.local (membership id T-77, origin operator); 2 sessions ended.',
    );
    t.same(await identitiesOf(userId), []);
    t.equal((await db.db.select().from(sessions).where(eq(sessions.userId, userId))).length, 0);
    const twice = await cli('user', 'unlink', '--email', 'linked.teacher@example.com', '--iss', 'demo-partner.local');
    t.equal(twice.code, 1);
    t.match(twice.err, 'linked.teacher@example.com has no identity of demo-partner.local');
    t.equal((await cli('user', 'unlink', '--email', 'ghost@example.com', '--iss', 'demo-partner.local')).code, 1);
    t.equal((await cli('user', 'show', '--email', 'ghost@example.com')).code, 1);

    // A membership id of 255 characters is fine; an inactive partner is linked with a warning;
    // an identity outlives its partner and can still be unlinked.
    t.equal((await cli('partner', 'add', '--iss', 'paused.example.com', '--jwks-url', 'https://paused.example.com/jwks.json')).code, 0);
    await db.db.update(partners).set({ isActive: false }).where(eq(partners.issuer, 'paused.example.com'));
    const paused = await cli(
      'user',
      'link',
      '--email',
      'linked.teacher@example.com',
      '--iss',
      'paused.example.com',
      '--membership-id',
      'y'.repeat(255),
    );
    t.equal(paused.code, 0, paused.err);
    t.match(paused.err, 'warning: partner paused.example.com is inactive');
    t.equal((await cli('partner', 'remove', '--iss', 'paused.example.com')).code, 0);
    t.equal(
      (
        await db.db
          .select()
          .from(identities)
          .where(and(eq(identities.userId, userId), eq(identities.issuer, 'paused.example.com')))
      ).length,
      1,
    );
    const orphan = await cli('user', 'unlink', '--email', 'linked.teacher@example.com', '--iss', 'paused.example.com');
    t.equal(orphan.code, 0, orphan.err);
    t.match(orphan.out, '0 sessions ended');
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

  t.test('a statement past DB_STATEMENT_TIMEOUT_MS: the message names the setting', async (t) => {
    // PostgreSQL whatever TEST_DATABASE_URL says: the embedded database has no statement timeout.
    const pgDb = await createTestDb(postgresUrl);
    t.teardown(() => pgDb.destroy());
    const err: string[] = [];
    // The users table is locked by another session for as long as the command runs.
    const code = await pgDb.db.transaction(async (tx) => {
      await tx.execute(sql`lock table users in access exclusive mode`);
      return runCli(['user', 'deactivate', '--email', 'someone@example.test'], {
        io: { out: () => {}, err: (l) => err.push(l), isTty: false },
        config: testConfig({ DATABASE_URL: pgDb.url, DB_STATEMENT_TIMEOUT_MS: 200 }),
      });
    });
    t.equal(code, 1);
    t.match(err.join('\n'), /canceling statement due to statement timeout \(57014\) -- a statement ran past DB_STATEMENT_TIMEOUT_MS/);
  });

  // An operator's command caught in a deadlock is run again, as the API's transactions are
  // (inTransaction): `user deactivate` holds the user's row and then deletes their sessions, while
  // another transaction holds a session and then asks for the user's row. PostgreSQL aborts the
  // command's first try (the other side's deadlock_timeout is set past the test); before, the
  // operator got "deadlock detected" and had to run it again.
  t.test('a command caught in a deadlock is run again: done once, exit 0', async (t) => {
    // PostgreSQL whatever TEST_DATABASE_URL says: a deadlock takes two connections.
    const pgDb = await createTestDb(postgresUrl);
    t.teardown(() => pgDb.destroy());
    const { cli: pgCli, userId } = await teacherWithSession(t, pgDb, 'terkunci@example.test', 'Guru Terkunci');

    const holder = await holdTransaction(pgDb.db, [
      sql`set local deadlock_timeout = '60s'`,
      sql`select 1 from sessions where user_id = ${userId} for update`,
    ]);
    const deactivating = pgCli('user', 'deactivate', '--email', 'terkunci@example.test');
    // The command holds the user and waits for the session; this transaction then asks for the user.
    const taken = await abortFirstTryByDeadlock(pgDb.db, holder, {
      firstTryWaitsOn: 'delete from "sessions"',
      take: sql`select id from users where id = ${userId} for update`,
      secondTryWaitsOn: 'update "users"',
    });
    t.equal(taken.length, 1, 'the user row was freed by the aborted try');
    const off = await deactivating;

    t.equal(off.code, 0, off.err);
    t.equal(off.out, 'User terkunci@example.test deactivated (1 session ended).');
    t.equal(off.err, '', 'nothing on stderr: the operator sees one successful run');
    const [after] = await pgDb.db.select({ isActive: users.isActive }).from(users).where(eq(users.id, userId));
    t.equal(after?.isActive, false);
    t.equal((await pgDb.db.select().from(sessions).where(eq(sessions.userId, userId))).length, 0, 'the session is gone');
  });

  // A conflict on every try: after inTransaction's three, the operator is told that nothing
  // changed and to run the command again. The server raises a serialization failure (40001) on
  // every update of the user, as a busy database might; a sequence (never rolled back) counts the tries.
  t.test('a command that meets a conflict on every try: exit 1, nothing changed, run it again', async (t) => {
    const own = await createTestDb(testDatabaseUrl);
    t.teardown(() => own.destroy());
    const { cli: ownCli, userId } = await teacherWithSession(t, own, 'sibuk@example.test', 'Guru Sibuk');
    await own.db.execute(sql`create sequence test_tries`);
    await own.db.execute(
      sql.raw(`create function test_conflict() returns trigger language plpgsql as $$
      begin perform nextval('test_tries'); raise exception 'could not serialize access' using errcode = '40001'; end $$`),
    );
    await own.db.execute(sql`create trigger test_conflict before update on users for each row execute function test_conflict()`);

    const off = await ownCli('user', 'deactivate', '--email', 'sibuk@example.test');
    t.equal(off.code, 1);
    t.match(off.err, /\(40001\) -- the command met concurrent writes three times in a row and nothing was changed; run it again/);
    const [tries] = (await own.db.execute<{ n: string }>(sql`select last_value as n from test_tries`)).rows;
    t.equal(Number(tries?.n), 3, 'three tries');
    const [after] = await own.db.select({ isActive: users.isActive }).from(users).where(eq(users.id, userId));
    t.equal(after?.isActive, true, 'the user is still active');
    t.equal((await own.db.select().from(sessions).where(eq(sessions.userId, userId))).length, 1, 'the session is kept');
  });
});

t.test('bad configuration exits 1 naming the variable', async (t) => {
  const err: string[] = [];
  const code = await runCli(['db', 'migrate'], { io: { err: (l) => err.push(l), out: () => {} }, env: { DATABASE_URL: 'not a url' } });
  t.equal(code, 1);
  t.match(err.join('\n'), 'DATABASE_URL');
});

t.test('the api_keys table holds only the hash and the visible prefix of the printed key', async (t) => {
  const db = await createTestDb(testDatabaseUrl);
  t.teardown(() => db.destroy());
  const out: string[] = [];
  const code = await runCli(['seed', 'demo'], {
    io: { out: (l) => out.push(l), err: () => {} },
    config: testConfig({ DATA_DIR: scratchDataDir(), ...(db.url ? { DATABASE_URL: db.url } : {}) }),
    ...(db.url ? {} : { db }),
  });
  t.equal(code, 0);
  const rows = await db.db.select({ keyHash: apiKeys.keyHash, prefix: apiKeys.prefix }).from(apiKeys);
  t.same(rows, [{ keyHash: hashToken(out[0]!), prefix: out[0]!.slice(0, 14) }]);
});

t.test('two seed demo runs at once seed once', async (t) => {
  const db = await createTestDb(testDatabaseUrl);
  t.teardown(() => db.destroy());
  const DATA_DIR = scratchDataDir();
  const run = async () => {
    const out: string[] = [];
    const code = await runCli(['seed', 'demo'], {
      io: { out: (l) => out.push(l), err: () => {}, isTty: false },
      config: testConfig({ DATA_DIR, ...(db.url ? { DATABASE_URL: db.url } : {}) }),
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
  t.same(n.rows[0], { courses: 31, keys: 1 });
});
