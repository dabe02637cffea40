// End-to-end test of the workbench in headless Chromium (playwright-core):
// starts `endgame serve` on a free port, plays each game, checks that hint
// colours change, undo, a shared URL, a solution stepped through, and a
// few moves against the Pentago AI. Screenshots go to ./output/.
import { chromium } from 'playwright-core';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.ENDGAME_BIN || join(here, '../../../target/release/endgame');
const out = join(here, 'output');
mkdirSync(out, { recursive: true });

// A lab store filled by the lab itself, for the lab page.
const labDb = join(mkdtempSync(join(tmpdir(), 'endgame-e2e-lab-')), 'lab.db');
const lab = spawnSync(bin, ['lab', 'run', 'calibration', '--param', 'units=12', '--quiet', '--db', labDb], { stdio: ['ignore', 'ignore', 'inherit'] });
if (lab.status !== 0) throw new Error('endgame lab run failed');

// Start the server on port 0 and read the port it prints.
const server = spawn(bin, ['serve', '--port', '0', '--db', labDb, '--no-build-tables'], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise((resolve, reject) => {
  let buf = '';
  server.stdout.on('data', d => {
    buf += d;
    const m = buf.match(/listening on (http:\/\/\S+?)\/?\s/);
    if (m) resolve(m[1]);
  });
  server.on('exit', c => reject(new Error(`endgame serve exited with ${c}`)));
  setTimeout(() => reject(new Error('endgame serve did not start')), 15000);
});
console.log(`server at ${base}`);

process.on('exit', () => server.kill('SIGTERM'));
// A fresh profile directory (playwright passes it as --user-data-dir).
const browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'endgame-chromium-')), {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1100, height: 760 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let failures = 0;
const page = await browser.newPage();
page.on('pageerror', e => { console.error(`page error: ${e.message}`); failures++; });

// Waits until the page has drawn the board with its hints for the current position.
async function settled() {
  await page.waitForFunction(() => document.getElementById('board').dataset.busy === '0' && document.getAnimations().length === 0);
  await page.waitForTimeout(150);
}
async function colours(sel) {
  return page.$$eval('#board ' + sel, els => els.map(e => `${e.dataset.move || e.dataset.hint}:${e.dataset.colour}`).sort().join(' '));
}
async function step(name, f) {
  try { await f(); console.log(`ok   ${name}`); }
  catch (e) { failures++; console.error(`FAIL ${name}: ${e.message}`); await page.screenshot({ path: join(out, `fail-${name}.png`) }).catch(() => {}); }
}

await step('start page lists the four games', async () => {
  await page.goto(base + '/');
  const games = await page.$$eval('[data-game]', els => els.map(e => e.dataset.game));
  assert.deepEqual(games, ['peg', 'sim', 'pentago', 'martello']);
  await page.waitForFunction(() => document.querySelectorAll('#peg-board option').length >= 5);
  await page.screenshot({ path: join(out, 'start.png'), fullPage: true });
});

await step('peg: click-to-jump, hints change, undo, shared URL, solution', async () => {
  await page.goto(base + '/play?game=peg&board=english');
  await settled();
  await page.waitForSelector('line.hint[data-colour]', { state: 'attached' });
  const before = await colours('line.hint');
  assert.equal((await page.$$('line.hint')).length, 4);
  // Click the peg d2, then its landing hole d4.
  await page.click('[data-peg="d2"]');
  await page.click('[data-target="d4"]');
  await settled();
  await page.waitForSelector('line.hint[data-move="b3-d3"]', { state: 'attached' });
  const after = await colours('line.hint');
  assert.notEqual(before, after);
  assert.match(page.url(), /moves=d2-d4/);
  assert.equal(await page.$$eval('#moves li', l => l.length), 1);
  const shared = page.url();
  // A losing jump exists on the English board after a few moves? At least the colours are SPEC colours.
  for (const c of (await colours('line.hint')).split(' ')) assert.match(c, /:(green|red|blue)$/);
  await page.screenshot({ path: join(out, 'peg.png') });
  await page.click('#undo');
  await settled();
  await page.waitForFunction(() => document.querySelectorAll('line.hint').length === 4);
  assert.doesNotMatch(page.url(), /moves=/);
  // The shared URL opens the same position in a fresh page.
  const p2 = await browser.newPage();
  await p2.goto(shared);
  await p2.waitForSelector('#moves li', { state: 'attached' });
  assert.equal(await p2.$eval('#moves li', li => li.textContent), 'd2-d4');
  assert.equal(await p2.$$eval('[data-peg]', l => l.length), 31);
  await p2.close();
  // Triangle: load a solution and step through it with Redo.
  await page.goto(base + '/play?game=peg&board=triangle');
  await settled();
  await page.click('#solution');
  await page.waitForFunction(() => /loaded/.test(document.getElementById('status').textContent));
  for (let i = 0; i < 13; i++) { await page.click('#redo'); await settled(); }
  await page.waitForFunction(() => /Solved/.test(document.getElementById('status').textContent));
  assert.equal(await page.$$eval('[data-peg]', l => l.length), 1);
  await page.click('#undo'); await settled();
  assert.equal(await page.$$eval('[data-peg]', l => l.length), 2);
  await page.screenshot({ path: join(out, 'peg-triangle.png') });
});

await step('peg: an unsolvable board shows yellow and red hints with the best result', async () => {
  await page.goto(base + '/play?game=peg&art=oooo./ooo.o/o.ooo');
  await settled();
  await page.waitForSelector('line.hint[data-colour="yellow"]', { state: 'attached' });
  const c = await colours('line.hint');
  assert.match(c, /:red/);
  const title = await page.$eval('line.hint[data-colour="yellow"] title', t => t.textContent);
  assert.match(title, /unsolvable; 2 peg\(s\) at best/);
  assert.match(await page.$eval('#value', e => e.textContent), /at best 2 peg/);
  await page.screenshot({ path: join(out, 'peg-yellow.png') });
});

await step('sim: segments, hints, the perfect AI replies, undo', async () => {
  await page.goto(base + '/play?game=sim&n=6&ai=blue');
  await settled();
  await page.waitForSelector('#board circle.dot[data-colour]', { state: 'attached' });
  // K6 is a second-player win: every first move is red.
  const first = await colours('circle.dot');
  assert.ok(first.split(' ').every(c => c.endsWith(':red')), first);
  await page.dispatchEvent('line.seg.hit[data-move="ab"]', 'click');
  // The AI (blue) answers; then it is red's turn again.
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 2);
  await settled();
  assert.equal(await page.$$eval('line.seg.red', l => l.length), 1);
  assert.equal(await page.$$eval('line.seg.blue', l => l.length), 1);
  await page.waitForSelector('#board circle.dot[data-colour]', { state: 'attached' });
  await page.screenshot({ path: join(out, 'sim.png') });
  await page.click('#undo');
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 0);
  await settled();
  assert.equal(await page.$$eval('line.seg.red', l => l.length), 0);
});

