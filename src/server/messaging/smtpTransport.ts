/**
 * Email over SMTP (nodemailer), configured by SMTP_URL (smtp:// or smtps://user:pass@host:port)
 * and MAIL_FROM. A refusal of the recipient (a 5xx answer to it) is permanent; anything else (the
 * server away, busy, a 4xx) may pass on a later try.
 */
import nodemailer from 'nodemailer';
import { DeliveryError, type OutgoingMessage, type Transport } from './delivery.js';

/** A mail server that does not answer within these is treated as away (milliseconds). */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as const;

/** The domain of MAIL_FROM ("Onramp <no-reply@example.com>"), on the right of each Message-ID. */
const domainOf = (from: string) => /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';

export function createSmtpTransport(url: string, from: string): Transport {
  const domain = domainOf(from);
  // A pool of connections kept open between messages; the URL gives host, port, security and login.
  const transporter = nodemailer.createTransport({ url, pool: true, maxConnections: 3, ...TIMEOUTS });
  transporter.set('disableFileAccess', true);
  transporter.set('disableUrlAccess', true);
  return {
    async send(message: OutgoingMessage) {
      if (message.channel !== 'email') throw new DeliveryError('The SMTP transport sends email only.');
      try {
        const info = await transporter.sendMail({
          from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          ...(message.headers && { headers: message.headers }),
          ...(message.messageKey && { messageId: `<${message.messageKey}@${domain}>` }),
        });
        if (info.rejected.length > 0) throw Object.assign(new Error('The mail server refused the recipient.'), { responseCode: 550 });
      } catch (error) {
        const { responseCode, command } = error as { responseCode?: number; command?: string };
        // 5xx for the recipient (RCPT TO, or the whole message refused with 550/553): the address won't work.
        const refused = typeof responseCode === 'number' && responseCode >= 500 && (command === 'RCPT TO' || responseCode === 550 || responseCode === 553);
        throw new DeliveryError(`SMTP: ${(error as Error).message}`, refused ? 'emailRefused' : undefined);
      }
    },
    async close() {
      transporter.close();
    },
  };
}
