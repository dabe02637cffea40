// The README's screenshots: starts `endgame serve` (with a small lab store
// made by `endgame lab run`), opens each game with its hints shown and the
// lab page, and saves one PNG each (940×660, each under 150 KB) into docs/screenshots/.
// Run through scripts/screenshots.sh (the e2e test's Chromium set-up).
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, scratch, serve } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.ENDGAME_BIN || join(here, '../../../target/release/endgame');
const out = process.env.SCREENSHOT_DIR || join(here, '../../../docs/screenshots');
mkdirSync(out, { recursive: true });

const labDb = join(scratch('endgame-shots-lab-'), 'lab.db');
for (const args of [['peg-single-vacancy', '--param', 'board=triangle'], ['calibration', '--param', 'units=40']]) {
  const r = spawnSync(bin, ['lab', 'run', ...args, '--quiet', '--db', labDb], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`endgame lab run ${args[0]} failed`);
}
const { url: base, server } = await serve(bin, ['--db', labDb, '--no-build-tables']);
const browser = await launch({ viewport: { width: 940, height: 660 }, deviceScaleFactor: 1 });
const page = await browser.newPage();
async function settled() {
  await page.waitForFunction(() => document.getElementById('board').dataset.busy === '0' && document.getAnimations().length === 0, null, { timeout: 60000 });
  await page.waitForTimeout(200);
}
// Each PNG stays under 150,000 bytes (the README's budget).
let tooBig = 0;
function report(file) {
  const size = statSync(file).size;
  console.log(`${file}: ${size} bytes`);
  if (size >= 150000) { console.error(`${file} is over 150,000 bytes`); tooBig++; }
}
const shots = [
  ['peg', '/play?game=peg&board=english&moves=d2-d4,f3-d3,e1-e3', 'g.hintmark[data-colour]'],
  ['sim', '/play?game=sim&n=6&moves=ab,cd,ef,ac', 'g.hintmark[data-colour]'],
  ['pentago', '/play?game=pentago&moves=' + encodeURIComponent('a1 ur cw,a4 ur cw,b1 ur cw,b4 ur cw,c1 ur cw,f6 ur cw,d1 ur cw'), 'g.hintmark[data-colour]'],
  ['martello', '/play?game=martello&n=4&seed=1', 'line.hint[data-colour]'],
];
for (const [name, path, hint] of shots) {
  await page.goto(base + path);
  await settled();
  await page.waitForSelector(hint, { state: 'attached', timeout: 60000 });
  await settled();
  // The value history filled in, the page at its top.
  await page.waitForFunction(() => document.getElementById('spinner').hidden, null, { timeout: 60000 });
  await page.evaluate(() => scrollTo(0, 0));
  await page.waitForTimeout(200);
  const file = join(out, `${name}.png`);
  await page.screenshot({ path: file });
  report(file);
}
// The lab: a single-vacancy run's report, in place.
await page.goto(base + '/lab?run=1');
await page.waitForSelector('[data-report] a[data-position]');
await page.waitForFunction(() => [...document.querySelectorAll('img.plot')].every(i => i.complete && i.naturalWidth > 0));
await page.evaluate(() => document.querySelector('[data-report]').scrollIntoView({ block: 'start' }));
const lab = join(out, 'lab.png');
await page.screenshot({ path: lab });
report(lab);
// The start page.
await page.goto(base + '/');
await page.waitForFunction(() => document.querySelectorAll('svg.thumb[data-drawn="1"]').length === 4);
const start = join(out, 'start.png');
await page.screenshot({ path: start });
report(start);
await browser.close();
server.kill('SIGTERM');
process.exit(tooBig ? 1 : 0);
