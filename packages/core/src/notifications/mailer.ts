import type { Transporter } from 'nodemailer';

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
}

/** Sends one email; throws when the server refuses it or cannot be reached (the caller retries). */
export interface Mailer {
  send(email: OutgoingEmail): Promise<void>;
  close(): void;
}

/**
 * SMTP through nodemailer, configured by URL: `smtp://user:pass@host:587` (STARTTLS when offered),
 * `smtps://host:465` (TLS), with nodemailer's options as query parameters.
 */
export function createSmtpMailer({ url, from }: { url: string; from: string }): Mailer {
  // nodemailer is loaded with the first email, not with the service: most processes never send one.
  let transport: Promise<Transporter> | undefined;
  const connect = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url)));
  return {
    async send({ to, subject, text }) {
      await (await connect()).sendMail({ from, to, subject, text });
    },
    close: () => void transport?.then((opened) => opened.close()),
  };
}
