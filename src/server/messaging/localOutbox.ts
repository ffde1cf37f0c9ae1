/**
 * The local stand-in for SMTP and Twilio (`npm start`, the tests): every message is kept in memory,
 * newest first (GET /dev/outbox shows them), and written as one log line, so the whole journey runs
 * with no account and no internet. The one place a code is logged: the line a developer reads to sign in.
 */
import type { NoticeName } from '../../shared/notices.js';
import type { Channel, OutgoingMessage, Transport } from './delivery.js';

/** A message as /dev/outbox lists it: a code with the code itself, or a notice with its words. */
export type OutboxEntry = { channel: Channel; to: string; sentAt: string } & (
  | { code: string; text: string; subject?: string }
  | { notice: NoticeName; text: string; subject?: string; headers?: Record<string, string> }
);

export class LocalOutbox implements Transport {
  static readonly KEEP = 200;
  private readonly entries: OutboxEntry[] = [];

  constructor(
    private readonly now: () => Date,
    private readonly log: (entry: OutboxEntry) => void,
  ) {}

  async send(message: OutgoingMessage): Promise<void> {
    const entry: OutboxEntry = {
      channel: message.channel,
      to: message.to,
      ...('code' in message.about ? { code: message.about.code } : { notice: message.about.notice }),
      ...(message.channel === 'email' ? { subject: message.subject, ...(message.headers && { headers: message.headers }) } : {}),
      text: message.text,
      sentAt: this.now().toISOString(),
    };
    this.entries.unshift(entry);
    this.entries.length = Math.min(this.entries.length, LocalOutbox.KEEP);
    this.log(entry);
  }

  list(): OutboxEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }
}
