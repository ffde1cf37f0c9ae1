/**
 * Under `npm run dev`: what the server tells the open pages after each edit of schemas/ or flows/
 * (src/server/plugins/callReader.ts `LiveEdits`, sent by GET /dev/events; followed by src/client/dev/liveEdits.tsx).
 */
export interface LiveState {
  /** The good build the server runs: it grows with each good edit, and a page of an older one reloads. */
  version: number;
  /** The last edit's lint problems, as the lint prints them (`file:place: what — how to fix it`); empty when it was applied. */
  problems: string[];
}
