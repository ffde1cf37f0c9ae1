/**
 * A fault's report (faults.ts loads this when it has one to send), as the server's schema takes it
 * (src/shared/clientErrorReport.schema.json, whose limits are read here): the error's name and
 * message on one line, cut to length, with what it quotes left out (a value the code was handed:
 * JSON.parse quotes its input); the frames of our own scripts, without the origin; the build; the
 * route pattern, never the address with its ids and tokens or a query string.
 */
import schema from '../../shared/clientErrorReport.schema.json';
import { CLIENT_ERRORS_PATH } from '../../shared/apiAnswers.js';
import type { ClientErrorReport } from '../../shared/generated/clientErrorReport.js';
import { request } from './api.js';
import { appConfig } from './config.js';
import { PAGE_ROUTES } from '../../shared/review.js';
import { flow } from './flow.js';

const { properties } = schema;
/** Where the app's scripts are served from (the build's dist/assets). */
const OWN_SCRIPTS = '/assets/';

const oneLine = (text: string, maxLength: number) => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, maxLength);

/** The route a path is on, in the order the app's pages take them (the pages beside the flow first): a step's (`/:id/:token`), or "*". */
function routeOf(path: string): string {
  const routes = [...Object.values(PAGE_ROUTES), ...Object.values(flow.steps).map((step) => step.route)];
  const matches = (route: string) => new RegExp(`^${route.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}/?$`).test(path);
  return routes.find(matches) ?? '*';
}

function ownFrames(stack: string): string[] {
  const origin = window.location.origin;
  return stack
    .split('\n')
    .filter((line) => line.includes(`${origin}${OWN_SCRIPTS}`))
    .map((line) => oneLine(line.trim().replaceAll(origin, ''), properties.stack.items.maxLength))
    .filter((frame) => frame.includes(OWN_SCRIPTS))
    .slice(0, properties.stack.maxItems);
}

export async function sendFaultReport(error: Error): Promise<void> {
  const report: ClientErrorReport = {
    name: oneLine(error.name, properties.name.maxLength) || 'Error',
    message: oneLine(error.message.replace(/"[^"]*"/g, '"…"'), properties.message.maxLength),
    stack: ownFrames(error.stack ?? ''),
    build: appConfig().build,
    route: routeOf(window.location.pathname),
  };
  await request(CLIENT_ERRORS_PATH, { method: 'POST', body: { ...report } });
}