await step('sim without AI: hint colours change after a move', async () => {
  await page.goto(base + '/play?game=sim&n=6');
  await settled();
  await page.waitForSelector('#board circle.dot[data-colour]', { state: 'attached' });
  // The value-history chart: the start, a loss for red (red moves first).
  await page.waitForFunction(() => document.getElementById('chart').dataset.points === '1');
  assert.equal(await page.$eval('#chart circle.dot[data-index="0"]', e => e.dataset.colour), 'red');
  await page.dispatchEvent('line.seg.hit[data-move="ab"]', 'click');
  await settled();
  await page.waitForSelector('#board circle.dot[data-colour="green"]', { state: 'attached' });
  const c = await colours('circle.dot');
  assert.ok(c.split(' ').every(x => x.endsWith(':green')), c);
  // … and after the move a second point: a win for blue, to move.
  await page.waitForFunction(() => document.getElementById('chart').dataset.points === '2');
  assert.equal(await page.$eval('#chart circle.dot[data-index="1"]', e => e.dataset.colour), 'green');
  await page.screenshot({ path: join(out, 'sim-chart.png') });
  // Hiding the hints hides the chart too.
  await page.click('#hints');
  await page.waitForFunction(() => document.getElementById('history').classList.contains('hidden'));
  assert.match(page.url(), /hints=0/);
  assert.equal(await page.$$eval('#board circle.dot', l => l.length), 0);
});

await step('chart: a shared URL fills in the history of its line', async () => {
  await page.goto(base + '/play?game=sim&n=6&moves=ab,ac,bc');
  await settled();
  await page.waitForFunction(() => document.getElementById('chart').dataset.points === '4', null, { timeout: 15000 });
  // Click the first point: back to the start, the moves kept for Redo.
  await page.dispatchEvent('#chart circle.dot[data-index="0"]', 'click');
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 0);
  await page.click('#redo');
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 1);
});

