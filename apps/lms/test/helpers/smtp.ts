import { once } from 'node:events';
import { createConnection, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { type EmailSender, type OutgoingEmail, PermanentDeliveryError, TemporaryDeliveryError } from '../../src/notifications/contract.js';

// A real SMTP server on port 0 (smtp-server) and the smallest client that speaks to it, so that
// the send job's tests deliver over SMTP until the e-mail channel (notifications/mail/) merges.

export interface Received {
  from: string;
  to: string[];
  data: string;
}

export interface SmtpServerOptions {
  /** Listen on this port (a server closed to simulate an outage, opened again on the same port). */
  port?: number;
  /**
   * Called as a message's DATA begins: true holds the message there, never answering the end of
   * DATA (a server that stalls mid-send); it is not received. `dataStarted` counts these starts.
   */
  stallData?: () => boolean;
}

/**
 * An SMTP server that keeps what it receives; `refuse` decides, per message, to answer a 4xx
 * (temporary) or 5xx (permanent) to RCPT TO instead of taking it.
 */
export async function smtpServer(refuse: () => 'temporary' | 'permanent' | null = () => null, options: SmtpServerOptions = {}) {
  const received: Received[] = [];
  const counts = { dataStarted: 0, stalled: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // A stalled connection does not hold the close for smtp-server's default 30 s.
    closeTimeout: 200,
    onRcptTo(_address, _session, callback) {
      const how = refuse();
      if (how === 'temporary') return callback(Object.assign(new Error('Mailbox busy, try later'), { responseCode: 451 }));
      if (how === 'permanent') return callback(Object.assign(new Error('No such user here'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      counts.dataStarted += 1;
      if (options.stallData?.()) {
        // Read what comes and never answer: the client waits for the 250 that does not come.
        counts.stalled += 1;
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server.server, 'listening');
  const port = (server.server.address() as AddressInfo).port;
  return { received, port, counts, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Reads SMTP replies line by line; a reply is done at a line whose 4th character is a space. */
function replies(socket: Socket) {
  let buffer = '';
  const waiting: ((line: string) => void)[] = [];
  const ready: string[] = [];
  socket.setEncoding('utf8');
  // A refused or dropped connection answers what is waiting as a temporary failure would.
  const lost = () => {
    for (const next of waiting.splice(0)) next('421 connection lost');
    ready.push('421 connection lost');
  };
  socket.on('error', lost);
  socket.on('close', lost);
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let at = buffer.indexOf('\r\n'); at !== -1; at = buffer.indexOf('\r\n')) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      if (line[3] === '-') continue;
      const next = waiting.shift();
      if (next) next(line);
      else ready.push(line);
    }
  });
  return () => new Promise<string>((resolve) => (ready.length > 0 ? resolve(ready.shift() as string) : waiting.push(resolve)));
}

/** An EmailSender over plain SMTP: 4xx → TemporaryDeliveryError, 5xx → PermanentDeliveryError. */
export function smtpSender(port: number, from = 'lms@example.test'): EmailSender {
  return {
    async send(mail: OutgoingEmail) {
      const socket = createConnection({ port, host: '127.0.0.1' });
      const next = replies(socket);
      const step = async (command: string | null) => {
        if (command !== null) socket.write(`${command}\r\n`);
        const line = await next();
        const code = Number(line.slice(0, 3));
        if (code >= 500) throw new PermanentDeliveryError(line);
        if (code >= 400) throw new TemporaryDeliveryError(line);
        return line;
      };
      const messageId = `<${mail.key.replace(/[^A-Za-z0-9.-]/g, '_')}@example.test>`;
      try {
        await step(null);
        await step('EHLO lms.test');
        await step(`MAIL FROM:<${mail.from ?? from}>`);
        await step(`RCPT TO:<${mail.to}>`);
        await step('DATA');
        const headers = [`From: ${mail.from ?? from}`, `To: ${mail.to}`, `Subject: ${mail.message.subject}`, `Message-ID: ${messageId}`];
        if (mail.unsubscribeUrl)
          headers.push(`List-Unsubscribe: <${mail.unsubscribeUrl}>`, 'List-Unsubscribe-Post: List-Unsubscribe=One-Click');
        await step(`${headers.join('\r\n')}\r\n\r\n${mail.message.text}\r\n.`);
        await step('QUIT').catch(() => '');
      } finally {
        socket.destroy();
      }
      return { providerMessageId: messageId };
    },
    async close() {},
  };
}
