/**
 * The API's contracts, one file by audience, each named by its `$id` ("driver", "review", "staff",
 * "insights"): a route declares its body, query string and answer as `{ $ref: '<id>#/$defs/…' }`,
 * and a contract refers to another's definitions the same way. Types: src/shared/generated/ (npm run types).
 */
import driverContract from './driver.schema.json';
import insightsContract from './insights.schema.json';
import reviewContract from './review.schema.json';
import staffContract from './staff.schema.json';

export { driverContract, insightsContract, reviewContract, staffContract };

/** Every contract of the API, for an Ajv or a Fastify app to resolve a `$ref` to any of them. */
export const API_CONTRACTS = [driverContract, reviewContract, staffContract, insightsContract];