await step('pentago: place then rotate, the AI answers', async () => {
  await page.goto(base + '/play?game=pentago&ai=white&strength=strong');
  await settled();
  await page.click('[data-cell="b2"]');
  await page.waitForSelector('path.arrow[data-move="ur cw"]', { state: 'attached' });
  await settled();
  await page.screenshot({ path: join(out, 'pentago-rotate.png') });
  await page.dispatchEvent('path.arrow[data-move="ur cw"]', 'click');
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 2, null, { timeout: 20000 });
  await settled();
  assert.equal(await page.$$eval('circle.stone.b', l => l.length), 1);
  assert.equal(await page.$$eval('circle.stone.w', l => l.length), 1);
  // A second move against the AI.
  const empty = await page.$$eval('circle.cell', els => els.map(e => e.dataset.cell));
  const stones = await page.$$eval('circle.stone', els => els.map(e => e.dataset.stone));
  const cell = empty.find(c => !stones.includes(c));
  await page.click(`[data-cell="${cell}"]`);
  await page.waitForSelector('path.arrow[data-move="ll ccw"]', { state: 'attached' });
  await page.dispatchEvent('path.arrow[data-move="ll ccw"]', 'click');
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 4, null, { timeout: 20000 });
  await settled();
  await page.screenshot({ path: join(out, 'pentago.png') });
});

await step('pentago: late position shows decided hint colours', async () => {
  await page.goto(base + '/play?game=pentago&start=205481007622539795m');
  await settled();
  await page.waitForSelector('path.arrow[data-colour="green"]', { state: 'attached' });
  await page.screenshot({ path: join(out, 'pentago-late.png') });
  // A solution from a rotation due: its first step is the rotation alone.
  await page.click('#solution');
  await page.waitForFunction(() => /loaded/.test(document.getElementById('status').textContent), null, { timeout: 15000 });
  await page.click('#redo');
  await settled();
  await page.waitForFunction(() => /white wins/.test(document.getElementById('status').textContent));
});

await step('pentago: think longer streams its rounds and stops on leaving', async () => {
  // The empty board is undecided within the hint's budget: the button
  // shows, and the first round (twice the hint's time) redraws the hints.
  await page.goto(base + '/play?game=pentago');
  await settled();
  await page.waitForSelector('#think:not([hidden])');
  await page.click('#think');
  assert.ok(await page.$eval('#think', b => b.disabled));
  await page.waitForFunction(() => /thinking longer: round 1 of 2/.test(document.getElementById('status').textContent),
    null, { timeout: 20000 });
  await page.screenshot({ path: join(out, 'pentago-think.png') });
  // Leaving the page closes the stream; the server gives its permit back.
  await page.goto(base + '/');
  const t0 = Date.now();
  for (;;) {
    const s = await (await fetch(base + '/api/status')).json();
    if (s.running === 0) break;
    assert.ok(Date.now() - t0 < 5000, 'the think request still runs after the page left');
    await new Promise(ok => setTimeout(ok, 100));
  }
});

await step('martello: eater then eaten, hint arrows, undo', async () => {
  await page.goto(base + '/play?game=martello&n=4&seed=1');
  await settled();
  await page.waitForSelector('line.hint[data-colour]', { state: 'attached' });
  const before = await colours('line.hint');
  const n0 = await page.$$eval('[data-stone]', l => l.length);
  // Play the first green hint by clicking its eater then its eaten stone.
  const h = await page.evaluate(async () => {
    const r = await fetch('/api/martello/hints?n=4&seed=1').then(r => r.json());
    const g = r.moves.find(h => h.colour === 'green');
    const eat = g.real_moves.find(m => m.kind === 'eat');
    return [eat.stone, eat.eaten];
  });
  await page.click(`circle[data-stone="${h[0]}"]`);
  await page.click(`circle[data-stone="${h[1]}"]`);
  await page.waitForFunction(n => document.querySelectorAll('[data-stone]').length === n - 1, n0);
  await settled();
  await page.waitForSelector('line.hint[data-colour]', { state: 'attached' });
  assert.notEqual(await colours('line.hint'), before);
  await page.screenshot({ path: join(out, 'martello.png') });
  await page.click('#undo');
  await page.waitForFunction(n => document.querySelectorAll('[data-stone]').length === n, n0);
});

