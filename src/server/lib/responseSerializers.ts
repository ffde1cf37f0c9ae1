/**
 * Fastify's response serializers, compiled once per process rather than once per app: compiling
 * the routes' answer schemas (fast-json-stringify generating and evaluating code) is most of an
 * app's start, and a process that builds several apps (the instances of the tests, a server
 * rebuilt in place) would compile the same schemas again. A serializer is reused only for the
 * same schema object, status and content type under the same shared schemas and options.
 */
import { type SerializerFactory, SerializerSelector, type Serializer } from '@fastify/fast-json-stringify-compiler';

const compileWith = SerializerSelector();
/** Per shared schemas and options (as JSON), per answer schema object, per status and content type. */
const compiled = new Map<string, WeakMap<object, Map<string, Serializer>>>();

export const memoizedSerializers: SerializerFactory = (externalSchemas, options) => {
  const key = JSON.stringify([externalSchemas, options]);
  let bySchema = compiled.get(key);
  if (!bySchema) compiled.set(key, (bySchema = new WeakMap()));
  const seen = bySchema;
  const compile = compileWith(externalSchemas, options);
  return (route) => {
    const { schema } = route;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    let byAnswer = seen.get(schema);
    if (!byAnswer) seen.set(schema, (byAnswer = new Map()));
    const answer = `${route.httpStatus}\n${(route as { contentType?: string }).contentType ?? ''}`;
    let serializer = byAnswer.get(answer);
    if (!serializer) byAnswer.set(answer, (serializer = compile(route)));
    return serializer;
  };
};
