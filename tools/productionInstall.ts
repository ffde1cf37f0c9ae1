/**
 * A production install as an operator makes it: the built server and web app, the files it reads
 * (schemas/, flows/) and the lock file, with only the packages the server runs: the tree `npm ci
 * --omit=dev` lays out from the lock file. The test of it and `npm run bench` (which prints its
 * size) make one in a folder of their own.
 */
import { copyFileSync, cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync } from 'node:fs';
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
  linkProductionPackages(target);
  return sizeOf(join(target, 'node_modules'));
}

/**
 * Every package the lock file does not mark dev, at the place it gives it: the tree `npm ci
 * --omit=dev` extracts, taken from the project's own node_modules (laid out from the same lock
 * file) rather than extracted again, which cost 20 CPU-seconds a test run. Files are hard-linked
 * where the two folders share a disk. A package of another platform's (an optional one, such as
 * sharp's binaries) is in neither.
 */
function linkProductionPackages(target: string): void {
  const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev) continue;
    const from = join(PROJECT_ROOT, path);
    if (existsSync(from)) linkTree(from, join(target, path));
  }
}

/** A package's files under `to`, but its own node_modules: the packages nested there are the lock file's entries of their own. */
function linkTree(from: string, to: string, packageRoot = true): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const copy = join(to, entry.name);
    if (entry.isDirectory()) {
      if (!(packageRoot && entry.name === 'node_modules')) linkTree(source, copy, false);
    } else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), copy);
    else {
      try {
        linkSync(source, copy);
      } catch {
        copyFileSync(source, copy);
      }
    }
  }
}
