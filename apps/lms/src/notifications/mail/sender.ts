import { createHash } from 'node:crypto';
import { createTransport, type NodemailerError } from 'nodemailer';
import { type EmailSender, type OutgoingEmail, PermanentDeliveryError, type SendResult, TemporaryDeliveryError } from '../contract.js';

// The e-mail channel (docs/operations.md, "E-mail: SMTP and DKIM"): one pooled SMTP transport
// per process, every message with a text and an HTML part, signed with DKIM when a key is
// configured. A failure comes back as the contract's TemporaryDeliveryError (try again later:
// the server was down, slow, or said 4xx) or PermanentDeliveryError (the server refused this
// recipient or this message with a 5xx: the same message would be refused again).

export interface DkimOptions {
  /** The d= of the signature: the domain whose DNS holds `<selector>._domainkey` (TXT). */
  domainName: string;
  keySelector: string;
  /** A PEM private key (RSA). */
  privateKey: string;
}

export interface EmailSenderOptions {
  /** smtp://user:pass@host:587 (STARTTLS when offered) or smtps://user:pass@host:465 (TLS from the start). */
  smtpUrl: string;
  /** The deployment's From (`Name <address>` or an address), used when a message names none. */
  from: string;
  dkim?: DkimOptions;
  /** How long connecting, and then waiting for the server's greeting, may take (ms). */
  connectTimeoutMs?: number;
  /** How long the connection may be silent once it is open (ms). */
  socketTimeoutMs?: number;
  /** Connections the pool keeps open at most. */
  maxConnections?: number;
}

/** The SMTP_URL parts nodemailer takes; throws a plain Error naming what is wrong (config.ts makes it a start-up error). */
export function parseSmtpUrl(value: string): { host: string; port: number; secure: boolean; auth?: { user: string; pass: string } } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('not a URL: write smtp://user:password@host:587 or smtps://user:password@host:465');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new Error(`the scheme must be smtp:// (STARTTLS when offered) or smtps:// (TLS), not ${url.protocol}//`);
  }
  if (!url.hostname) throw new Error('no host: write smtp://host:587');
  if ((url.pathname && url.pathname !== '/') || url.search) throw new Error('no path or query after the host and port');
  const secure = url.protocol === 'smtps:';
  const user = decodeURIComponent(url.username);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    ...(user ? { auth: { user, pass: decodeURIComponent(url.password) } } : {}),
  };
}

/** The domain of an address or of `Name <address>`: where the Message-IDs are made. */
function domainOf(from: string): string {
  const address = /<([^>]+)>\s*$/.exec(from)?.[1] ?? from;
  return address.split('@').at(-1)?.trim().toLowerCase() || 'localhost';
}

/**
 * The Message-ID of a notification: the same for every attempt of one notification key, so a
 * message sent twice (an attempt that timed out after the server took it) is one message to the
 * recipient's mail program, and different for every other key.
 */
export function messageIdFor(key: string, domain: string): string {
  return `<${createHash('sha256').update(key).digest('hex').slice(0, 40)}@${domain}>`;
}

/** The SMTP commands whose 5xx refuses this recipient or this message, not the deployment. */
const RECIPIENT_OR_MESSAGE = /^(RCPT TO|DATA|MESSAGE|BDAT)/i;

/** What a failed send means for the queue: try again later, or never. */
export function classifySendError(err: unknown): TemporaryDeliveryError | PermanentDeliveryError {
  const e = err as NodemailerError;
  const reply = e.response ? `: ${e.response}` : '';
  const what = `${e.code ?? 'error'}${e.command ? ` at ${e.command}` : ''}${reply || `: ${e.message}`}`;
  // A 5xx (but 503, which is the session's state: nodemailer's `permanent`) in answer to the
  // recipient or the message itself. A 5xx to AUTH or MAIL FROM is the deployment's setting
  // (credentials, the from-address) and is fixed by an operator: retried.
  const rejected = e.code === 'EENVELOPE' && e.rejectedErrors?.length ? e.rejectedErrors[0] : e;
  if (rejected.permanent === true && RECIPIENT_OR_MESSAGE.test(rejected.command ?? (e.code === 'EENVELOPE' ? 'RCPT TO' : ''))) {
    return new PermanentDeliveryError(`the mail server refused it (${what})`, { cause: err });
  }
  // Refused or dropped connections, timeouts, DNS, TLS, 4xx replies: the next attempt may pass.
  return new TemporaryDeliveryError(`the mail could not be sent now (${what})`, { cause: err });
}

/** An EmailSender on one pooled SMTP transport; `close()` ends its connections (at shutdown). */
export function createEmailSender(options: EmailSenderOptions): EmailSender {
  const smtp = parseSmtpUrl(options.smtpUrl);
  const connectTimeout = options.connectTimeoutMs ?? 10_000;
  const transport = createTransport({
    pool: true,
    maxConnections: options.maxConnections ?? 5,
    ...smtp,
    connectionTimeout: connectTimeout,
    greetingTimeout: connectTimeout,
    dnsTimeout: connectTimeout,
    socketTimeout: options.socketTimeoutMs ?? 30_000,
    ...(options.dkim
      ? { dkim: { domainName: options.dkim.domainName, keySelector: options.dkim.keySelector, privateKey: options.dkim.privateKey } }
      : {}),
    // Nothing of a message is fetched from a file or a URL: every part is a string we made.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const messageIdDomain = options.dkim?.domainName ?? domainOf(options.from);

  return {
    async send(mail: OutgoingEmail): Promise<SendResult> {
      const messageId = messageIdFor(mail.key, messageIdDomain);
      try {
        const info = await transport.sendMail({
          from: mail.from ?? options.from,
          to: { name: mail.toName, address: mail.to },
          subject: mail.message.subject,
          text: mail.message.text,
          html: mail.message.html,
          messageId,
          headers: {
            ...(mail.unsubscribeUrl
              ? // RFC 8058: both headers, in the part the DKIM signature covers (nodemailer signs them).
                { 'List-Unsubscribe': `<${mail.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
              : {}),
            // Automatic mail (RFC 3834): no out-of-office replies to it.
            'Auto-Submitted': 'auto-generated',
            'X-Auto-Response-Suppress': 'OOF, AutoReply',
          },
        });
        return { providerMessageId: info.messageId || messageId };
      } catch (err) {
        throw classifySendError(err);
      }
    },
    async close(): Promise<void> {
      transport.close();
    },
  };
}
