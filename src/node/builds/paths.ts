/** Where the build reads the client's code and writes what it makes beside dist/. */
import { join } from 'node:path';
import { CONTENT_ROOT, PROJECT_ROOT } from '../projectFiles.js';

export const CLIENT = join(PROJECT_ROOT, 'src', 'client');
/** The client's entry: the app. */
export const CLIENT_ENTRY = join(CLIENT, 'app', 'main.tsx');
export const GENERATED = join(CONTENT_ROOT, 'build', 'generated');
export const METAFILE = join(CONTENT_ROOT, 'build', 'metafile.json');
