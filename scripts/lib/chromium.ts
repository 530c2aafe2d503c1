/**
 * The e2e tests drive Debian's Chromium (never a downloaded browser build). Installs it from
 * Debian's packages when missing and this process may (root with apt-get).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, and nothing that reaches for the network: this machine has none but loopback. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Japanese glyphs for the screenshots the e2e tests keep (Debian's fonts-noto-cjk). */
const CJK_FONT = '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc';

export function ensureChromium(): void {
  const missing = [
    ...(existsSync(CHROMIUM_PATH) ? [] : ['chromium']),
    ...(existsSync(CJK_FONT) ? [] : ['fonts-noto-cjk']),
  ];
  if (missing.length === 0) return;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}. Install Debian's package: sudo apt-get install -y chromium fonts-noto-cjk`);
    console.warn('fonts-noto-cjk is not installed: Japanese text in screenshots shows as boxes (sudo apt-get install -y fonts-noto-cjk)');
    return;
  }
  console.log(`Installing ${missing.join(' and ')} from Debian packages…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
}
