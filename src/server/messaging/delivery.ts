/**
 * The port every message leaves by: an email or a text message, handed to a transport (SMTP,
 * Twilio, or the local outbox). A transport that can't deliver says whether trying again could help.
 */
import type { NoticeName } from '../../shared/notices.js';

export type Channel = 'email' | 'sms';

export type OutgoingMessage = (
  | {
      channel: 'email';
      to: string;
      subject: string;
      text: string;
      html: string;
      /** Headers of its own, e.g. List-Unsubscribe (RFC 2369, RFC 8058). */
      headers?: Record<string, string>;
    }
  | { channel: 'sms'; to: string; text: string }
) & {
  /** What the message is, for the local outbox that shows it (transports send only the words). */
  about: { code: string } | { notice: NoticeName };
  /**
   * The same on every try of one notice (its row's id): a mail server that took a message but
   * went away before saying so gets it again, and the mailbox shows the two as one (RFC 5322's
   * Message-ID).
   */
  messageKey?: string;
};

export interface Transport {
  /** Delivers the message, or throws a DeliveryError. */
  send(message: OutgoingMessage): Promise<void>;
  /** Ends its connections (the server is closing). */
  close?(): Promise<void>;
}

/** Why a permanent failure happened, in the terms the driver is told. */
export type Undeliverable = 'invalidPhone' | 'optedOut' | 'smsRefused' | 'emailRefused';

export class DeliveryError extends Error {
  constructor(
    message: string,
    /** Set when the address itself was refused: trying again would fail the same way. */
    readonly undeliverable?: Undeliverable,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}
