import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { buildGateway } from '../../src/app.js';
import { testConfig } from '../../src/testing.js';
import { eventually, logCapture, signPartnerToken, writePartnersFile } from '../helpers/partners.js';

const partner = (iss: string, allowedIps = ['127.0.0.1']) => ({ iss, allowedIps, lmsUrl: `https://${iss}` });

t.test('a bad partners file stops the start with a message naming the bad entry', async (t) => {
  const cases: Array<[string, unknown, RegExp]> = [
    [
      'leading zeros',
      { partners: [partner('a.example', ['010.0.0.0/8'])] },
      /partners\[0\] \(iss "a.example"\)\.allowedIps\[0\]: "010.0.0.0\/8" is not a valid CIDR: leading zeros/,
    ],
    [
      'prefix /33',
      { partners: [partner('a.example', ['10.0.0.0/33'])] },
      /allowedIps\[0\]: "10.0.0.0\/33" is not a valid CIDR: prefix \/33 is out of range/,
    ],
    [
      'bad URL',
      { partners: [{ ...partner('a.example'), lmsUrl: 'lms.example.com' }] },
      /partners\[0\] \(iss "a.example"\)\.lmsUrl: "lms.example.com" is not a URL/,
    ],
    [
      'duplicate iss',
      { partners: [partner('a.example'), partner('a.example', ['::1'])] },
      /partners\[1\] \(iss "a.example"\)\.iss: duplicate iss "a.example" \(also partners\[0\]\)/,
    ],
    ['not JSON', '{ "partners": [', /not valid JSON/],
    // Allow-all ranges turn the allowlist off: anybody could act for the partner.
    [
      'IPv4 allow-all',
      { partners: [partner('a.example', ['203.0.113.0/24', '0.0.0.0/0'])] },
      /allowedIps\[1\]: "0.0.0.0\/0" allows every address, which turns the allowlist off: list the partner's real addresses/,
    ],
    [
      'IPv6 allow-all',
      { partners: [partner('a.example', ['::/0'])] },
      /allowedIps\[0\]: "::\/0" allows every address.*list the partner's real addresses/,
    ],
    [
      'mapped IPv4 allow-all',
      { partners: [partner('a.example', ['::ffff:0:0/96'])] },
      /allowedIps\[0\]: "::ffff:0:0\/96" allows every address/,
    ],
  ];
  for (const [name, content, message] of cases) {
    const file = await writePartnersFile(t, typeof content === 'string' ? content : JSON.stringify(content));
    await t.rejects(
      buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false }),
      { name: 'PartnersFileError', message },
      name,
    );
  }
  const missing = path.join(path.dirname(await writePartnersFile(t, { partners: [] })), 'absent.json');
  await t.rejects(buildGateway({ config: testConfig({ PARTNERS_FILE: missing }), logger: false }), {
    name: 'PartnersFileError',
    message: `Cannot read partners file ${missing}: ENOENT`,
  });
});

t.test('the registry follows the file: edits in place, replaced files, bad edits kept out', async (t) => {
  const file = await writePartnersFile(t, { partners: [partner('first.example')] });
  const { lines, logger } = logCapture();
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger, partnersWatch: { debounceMs: 50 } });
  t.teardown(() => app.close());

  const statusFor = async (iss: string) => {
    const res = await app.inject({ url: `/sso/verify?token=${await signPartnerToken(iss)}`, remoteAddress: '127.0.0.1' });
    return res.statusCode;
  };
  t.equal(await statusFor('first.example'), 302);
  t.equal(await statusFor('second.example'), 401);

  await t.test('a new partner written in place is accepted without a restart', async (t) => {
    await writeFile(file, JSON.stringify({ partners: [partner('first.example'), partner('second.example')] }));
    t.ok(await eventually(async () => (await statusFor('second.example')) === 302), 'second.example accepted');
    t.equal(await statusFor('first.example'), 302);
    t.ok(lines.some((l) => l.msg === 'partner registry reloaded'));
  });

  await t.test('a file replaced by rename (as editors save) is picked up', async (t) => {
    const temp = `${file}.tmp`;
    await writeFile(temp, JSON.stringify({ partners: [partner('third.example')] }));
    await rename(temp, file);
    t.ok(await eventually(async () => (await statusFor('third.example')) === 302), 'third.example accepted');
    t.equal(await statusFor('first.example'), 401, 'a partner removed from the file is gone');
  });

  await t.test('a bad edit keeps the last good registry and logs why', async (t) => {
    await writeFile(file, JSON.stringify({ partners: [partner('third.example', ['010.0.0.0/8']), partner('fourth.example')] }));
    // (An in-place write can be seen half-written and rejected too: look for this edit's rejection.)
    const rejected = () =>
      lines.find((l) => l.msg.startsWith('partners file rejected, keeping the last good registry') && l.msg.includes('"010.0.0.0/8"'));
    t.ok(await eventually(async () => rejected() !== undefined), 'the rejection is logged');
    t.match(rejected()?.msg, /partners\[0\] \(iss "third.example"\)\.allowedIps\[0\]: "010.0.0.0\/8" is not a valid CIDR/);
    t.equal(rejected()?.level, 50, 'logged as an error');
    t.equal(await statusFor('third.example'), 302, 'the last good registry still answers');
    t.equal(await statusFor('fourth.example'), 401, 'nothing from the bad file is used');

    // The file disappears (an editor between delete and write): still the last good registry.
    await rm(file);
    t.ok(await eventually(async () => lines.some((l) => /cannot read .*ENOENT/.test(l.msg))), 'the missing file is logged');
    t.equal(await statusFor('third.example'), 302);

    // Fixed: the good edit is taken.
    await writeFile(file, JSON.stringify({ partners: [partner('fourth.example')] }));
    t.ok(await eventually(async () => (await statusFor('fourth.example')) === 302), 'the corrected file is loaded');
    t.equal(await statusFor('third.example'), 401);
  });
});

t.test('polling alone picks up a change (for filesystems where fs.watch stays silent), and stops on close', async (t) => {
  const file = await writePartnersFile(t, { partners: [partner('one.example')] });
  const app = await buildGateway({
    config: testConfig({ PARTNERS_FILE: file }),
    logger: false,
    partnersWatch: { watch: false, debounceMs: 10, pollIntervalMs: 100 },
  });
  await writeFile(file, JSON.stringify({ partners: [partner('two.example')] }));
  t.ok(await eventually(async () => app.partners.find('two.example') !== undefined), 'the poll saw the change');
  t.equal(app.partners.find('one.example'), undefined);

  await app.close();
  await writeFile(file, JSON.stringify({ partners: [partner('three.example')] }));
  // Several poll intervals: a timer left running after close would have reloaded by now.
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.ok(app.partners.find('two.example'), 'no reload after close');
  t.equal(app.partners.find('three.example'), undefined);
});
