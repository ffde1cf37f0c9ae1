/**
 * The reminders' one-step unsubscribe (plugins/reminders.ts), at the signed link of each reminder
 * email: POST (the mail client's one-click, RFC 8058, or the button of the page below) stops the
 * driver's reminders; GET shows that button, as a link opened by a mail scanner must change
 * nothing. The signature is a keyed hash of the driver's id: the link stops that driver's
 * reminders and does nothing else.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fileAnswer } from '../lib/routeSchemas.js';
import { isUuid } from '../db/db.js';
import { UNSUBSCRIBE_CONTEXT, UNSUBSCRIBE_PATH } from '../plugins/reminders.js';
import { messageIn, refusal } from '../serverMessages.js';
import { isLocale, type Locale } from '../../shared/locales.js';
import { type RouteTable } from '../lib/routeTable.js';
import type { UnsubscribeQuery } from '../../shared/generated/driver.js';

/** The unsubscribe link's page and its one click (lib/routeTable.ts). */
export const REMINDER_ROUTES = {
  unsubscribePage: { method: 'GET', url: UNSUBSCRIBE_PATH },
  unsubscribe: { method: 'POST', url: UNSUBSCRIBE_PATH },
} as const satisfies RouteTable;

/** The page in `locale`: its words are flows/server-messages.json's reminders, translated as the server's other messages. */
function page(locale: Locale, body: string): string {
  const title = messageIn(locale, 'reminders.title');
  return `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
}

export async function reminderRoutes(app: FastifyInstance) {
  // The one-click POST is a form (List-Unsubscribe=One-Click): read as text, its content is not needed.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_request, body, done) => done(null, body));

  /** The link's driver and the language they read Onramp in (the request's if they are gone). */
  async function driverOf(request: FastifyRequest): Promise<{ driver: string; locale: Locale }> {
    const { driver, signature } = request.query as UnsubscribeQuery;
    if (
      driver === undefined ||
      !isUuid(driver) ||
      signature === undefined ||
      !app.cipher.fingerprints(driver, UNSUBSCRIBE_CONTEXT).some((expected) => app.cipher.sameHash(signature, expected))
    )
      throw refusal(400, 'reminders.badLink');
    const { rows } = await app.db.query<{ locale: string }>('SELECT locale FROM drivers WHERE id = $1', [driver]);
    const stored = rows[0]?.locale;
    return { driver, locale: isLocale(stored) ? stored : request.locale };
  }

  const pageAnswer = {
    schema: { querystring: { $ref: 'driver#/$defs/unsubscribeQuery' }, response: { 200: fileAnswer('A page in the driver’s language.', 'text/html') } },
  };
  app.get(REMINDER_ROUTES.unsubscribePage.url, pageAnswer, async (request, reply) => {
    const { locale } = await driverOf(request);
    return reply
      .type('text/html; charset=utf-8')
      .send(
        page(
          locale,
          `<p>${messageIn(locale, 'reminders.ask')}</p><form method="post"><button type="submit">${messageIn(locale, 'reminders.button')}</button></form>`,
        ),
      );
  });

  app.post(REMINDER_ROUTES.unsubscribe.url, pageAnswer, async (request, reply) => {
    const { driver, locale } = await driverOf(request);
    await app.db.query('UPDATE drivers SET reminders_stopped_at = coalesce(reminders_stopped_at, $2) WHERE id = $1', [driver, app.now()]);
    return reply.type('text/html; charset=utf-8').send(page(locale, `<p>${messageIn(locale, 'reminders.done')}</p>`));
  });
}
