/**
 * The request reader the routes hold as `app.callReader` (lib/callReader/), made from the flow the
 * app serves. Under `npm run dev` it is swapped for the last good edit's after each edit of
 * schemas/ or flows/: the file watcher (src/cli/dev.ts) hands its `LiveEdits` in, which the
 * routes read as `app.live` to tell the open pages (routes/dev.ts, routes/static.ts): a new build
 * to reload to, or the lint problems of a broken edit, while the server and the pages keep the
 * last good version.
 */
import fp from 'fastify-plugin';
import type { Flow } from '../../shared/flow.js';
import type { LiveState } from '../../shared/liveState.js';
import { createCallReader, type CallReader } from '../lib/callReader/reader.js';

declare module 'fastify' {
  interface FastifyInstance {
    callReader: CallReader;
    /** `npm run dev`'s live edits; null otherwise. */
    live: LiveEdits | null;
  }
}

export class LiveEdits {
  state: LiveState = { version: 1, problems: [] };
  private reader: CallReader;
  private readonly listeners = new Set<(state: LiveState) => void>();

  /** What the routes hold as `app.callReader`: it hands each call to the reader of the last good edit. */
  readonly callReader: CallReader;

  constructor(reader: CallReader) {
    this.reader = reader;
    const live = () => this.reader;
    this.callReader = {
      get flow() {
        return live().flow;
      },
      flowIn: (locale) => this.reader.flowIn(locale),
      call: (name) => this.reader.call(name),
      stepOf: (callName) => this.reader.stepOf(callName),
      json: (callName, request, options) => this.reader.json(callName, request, options),
      multipart: (callName, request, options) => this.reader.multipart(callName, request, options),
      fileAhead: (step, field, request) => this.reader.fileAhead(step, field, request),
    };
  }

  /** A good edit: requests are validated with `reader` from now on. */
  swapReader(reader: CallReader): void {
    this.reader = reader;
  }

  /** A good edit, built and served: the open pages reload. */
  reloadPages(): void {
    this.publish({ version: this.state.version + 1, problems: [] });
  }

  /** A broken edit: open pages show its problems; nothing else changes. */
  rejected(problems: string[]): void {
    this.publish({ version: this.state.version, problems });
  }

  subscribe(listener: (state: LiveState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private publish(state: LiveState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }
}

export const callReaderPlugin = fp<{ flow: Flow; live?: LiveEdits }>(
  async (app, { flow, live }) => {
    app.decorate('callReader', live?.callReader ?? createCallReader(flow));
    app.decorate('live', live ?? null);
  },
  { name: 'onramp-call-reader' },
);
