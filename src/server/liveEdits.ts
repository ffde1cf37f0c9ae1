/**
 * `npm run dev`'s link between the file watcher (src/cli/dev.ts) and the running server: the
 * validators the routes use, swapped after each good edit of schemas/ or flows/, and what the
 * open pages are told (routes/dev.ts): a new build to reload to, or the lint problems of a broken
 * edit, while the server and the pages keep the last good version.
 */
import type { CallReader } from './lib/callPayload.js';

export interface LiveState {
  /** The good build the server runs: it grows with each good edit, and a page of an older one reloads. */
  version: number;
  /** The last edit's lint problems, as the lint prints them (file and place first); empty when it was applied. */
  problems: string[];
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
      routePath: (callName) => this.reader.routePath(callName),
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
