/**
 * The first step of `npm test`: brings what the tests need besides npm's packages (prerequisites.ts).
 * A piece missing from where Debian puts it is installed with apt-get where the machine allows it
 * (root, apt-get at hand, ONRAMP_TEST_INSTALL not `never`), said in one line. Each piece still
 * missing is then said in one line: its tests will be skipped, or, under CI=true, the run stops here.
 * A piece its setting hides (CHROMIUM_PATH=/nonexistent) is not installed: installing would not bring it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ciLine, missingPrerequisites, skippingLine, underCI } from './prerequisites.js';

const INSTALL_SETTING = 'ONRAMP_TEST_INSTALL';
const NEVER = 'never';

function aptGet(...args: string[]): void {
  execFileSync('apt-get', args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

function install(packages: string[]): void {
  console.log(`Installing Debian's ${packages.join(', ')} for the tests: apt-get install -y ${packages.join(' ')}`);
  try {
    aptGet('update', '-qq');
    aptGet('install', '-y', '-qq', ...packages);
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? error).trim();
    console.error(`✗ apt-get failed: ${stderr.split('\n').at(-1)}`);
  }
}

const installSetting = process.env[INSTALL_SETTING] ?? '';
if (installSetting !== '' && installSetting !== NEVER) {
  console.error(`✗ ${INSTALL_SETTING} is \`${NEVER}\` or unset, not \`${installSetting}\``);
  process.exit(1);
}
const canInstall =
  installSetting !== NEVER && process.getuid?.() === 0 && (process.env.PATH ?? '').split(delimiter).some((dir) => existsSync(join(dir, 'apt-get')));
const installable = missingPrerequisites().filter((piece) => !process.env[piece.setting]);
if (canInstall && installable.length > 0) install(installable.map((piece) => piece.aptPackage));

const missing = missingPrerequisites();
for (const piece of missing) {
  if (underCI) console.error(ciLine(piece));
  else console.log(skippingLine(piece));
}
if (underCI && missing.length > 0) process.exitCode = 1;
