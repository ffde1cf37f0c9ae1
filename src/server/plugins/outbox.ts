/**
 * Where one-time codes and notices go. The only Messenger here is the local outbox: each message
 * is kept in memory (GET /dev/outbox shows it) and written as one log line, so the whole flow runs
 * with no account and no internet. SMTP and Twilio adapters are out of scope for now; in
 * production messages therefore go nowhere, and the server says so in a warning at start rather
 * than refusing to run (keeping the rest of the app usable while the adapters are written).
 */
import { fillPlaceholders } from '../../shared/errors.js';
import { loadNotices, type NoticeName } from '../../shared/projectFiles.js';
import { shared } from './shared.js';

export type Channel = 'email' | 'sms';

export interface CodeMessage {
  channel: Channel;
  /** An email address or an E.164 phone number. */
  to: string;
  code: string;
}

/** A notice by email, its words from flows/notices.json with `values` in its placeholders. */
export interface NoticeMessage {
  to: string;
  notice: NoticeName;
  values: Record<string, string>;
}

export interface Messenger {
  sendCode(message: CodeMessage): Promise<void>;
  sendNotice(message: NoticeMessage): Promise<void>;
}

export type OutboxEntry =
  | (CodeMessage & { sentAt: string })
  | { channel: 'email'; to: string; notice: NoticeName; subject: string; text: string; sentAt: string };

/** Keeps the latest messages, newest first. */
export class LocalOutbox implements Messenger {
  static readonly KEEP = 200;
  private readonly entries: OutboxEntry[] = [];
  private readonly notices = loadNotices();

  constructor(
    private readonly now: () => Date,
    private readonly log: (entry: OutboxEntry) => void,
  ) {}

  private keep(entry: OutboxEntry): void {
    this.entries.unshift(entry);
    this.entries.length = Math.min(this.entries.length, LocalOutbox.KEEP);
    this.log(entry);
  }

  async sendCode(message: CodeMessage): Promise<void> {
    this.keep({ channel: message.channel, to: message.to, code: message.code, sentAt: this.now().toISOString() });
  }

  async sendNotice(message: NoticeMessage): Promise<void> {
    const words = this.notices[message.notice];
    this.keep({
      channel: 'email',
      to: message.to,
      notice: message.notice,
      subject: fillPlaceholders(words.subject, message.values),
      text: fillPlaceholders(words.text, message.values),
      sentAt: this.now().toISOString(),
    });
  }

  list(): OutboxEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }
}

/** Production until real adapters exist: drops the message, never logs what it held. */
class UndeliveredMessenger implements Messenger {
  constructor(private readonly warn: (channel: Channel) => void) {}
  async sendCode(message: CodeMessage): Promise<void> {
    this.warn(message.channel);
  }
  async sendNotice(): Promise<void> {
    this.warn('email');
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    messenger: Messenger;
    /** The local outbox; null in production. */
    outbox: LocalOutbox | null;
  }
}

export const outboxPlugin = shared<{ production: boolean }>(async (app, options) => {
  if (options.production) {
    app.log.warn('No email or SMS adapter is configured: one-time codes and notices will not be delivered.');
    app.decorate('outbox', null);
    app.decorate('messenger', new UndeliveredMessenger((channel) => app.log.warn({ channel }, 'A message was not delivered (no adapter).')));
    return;
  }
  // The one place a code is logged: the local outbox line a developer reads to sign in.
  const outbox = new LocalOutbox(app.now, (entry) =>
    app.log.info(
      { outbox: { channel: entry.channel, to: entry.to } },
      'code' in entry ? `Local outbox: ${entry.channel} code ${entry.code} for ${entry.to}` : `Local outbox: ${entry.notice} notice for ${entry.to}`,
    ),
  );
  app.decorate('outbox', outbox);
  app.decorate('messenger', outbox);
});