await step('pentago: show me a solution, stepped forward and back', async () => {
  // 19 moves in, white to move and win (the exact solver's line).
  await page.goto(base + '/play?game=pentago&start=1846827025685889289');
  await settled();
  await page.click('#solution');
  await page.waitForFunction(() => /loaded/.test(document.getElementById('status').textContent), null, { timeout: 15000 });
  const line = await page.evaluate(() => document.getElementById('value').textContent);
  let steps = 0;
  while (!(await page.$eval('#status', e => /Game over/.test(e.textContent)))) {
    assert.ok(steps++ < 8, 'the line did not end the game');
    await page.click('#redo');
    await settled();
  }
  assert.match(await page.$eval('#status', e => e.textContent), /white wins/);
  await page.screenshot({ path: join(out, 'pentago-solution.png') });
  await page.click('#undo');
  await settled();
  assert.doesNotMatch(await page.$eval('#status', e => e.textContent), /Game over/);
  assert.equal(await page.$$eval('#moves li', l => l.length), steps - 1, line);
});

await step('martello: drag a stone onto the stone it eats', async () => {
  await page.goto(base + '/play?game=martello&n=4&seed=2');
  await settled();
  await page.waitForSelector('line.hint[data-colour]', { state: 'attached' });
  const n0 = await page.$$eval('[data-stone]', l => l.length);
  const [a, b] = await page.$eval('line.hint', l => [l.dataset.eater, l.dataset.eaten]);
  const box = async id => { const r = await page.$eval(`circle[data-stone="${id}"]`, e => { const b = e.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; }); return r; };
  const [x1, y1] = await box(a), [x2, y2] = await box(b);
  await page.mouse.move(x1, y1);
  await page.mouse.down();
  await page.mouse.move((x1 + x2) / 2, (y1 + y2) / 2, { steps: 5 });
  await page.mouse.move(x2, y2, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(n => document.querySelectorAll('[data-stone]').length === n - 1, n0);
  assert.equal(await page.$$eval('#moves li', l => l.length), 1);
  await settled();
  // The slides end with every stone in its own cell (no stone left astray).
  await page.waitForFunction(() => document.getAnimations().length === 0);
  const astray = await page.$$eval('g.mgroup', gs => gs.filter(g => {
    const c = g.querySelector('circle').getBoundingClientRect(), t = g.querySelector('text').getBoundingClientRect();
    const m = g.querySelector('circle').getCTM();
    return Math.abs(m.e) > 0.5 || Math.abs(m.f) > 0.5 || Math.abs((c.x + c.width / 2) - (t.x + t.width / 2)) > 2;
  }).length);
  assert.equal(astray, 0);
  await page.screenshot({ path: join(out, 'martello-drag.png') });
});

await step('martello: two stones that can eat each other show two arrows', async () => {
  await page.goto(base + '/play?game=martello&n=4&seed=1');
  await settled();
  await page.waitForSelector('line.hint[data-colour]', { state: 'attached' });
  const pairs = await page.$$eval('line.hint', ls => ls.map(l => [l.dataset.eater, l.dataset.eaten, l.getAttribute('x1'), l.getAttribute('y1')]));
  const both = pairs.filter(([a, b]) => pairs.some(([c, d]) => c === b && d === a));
  assert.ok(both.length >= 2, JSON.stringify(pairs));
  const [a, b, x, y] = both[0];
  const back = both.find(([c, d]) => c === b && d === a);
  assert.ok(back[2] !== x || back[3] !== y, 'the two arrows overlap');
});

await step('lab page: experiments, a run with its tables and plots', async () => {
  await page.goto(base + '/lab');
  await page.waitForSelector('[data-experiment="calibration"] a[data-run]');
  const names = await page.$$eval('[data-experiment]', l => l.map(e => e.dataset.experiment));
  assert.ok(names.includes('calibration') && names.length >= 5, names.join(' '));
  await page.click('[data-experiment="calibration"] a[data-run]');
  await page.waitForSelector('[data-report] table.data');
  await page.waitForFunction(() => [...document.querySelectorAll('img.plot')].every(i => i.complete && i.naturalWidth > 0) && document.querySelectorAll('img.plot').length > 0);
  assert.match(page.url(), /\/lab\?run=\d+/);
  await page.screenshot({ path: join(out, 'lab.png'), fullPage: true });
});

await step('start page links the lab', async () => {
  await page.goto(base + '/');
  await page.click('a[href="/lab"]');
  await page.waitForSelector('[data-experiment]');
});

await browser.close();
server.kill('SIGTERM');
console.log(failures ? `${failures} failure(s)` : 'all end-to-end checks passed');
process.exit(failures ? 1 : 0);
