/**
 * Text messages through Twilio's Programmable Messaging API (the twilio SDK), configured by
 * TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM (a number, or a Messaging Service SID
 * starting with MG). TWILIO_API_BASE points the SDK at another address (the tests' Twilio-shaped
 * server), through the SDK's own extension point, a request client.
 */
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';
import { DeliveryError, type OutgoingMessage, type Transport, type Undeliverable } from './delivery.js';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  from: string;
  /** Another address for Twilio's API, e.g. http://127.0.0.1:4010. */
  apiBase?: string;
}

/** Twilio's error codes for a number that can't take a text (https://www.twilio.com/docs/api/errors). */
const UNDELIVERABLE: Readonly<Record<number, Undeliverable>> = {
  21211: 'invalidPhone', // invalid 'To' phone number
  21217: 'invalidPhone', // phone number does not appear to be valid
  21614: 'invalidPhone', // 'To' number is not a valid mobile number
  21610: 'optedOut', // the recipient replied STOP
  21408: 'smsRefused', // permission to send to this region is not enabled
  21612: 'smsRefused', // the 'To' number is not reachable by this sender
};

/** The SDK's request client, sending every request to `apiBase` instead of api.twilio.com. */
class RedirectedRequestClient extends twilio.RequestClient {
  constructor(private readonly apiBase: URL) {
    super({ timeout: 15_000 });
  }
  override request<TData>(options: RequestClient.RequestOptions<TData>) {
    const uri = new URL(options.uri);
    uri.protocol = this.apiBase.protocol;
    uri.host = this.apiBase.host;
    return super.request<TData>({ ...options, uri: uri.href });
  }
}

export function createTwilioTransport(settings: TwilioSettings): Transport {
  const client = twilio(settings.accountSid, settings.authToken, {
    timeout: 15_000,
    // Retries are the messaging plugin's, with its own backoff.
    autoRetry: false,
    ...(settings.apiBase ? { httpClient: new RedirectedRequestClient(new URL(settings.apiBase)) } : {}),
  });
  const sender = settings.from.startsWith('MG') ? { messagingServiceSid: settings.from } : { from: settings.from };
  return {
    async send(message: OutgoingMessage) {
      if (message.channel !== 'sms') throw new DeliveryError('The Twilio transport sends text messages only.');
      try {
        await client.messages.create({ to: message.to, body: message.text, ...sender });
      } catch (error) {
        const { code, status } = error as { code?: number; status?: number };
        throw new DeliveryError(
          `Twilio: ${status ?? 'no answer'} ${code ?? ''} ${(error as Error).message}`.trim(),
          typeof code === 'number' ? UNDELIVERABLE[code] : undefined,
        );
      }
    },
  };
}
