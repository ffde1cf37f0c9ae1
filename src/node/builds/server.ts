import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { PROJECT_ROOT } from '../projectFiles.js';

/**
 * The server as one ES module for plain node (build/server/main.mjs) and what loads before it
 * (tracing.mjs), with its SQL migrations beside them.
 */
const SERVER_BUILD = join(PROJECT_ROOT, 'build', 'server');

export async function buildServer(): Promise<void> {
  await rm(SERVER_BUILD, { recursive: true, force: true });
  await esbuild.build({
    // tracing.mjs is loaded before main.mjs (`node --import`): it must start before the modules it follows load.
    entryPoints: [join(PROJECT_ROOT, 'src', 'server', 'main.ts'), join(PROJECT_ROOT, 'src', 'server', 'tracing.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Packages are installed in production (npm ci --omit=dev); only our own code is bundled.
    packages: 'external',
    outdir: SERVER_BUILD,
    outExtension: { '.js': '.mjs' },
    sourcemap: true,
    logLevel: 'warning',
  });
  // db.ts reads its migrations beside itself; two levels up from here is the project, whose
  // schemas/ and flows/ the server reads as it does from src/server (projectFiles.ts).
  await cp(join(PROJECT_ROOT, 'src', 'server', 'db', 'migrations'), join(SERVER_BUILD, 'migrations'), { recursive: true });
}
