// What the end-to-end test and the screenshot script share: scratch
// directories removed when the script ends (however it ends), a server
// started on a free port, and a headless Chromium with a fresh profile.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const scratchDirs = [];
process.on('exit', () => {
  for (const d of scratchDirs) rmSync(d, { recursive: true, force: true });
});

/** A new directory in the system's temporary directory, removed at exit. */
export function scratch(prefix) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(d);
  return d;
}

/**
 * Starts `endgame serve --port 0 ARGS…` (options passed to `spawn`, e.g.
 * `cwd`), stopped at exit; resolves to `{ url, server }` once it prints
 * the address it listens on.
 */
export async function serve(bin, args, options = {}) {
  const server = spawn(bin, ['serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'], ...options });
  process.on('exit', () => server.kill('SIGTERM'));
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    server.stdout.on('data', d => {
      buf += d;
      const m = buf.match(/listening on (http:\/\/\S+?)\/?\s/);
      if (m) resolve(m[1]);
    });
    server.on('exit', c => reject(new Error(`endgame serve exited with ${c}`)));
    setTimeout(() => reject(new Error('endgame serve did not start')), 15000);
  });
  return { url, server };
}

/** Headless Chromium with a fresh profile and `options` (viewport …). */
export function launch(options) {
  // Playwright passes the directory as --user-data-dir.
  return chromium.launchPersistentContext(scratch('endgame-chromium-'), {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    ...options,
  });
}
