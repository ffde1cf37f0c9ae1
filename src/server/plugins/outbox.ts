/**
 * Where one-time codes go. The only Messenger here is the local outbox: the code is kept in
 * memory (GET /dev/outbox shows it) and written as one log line, so the whole flow runs with no
 * account and no internet. SMTP and Twilio adapters are out of scope for now; in production
 * codes therefore go nowhere, and the server says so in a warning at start rather than
 * refusing to run (keeping the rest of the app usable while the adapters are written).
 */
import { shared } from './shared.js';

export type Channel = 'email' | 'sms';

export interface CodeMessage {
  channel: Channel;
  /** An email address or an E.164 phone number. */
  to: string;
  code: string;
}

export interface Messenger {
  sendCode(message: CodeMessage): Promise<void>;
}

export interface OutboxEntry extends CodeMessage {
  sentAt: string;
}

/** Keeps the latest codes, newest first. */
export class LocalOutbox implements Messenger {
  static readonly KEEP = 200;
  private readonly entries: OutboxEntry[] = [];

  constructor(
    private readonly now: () => Date,
    private readonly log: (entry: OutboxEntry) => void,
  ) {}

  async sendCode(message: CodeMessage): Promise<void> {
    const entry: OutboxEntry = { channel: message.channel, to: message.to, code: message.code, sentAt: this.now().toISOString() };
    this.entries.unshift(entry);
    this.entries.length = Math.min(this.entries.length, LocalOutbox.KEEP);
    this.log(entry);
  }

  list(): OutboxEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }
}

/** Production until real adapters exist: drops the code, never logs it. */
class UndeliveredMessenger implements Messenger {
  constructor(private readonly warn: (channel: Channel) => void) {}
  async sendCode(message: CodeMessage): Promise<void> {
    this.warn(message.channel);
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
    app.log.warn('No email or SMS adapter is configured: one-time codes will not be delivered.');
    app.decorate('outbox', null);
    app.decorate('messenger', new UndeliveredMessenger((channel) => app.log.warn({ channel }, 'A one-time code was not delivered (no adapter).')));
    return;
  }
  // The one place a code is logged: the local outbox line a developer reads to sign in.
  const outbox = new LocalOutbox(app.now, (entry) =>
    app.log.info({ outbox: { channel: entry.channel, to: entry.to } }, `Local outbox: ${entry.channel} code ${entry.code} for ${entry.to}`),
  );
  app.decorate('outbox', outbox);
  app.decorate('messenger', outbox);
});
