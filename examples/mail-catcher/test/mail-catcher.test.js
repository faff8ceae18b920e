import { createTransport } from 'nodemailer';
import t from 'tap';
import { createMailCatcher } from '../src/mail-catcher.js';

// A real catcher on free ports, a real SMTP client: what is sent is listed (JSON and page) and
// shown, the sender's HTML only inside the sandbox.

t.test('a sent message is listed newest first and shown with its parts and headers', async (t) => {
  const catcher = await createMailCatcher({ smtpPort: 0, httpPort: 0 });
  t.teardown(() => catcher.close());
  t.match(catcher.smtpUrl, /^smtp:\/\/127\.0\.0\.1:\d+$/);
  t.match(catcher.pageUrl, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const mailer = createTransport({ url: catcher.smtpUrl });
  t.teardown(() => mailer.close());
  for (const n of [1, 2]) {
    await mailer.sendMail({
      from: 'LMS <no-reply@lms.test>',
      to: 'Budi <budi@example.org>',
      subject: `Pesan ${n} <b>`,
      text: `Halo ${n}`,
      html: `<p>Halo <script>alert(${n})</script></p>`,
      headers: { 'X-Test': String(n) },
    });
  }
  const list = await (await fetch(`${catcher.pageUrl}api/messages`)).json();
  t.same(
    list.map((m) => m.subject),
    ['Pesan 2 <b>', 'Pesan 1 <b>'],
    'newest first',
  );
  t.equal(list[0].to, '"Budi" <budi@example.org>');
  t.equal(list[0].text.trim(), 'Halo 2');
  t.match(list[0].headers.join('\n'), 'X-Test: 2');

  const index = await (await fetch(catcher.pageUrl)).text();
  t.match(index, 'Pesan 2 &lt;b&gt;', 'the subject is escaped on the page');
  t.notMatch(index, '<b>');
  const detail = await fetch(`${catcher.pageUrl}messages/${list[0].id}`);
  const body = await detail.text();
  t.match(body, /<iframe sandbox src="\/messages\/\d+\/html"/, 'the HTML in a sandboxed iframe');
  t.match(body, 'X-Test: 2', 'the headers');
  t.notMatch(body, '<script>', "the message's script is not on the page");
  const htmlPart = await fetch(`${catcher.pageUrl}messages/${list[0].id}/html`);
  t.match(htmlPart.headers.get('content-security-policy'), /^sandbox; default-src 'none'/);
  t.equal((await fetch(`${catcher.pageUrl}messages/999`)).status, 404);

  t.equal((await fetch(`${catcher.pageUrl}api/messages`, { method: 'DELETE' })).status, 204);
  t.same(await (await fetch(`${catcher.pageUrl}api/messages`)).json(), []);
});
