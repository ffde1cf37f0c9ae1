// `npm start`: everything local with embedded defaults and no accounts: the Firebase Auth
// emulator, then the server (API + the built app on one origin, PGlite in .data/).
// `npm run dev` (`--watch`): the same, following edits of schemas/ and flows/ (dev.ts).
import { LOCAL_AUTH_EMULATOR_HOST } from '../server/config.js';
import { startAuthEmulator } from './authEmulator.js';

console.log('Starting the Firebase Auth emulator (about 15 s)…');
const emulator = await startAuthEmulator({ quiet: true });
process.env.FIREBASE_AUTH_EMULATOR_HOST ??= LOCAL_AUTH_EMULATOR_HOST;

const stop = async () => {
  await emulator.stop();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

// Before the server's modules load, so that traces, when asked for, follow them (server/tracing.ts).
await import('../server/tracing.js');
if (process.argv.includes('--watch')) await (await import('./dev.js')).startDev();
else await (await import('../server/main.js')).startServer();
