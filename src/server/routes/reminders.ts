/**
 * The reminders' one-step unsubscribe (plugins/reminders.ts), at the signed link of each reminder
 * email: POST (the mail client's one-click, RFC 8058, or the button of the page below) stops the
 * driver's reminders; GET shows that button, as a link opened by a mail scanner must change
 * nothing. The signature is a keyed hash of the driver's id: the link stops that driver's
 * reminders and does nothing else.
 */
import { httpErrors } from '@fastify/sensible';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isUuid } from '../db/db.js';
import { UNSUBSCRIBE_CONTEXT, UNSUBSCRIBE_PATH } from '../plugins/reminders.js';

export const UNSUBSCRIBE_MESSAGES = {
  badLink: 'This unsubscribe link is not valid. Use the link of the reminder email as it came.',
  title: 'Onramp reminders',
  ask: 'Stop the emails and text messages that remind you to finish signing up to drive with Onramp?',
  button: 'Stop reminders',
  done: 'Done: you will get no more reminders from Onramp.',
} as const;

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${UNSUBSCRIBE_MESSAGES.title}</title></head><body><main><h1>${UNSUBSCRIBE_MESSAGES.title}</h1>${body}</main></body></html>`;

export async function reminderRoutes(app: FastifyInstance) {
  // The one-click POST is a form (List-Unsubscribe=One-Click): read as text, its content is not needed.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_request, body, done) => done(null, body));

  function driverOf(request: FastifyRequest): string {
    const { driver, signature } = (request.query ?? {}) as Record<string, unknown>;
    if (
      typeof driver !== 'string' ||
      !isUuid(driver) ||
      typeof signature !== 'string' ||
      !app.cipher.sameHash(signature, app.cipher.fingerprint(driver, UNSUBSCRIBE_CONTEXT))
    )
      throw httpErrors.badRequest(UNSUBSCRIBE_MESSAGES.badLink);
    return driver;
  }

  app.get(UNSUBSCRIBE_PATH, async (request, reply) => {
    driverOf(request);
    return reply
      .type('text/html; charset=utf-8')
      .send(page(`<p>${UNSUBSCRIBE_MESSAGES.ask}</p><form method="post"><button type="submit">${UNSUBSCRIBE_MESSAGES.button}</button></form>`));
  });

  app.post(UNSUBSCRIBE_PATH, async (request, reply) => {
    const driver = driverOf(request);
    await app.db.query('UPDATE drivers SET reminders_stopped_at = coalesce(reminders_stopped_at, $2) WHERE id = $1', [driver, app.now()]);
    return reply.type('text/html; charset=utf-8').send(page(`<p>${UNSUBSCRIBE_MESSAGES.done}</p>`));
  });
}
