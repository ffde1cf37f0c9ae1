/**
 * A production install as an operator makes it: the built server and web app, the files it reads
 * (schemas/, flows/) and the lock file, with only the packages the server runs (`npm ci
 * --omit=dev`). The test of it and `npm run bench` (which prints its size) make one in a folder of
 * their own, from the npm cache the project's own install filled.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CONTENT_FOLDERS, PROJECT_ROOT } from '../src/node/projectFiles.js';

/** What a production machine needs of the project, once `npm run build` ran (build/ssr: the server's drawing of the steps). */
export const PRODUCTION_FILES = ['package.json', 'package-lock.json', 'build/server', 'build/ssr', 'dist', ...CONTENT_FOLDERS];

export interface ProductionInstall {
  /** Packages in node_modules (each package.json under it, nested ones included). */
  packages: number;
  /** Bytes on disk of node_modules. */
  bytes: number;
}

function sizeOf(path: string): { bytes: number; packages: number } {
  let bytes = 0;
  let packages = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) {
      const inner = sizeOf(child);
      bytes += inner.bytes;
      packages += inner.packages;
    } else if (entry.isFile()) {
      bytes += statSync(child).size;
      if (entry.name === 'package.json') packages += 1;
    }
  }
  return { bytes, packages };
}

export function installProduction(target: string): ProductionInstall {
  for (const file of PRODUCTION_FILES) {
    const from = join(PROJECT_ROOT, file);
    if (!existsSync(from)) throw new Error(`${file} is missing: run \`npm run build\` first.`);
    cpSync(from, join(target, file), { recursive: true });
  }
  // No install scripts: the server's packages need none (sharp's binary is a package of its own).
  execFileSync('npm', ['ci', '--omit=dev', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: target,
    stdio: 'pipe',
  });
  return sizeOf(join(target, 'node_modules'));
}
