import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { createSmtpMailer, listNotificationEmails } from '@voice/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenario } from '../../test/scenario';

interface Mail {
  to: string[];
  subject: string;
  text: string;
}

const mails: Mail[] = [];
const refusedOnce = new Set<string>();
let smtp: SMTPServer;
let smtpUrl: string;

/** Enough of MIME for plain-text mail: the Subject header and a quoted-printable body. */
function parseMail(raw: string, to: string[]): Mail {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const subject = /^Subject: (.*)$/m.exec(head)?.[1] ?? '';
  const text = rest
    .join('\n\n')
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\r\n/g, '\n');
  return { to, subject, text };
}

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      // A mailbox that is busy the first time: the sender must try again later.
      if (address.address === 'busy@example.com' && !refusedOnce.has(address.address)) {
        refusedOnce.add(address.address);
        return callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        mails.push(
          parseMail(
            raw,
            session.envelope.rcptTo.map((rcpt) => rcpt.address),
          ),
        );
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp?.close(resolve));
});

describe('notification emails at call end', () => {
  it('sends one email per address through a real SMTP server, retrying a refused one', async () => {
    const mailer = createSmtpMailer({ url: smtpUrl, from: 'Voice <notify@voice.example>' });
    const s = await scenario({
      name: 'mail',
      number: '+14155550190',
      notificationEmails: ['ops@example.com', 'busy@example.com'],
      mailer,
    });
    try {
      const callId = await s.run(async (id) => id);
      const call = await s.deps.db.call.findUniqueOrThrow({ where: { id: callId } });

      expect(mails.map((mail) => mail.to).sort()).toEqual([['busy@example.com'], ['ops@example.com']]);
      for (const mail of mails) {
        expect(mail.subject).toBe('Call ended: mail agent with +14155550009');
        expect(mail.text).toContain(`Summary:\n${call.summary}`);
        expect(mail.text).toContain(`Call: https://voice.example/functions/v1/call-get/${callId}`);
      }
      const rows = await listNotificationEmails(s.deps, { accountId: s.accountId, call_id: callId });
      expect(rows.map((row) => [row.to, row.status, row.attempts]).sort()).toEqual([
        ['busy@example.com', 'sent', 2],
        ['ops@example.com', 'sent', 1],
      ]);
      expect(rows.find((row) => row.to === 'busy@example.com')?.last_error).toContain('451');
    } finally {
      mailer.close();
      await s.close();
    }
  });

  it('keeps them in the outbox table when no SMTP server is configured (the embedded default)', async () => {
    const before = mails.length;
    const s = await scenario({
      name: 'outbox',
      number: '+14155550191',
      notificationEmails: ['ops@example.com'],
    });
    try {
      const callId = await s.run(async (id) => id);
      const rows = await listNotificationEmails(s.deps, { accountId: s.accountId });
      expect(rows).toMatchObject([
        {
          call_id: callId,
          to: 'ops@example.com',
          subject: 'Call ended: outbox agent with +14155550009',
          status: 'outbox',
          attempts: 0,
        },
      ]);
      expect(rows[0]!.body).toContain(`/functions/v1/call-get/${callId}`);
      expect(mails.length).toBe(before);
    } finally {
      await s.close();
    }
  });
});
