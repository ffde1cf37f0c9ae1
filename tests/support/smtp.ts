/**
 * A local SMTP server for the SMTP transport's tests (the smtp-server package): it asks for a
 * login, takes the messages, and hands each to the test parsed (mailparser): headers, text and
 * HTML. It can refuse recipients as a real server does (550), and be stopped and started again on
 * its port, as a mail server that went away and came back.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface LocalSmtp {
  /** For SMTP_URL, with the login the server asks for. */
  url: string;
  received: ParsedMail[];
  /** Recipients answered "550 mailbox unavailable". */
  refused: Set<string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const USER = 'onramp';
const PASSWORD = 'smtp-test-password';

export async function startSmtpServer(): Promise<LocalSmtp> {
  const received: ParsedMail[] = [];
  const refused = new Set<string>();
  let port = 0;
  let server: SMTPServer;

  const listen = async () => {
    server = new SMTPServer({
      // No TLS here: the test server is on loopback, and a self-signed certificate would be refused.
      disabledCommands: ['STARTTLS'],
      // Stopping drops open connections at once, as a server that went away does.
      closeTimeout: 1,
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth(auth, _session, callback) {
        if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: USER });
        else callback(new Error('Invalid username or password'));
      },
      onRcptTo(address, _session, callback) {
        if (refused.has(address.address)) callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
        else callback();
      },
      onData(stream, _session, callback) {
        simpleParser(stream).then(
          (mail) => {
            received.push(mail);
            callback();
          },
          (error: Error) => callback(error),
        );
      },
      logger: false,
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  };
  const stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  await listen();
  return {
    url: `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}`,
    received,
    refused,
    stop,
    start: listen,
    close: stop,
  };
}
