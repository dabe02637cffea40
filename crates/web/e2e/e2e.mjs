// End-to-end test of the workbench in headless Chromium (playwright-core):
// starts `endgame serve` on a free port, plays each game, checks that hint
// colours change, undo, a shared URL, a solution stepped through, and a
// few moves against the Pentago AI; then the readability checks (hint
// colours never a piece's, coordinates, the last move marked, the chart's
// unknown points off the value lines, Back = undo, bad links) at 1280×900
// and at phone size (390×844). Screenshots go to ./output/.
// ENDGAME_UI_DIR=crates/web/ui serves the page files from that directory
// instead of the binary's (to work on the UI without rebuilding).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { launch, scratch, serve } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.ENDGAME_BIN || join(here, '../../../target/release/endgame');
const out = join(here, 'output');
mkdirSync(out, { recursive: true });

// A lab store filled by the lab itself, for the lab page.
const labDb = join(scratch('endgame-e2e-lab-'), 'lab.db');
const lab = spawnSync(bin, ['lab', 'run', 'calibration', '--param', 'units=12', '--quiet', '--db', labDb], { stdio: ['ignore', 'ignore', 'inherit'] });
if (lab.status !== 0) throw new Error('endgame lab run failed');

// The server on port 0, at the address it prints.
const { url: base, server } = await serve(bin, ['--db', labDb, '--no-build-tables']);
console.log(`server at ${base}`);

const browser = await launch({ viewport: { width: 1280, height: 900 } });
let failures = 0;
const uiDir = process.env.ENDGAME_UI_DIR;
if (uiDir) {
  const type = n => n.endsWith('.js') ? 'text/javascript' : n.endsWith('.css') ? 'text/css' : 'text/html';
  await browser.route(/\/ui\/[\w.]+$/, r => { const n = new URL(r.request().url()).pathname.split('/').pop(); r.fulfill({ body: readFileSync(join(uiDir, n)), contentType: type(n) }); });
  await browser.route(/\/play(\?|$)/, r => r.fulfill({ body: readFileSync(join(uiDir, 'play.html')), contentType: 'text/html' }));
  const page0 = { '/': 'index.html', '/lab': 'lab.html' };
  await browser.route(u => page0[u.pathname] !== undefined && !u.pathname.startsWith('/api'), r => r.fulfill({ body: readFileSync(join(uiDir, page0[new URL(r.request().url()).pathname])), contentType: 'text/html' }));
}
const page = await browser.newPage();
page.on('pageerror', e => { console.error(`page error: ${e.message}`); failures++; });
// Console errors of the page's scripts (a failed request's own line,
// "Failed to load resource", is the browser's, not a script error: a bad
// link's 400 answers are expected).
const consoleErrors = [];
page.on('console', m => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) { consoleErrors.push(m.text()); console.error(`console error: ${m.text()}`); failures++; } });
const played = () => page.$$eval('#moves li:not(.future)', l => l.length);

// Waits until the page has drawn the board with its hints for the current position.
async function settled() {
  await page.waitForFunction(() => document.getElementById('board').dataset.busy === '0' && document.getAnimations().length === 0);
  await page.waitForTimeout(150);
}
async function colours(sel) {
  return page.$$eval('#board ' + sel, els => els.map(e => `${e.dataset.move || e.dataset.hint}:${e.dataset.colour}`).sort().join(' '));
}
// E2E_ONLY=regex runs only the steps whose names match (when working on them).
const only = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : null;
async function step(name, f) {
  if (only && !only.test(name)) return;
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

await step('start page: a board picture per game, finger-sized controls, no empty settings', async () => {
  for (const [vw, vh] of [[390, 844], [1280, 900]]) {
    await page.setViewportSize({ width: vw, height: vh });
    await page.goto(base + '/');
    await page.waitForFunction(() => document.querySelectorAll('svg.thumb[data-drawn="1"]').length === 4);
    // Drawn by the player's own code: Sim's segments, Pentago's stones, pegs, Martello's stones.
    const parts = await page.evaluate(() => ['peg .peg', 'sim line.seg', 'pentago .stone', 'martello .mstone']
      .map(q => { const [g, sel] = q.split(' '); return document.querySelectorAll(`svg[data-thumb="${g}"] ${sel}`).length; }));
    assert.ok(parts.every(n => n > 0), `thumbnail parts ${parts}`);
    // Every thumbnail fits its card; every control is at least 40 px high.
    const small = await page.$$eval('.card select, .card button, .card input:not([type=checkbox]):not([type=hidden]), .card a.big',
      l => l.map(e => [e.tagName, e.getBoundingClientRect().height]).filter(([, hgt]) => hgt < 40));
    assert.deepEqual(small, [], 'controls too small to hit');
    const wide = await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1);
    assert.ok(wide, 'the start page scrolls sideways');
    if (vw === 390) await page.screenshot({ path: join(out, 'start-390.png'), fullPage: true });
  }
  // Sim with nobody playing: no `ai=` (nor a strength) in the link.
  await page.selectOption('[data-game="sim"] select[name="ai"]', '');
  await Promise.all([page.waitForURL(/\/play\?/), page.click('[data-game="sim"] button')]);
  assert.doesNotMatch(page.url(), /ai=|strength=/);
  assert.match(page.url(), /game=sim&n=6/);
  await settled();
  await page.goto(base + '/');
  await page.selectOption('[data-game="pentago"] select[name="ai"]', 'white');
  await Promise.all([page.waitForURL(/\/play\?/), page.click('[data-game="pentago"] button')]);
  assert.match(page.url(), /ai=white&strength=strong/);
  await settled();
});

await step('peg: click-to-jump, hints change, undo, shared URL, solution', async () => {
  await page.goto(base + '/play?game=peg&board=english');
  await settled();
  await page.waitForSelector('path.hint[data-colour]', { state: 'attached' });
  const before = await colours('path.hint');
  assert.equal((await page.$$('path.hint')).length, 4);
  // Click the peg d2, then its landing hole d4.
  await page.click('[data-peg="d2"]');
  await page.click('[data-target="d4"]');
  await settled();
  await page.waitForSelector('path.hint[data-move="b3-d3"]', { state: 'attached' });
  const after = await colours('path.hint');
  assert.notEqual(before, after);
  assert.match(page.url(), /moves=d2-d4/);
  assert.equal(await page.$$eval('#moves li', l => l.length), 1);
  const shared = page.url();
  // A losing jump exists on the English board after a few moves? At least
  // the colours are the move colours of docs/README.md.
  for (const c of (await colours('path.hint')).split(' ')) assert.match(c, /:(green|red|blue)$/);
  await page.screenshot({ path: join(out, 'peg.png') });
  await page.click('#undo');
  await settled();
  await page.waitForFunction(() => document.querySelectorAll('path.hint').length === 4);
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
  await page.waitForSelector('path.hint[data-colour="yellow"]', { state: 'attached' });
  const c = await colours('path.hint');
  assert.match(c, /:red/);
  const title = await page.$eval('path.hint[data-colour="yellow"] title', t => t.textContent);
  assert.match(title, /unsolvable; 2 peg\(s\) at best/);
  assert.match(await page.$eval('#value', e => e.textContent), /at best 2 peg/);
  await page.screenshot({ path: join(out, 'peg-yellow.png') });
});

await step('sim: segments, hints, the perfect AI replies, undo', async () => {
  await page.goto(base + '/play?game=sim&n=6&ai=blue');
  await settled();
  await page.waitForSelector('#board g.hintmark[data-colour]', { state: 'attached' });
  // K6 is a second-player win: every first move is red.
  const first = await colours('g.hintmark');
  assert.ok(first.split(' ').every(c => c.endsWith(':red')), first);
  await page.dispatchEvent('line.seg.hit[data-move="ab"]', 'click');
  // The AI (blue) answers; then it is red's turn again.
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 2);
  await settled();
  assert.equal(await page.$$eval('line.seg.red', l => l.length), 1);
  assert.equal(await page.$$eval('line.seg.blue', l => l.length), 1);
  await page.waitForSelector('#board g.hintmark[data-colour]', { state: 'attached' });
  await page.screenshot({ path: join(out, 'sim.png') });
  await page.click('#undo');
  await page.waitForFunction(() => document.querySelectorAll('#moves li:not(.future)').length === 0);
  await settled();
  assert.equal(await page.$$eval('line.seg.red', l => l.length), 0);
});

await step('sim without AI: hint colours change after a move', async () => {
  await page.goto(base + '/play?game=sim&n=6');
  await settled();
  await page.waitForSelector('#board g.hintmark[data-colour]', { state: 'attached' });
  // The value-history chart: the start, a loss for red (red moves first).
  await page.waitForFunction(() => document.getElementById('chart').dataset.points === '1');
  assert.equal(await page.$eval('#chart circle.dot[data-index="0"]', e => e.dataset.colour), 'red');
  await page.dispatchEvent('line.seg.hit[data-move="ab"]', 'click');
  await settled();
  await page.waitForSelector('#board g.hintmark[data-colour="green"]', { state: 'attached' });
  const c = await colours('g.hintmark');
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
  await page.waitForFunction(() => document.querySelectorAll('#moves li:not(.future)').length === 0);
  await page.click('#redo');
  await page.waitForFunction(() => document.querySelectorAll('#moves li:not(.future)').length === 1);
});

await step('pentago: place then rotate, the AI answers', async () => {
  await page.goto(base + '/play?game=pentago&ai=white&strength=strong');
  await settled();
  await page.click('[data-cell="b2"]');
  await page.waitForSelector('g.rot[data-move="ur cw"]', { state: 'attached' });
  await settled();
  await page.screenshot({ path: join(out, 'pentago-rotate.png') });
  await page.dispatchEvent('g.rot[data-move="ur cw"]', 'click');
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 2, null, { timeout: 20000 });
  await settled();
  // The turns played out on the board (ours, then the AI's).
  const turn = await page.$eval('#board', e => e.dataset.turn || '');
  assert.match(turn, /^(ll|ul|lr|ur) (cw|ccw)$/, `no turn animated: '${turn}'`);
  assert.equal(await page.$$eval('circle.stone.b', l => l.length), 1);
  assert.equal(await page.$$eval('circle.stone.w', l => l.length), 1);
  // A second move against the AI.
  const empty = await page.$$eval('circle.cell', els => els.map(e => e.dataset.cell));
  const stones = await page.$$eval('circle.stone', els => els.map(e => e.dataset.stone));
  const cell = empty.find(c => !stones.includes(c));
  await page.click(`[data-cell="${cell}"]`);
  await page.waitForSelector('g.rot[data-move="ll ccw"]', { state: 'attached' });
  await page.dispatchEvent('g.rot[data-move="ll ccw"]', 'click');
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 4, null, { timeout: 20000 });
  await settled();
  await page.screenshot({ path: join(out, 'pentago.png') });
});

await step('pentago: late position shows decided hint colours', async () => {
  await page.goto(base + '/play?game=pentago&start=205481007622539795m');
  await settled();
  await page.waitForSelector('g.rot[data-colour="green"]', { state: 'attached' });
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
  assert.equal(await played(), steps - 1, line);
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

await step('lab page: experiments, a run with its parameters as a table, the report in place', async () => {
  await page.goto(base + '/lab');
  await page.waitForSelector('[data-experiment="calibration"] a[data-run]');
  const names = await page.$$eval('[data-experiment]', l => l.map(e => e.dataset.experiment));
  assert.ok(names.includes('calibration') && names.length >= 9, names.join(' '));
  // Parameters as a table, not JSON.
  assert.equal(await page.$eval('[data-experiment="calibration"] table.params', t => t.rows.length), 5);
  assert.doesNotMatch(await page.$eval('[data-experiment="calibration"]', e => e.textContent), /\{"/);
  await page.click('[data-experiment="calibration"] a[data-run]');
  // The report opens inside its experiment's card, with its parameters' table.
  await page.waitForSelector('[data-experiment="calibration"] [data-report] table.data');
  assert.ok(await page.$('[data-experiment="calibration"] [data-report] table.params'));
  await page.waitForFunction(() => [...document.querySelectorAll('img.plot')].every(i => i.complete && i.naturalWidth > 0) && document.querySelectorAll('img.plot').length > 0);
  assert.match(page.url(), /\/lab\?run=\d+/);
  // It is in view (not at the bottom of a long page).
  const top = await page.$eval('[data-report]', e => e.getBoundingClientRect().top);
  assert.ok(top >= -1 && top < 200, `report at ${top}`);
  await page.screenshot({ path: join(out, 'lab.png'), fullPage: true });
});

await step('lab page: bad parameters are refused with the lab\'s message; a small run starts, shows progress, finishes', async () => {
  await page.goto(base + '/lab');
  await page.waitForSelector('[data-experiment="calibration"] form[data-start]', { state: 'attached' });
  const f = '[data-experiment="calibration"] form[data-start]';
  await page.click('[data-experiment="calibration"] details.start summary');
  // Too big for a web run, then malformed: the server's one-line 400s.
  await page.fill(`${f} input[name="units"]`, '5000');
  await page.click(`${f} button`);
  await page.waitForFunction(() => /at most 200/.test(document.querySelector('[data-experiment="calibration"] .startmsg.error')?.textContent || ''));
  await page.fill(`${f} input[name="units"]`, 'ten');
  await page.click(`${f} button`);
  await page.waitForFunction(() => /non-negative integer/.test(document.querySelector('[data-experiment="calibration"] .startmsg.error')?.textContent || ''));
  const r = await fetch(base + '/api/lab/runs', { method: 'POST', body: '{"experiment":"calibration","params":{"batch":0}}' });
  assert.equal(r.status, 400);
  assert.match(JSON.stringify(await r.json()), /^\{"error":"[^\n]+"\}$/);
  // A run of 40 units, seed 5: it appears with its progress and finishes.
  await page.fill(`${f} input[name="units"]`, '40');
  await page.fill(`${f} input[name="batch"]`, '4');
  await page.fill(`${f} input[name="seed"]`, '5');
  await page.click(`${f} button`);
  await page.waitForSelector('[data-experiment="calibration"] [data-report] progress');
  await page.waitForSelector('[data-experiment="calibration"] .runstatus[data-state="finished"]', { timeout: 60000 });
  assert.match(await page.$eval('.runstatus', e => e.textContent), /^40\/40 units stored, finished/);
  assert.ok(await page.$$eval('[data-experiment="calibration"] a[data-run]', l => l.length) >= 2);
});

await step('lab page: a single-vacancy problem opens in the player', async () => {
  await page.goto(base + '/lab');
  await page.waitForSelector('[data-experiment="peg-single-vacancy"] form[data-start]', { state: 'attached' });
  const f = '[data-experiment="peg-single-vacancy"] form[data-start]';
  await page.click('[data-experiment="peg-single-vacancy"] details.start summary');
  await page.fill(`${f} input[name="board"]`, 'triangle');
  await page.click(`${f} button`);
  await page.waitForSelector('[data-experiment="peg-single-vacancy"] .runstatus[data-state="finished"]', { timeout: 120000 });
  await page.waitForSelector('[data-report] a[data-position]');
  await page.screenshot({ path: join(out, 'lab-single-vacancy.png'), fullPage: true });
  // A row that finishes in its own hole: the board with that hole empty, that goal.
  const link = await page.$eval('[data-report] a[data-position$="a1 a1"], [data-report] a[data-position]:not([data-position$="any"])', a => [a.getAttribute('href'), a.dataset.position]);
  const [hole] = link[1].split(' ');
  await page.click(`[data-report] a[href="${link[0]}"]`);
  await page.waitForURL(/\/play\?game=peg/);
  await settled();
  assert.equal(await page.$$eval('[data-peg]', l => l.length), 14);
  assert.ok(await page.$(`[data-hole="${hole}"]`));
  assert.equal(await page.$$eval(`[data-peg="${hole}"]`, l => l.length), 0);
  assert.match(await page.$eval('#status', e => e.textContent), new RegExp(`goal: one peg in ${hole}`));
});

await step('lab page without a store: the experiments are listed all the same', async () => {
  const { url, server: bare } = await serve(bin, ['--no-build-tables'], { cwd: scratch('endgame-e2e-nostore-') });
  try {
    await page.goto(url + '/lab');
    await page.waitForFunction(() => document.querySelectorAll('[data-experiment]').length >= 9);
    assert.match(await page.$eval('#db', e => e.textContent), /No results store/);
    assert.ok(await page.$eval('[data-experiment="calibration"] form[data-start] button', b => b.disabled));
  } finally { bare.kill('SIGTERM'); }
});

await step('start page links the lab', async () => {
  await page.goto(base + '/');
  await page.click('a[href="/lab"]');
  await page.waitForSelector('[data-experiment]');
});

// ---- Readability: palette, coordinates, last move, chart, history, links ----

// Every hint colour (rings, arrows, rotation buttons) against every piece
// colour on the same board: far apart in RGB (≥ 60), and every hint
// carries a glyph. Returns the counts checked.
async function paletteApart(p) {
  return p.evaluate(() => {
    const rgb = c => (c.match(/\d+(\.\d+)?/g) || []).slice(0, 3).map(Number);
    const cs = e => getComputedStyle(e);
    const hints = [...document.querySelectorAll('#board .hintmark .ring, #board .rot .ring, #board .hint')]
      .filter(e => !/none/.test(e.closest('[class]').getAttribute('class')))
      .map(e => cs(e).stroke).filter(c => c && c !== 'none');
    const pieces = [...document.querySelectorAll('#board .peg, #board .mstone, #board .stone')].map(e => cs(e).fill)
      .concat([...document.querySelectorAll('#board line.seg.red, #board line.seg.blue')].map(e => cs(e).stroke));
    const bad = [];
    for (const h of new Set(hints)) for (const q of new Set(pieces)) {
      const [a, b] = [rgb(h), rgb(q)];
      const d = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      if (d < 60) bad.push(`${h} ~ ${q} (${d.toFixed(0)})`);
    }
    const noGlyph = [...document.querySelectorAll('#board .hintmark')].filter(g => !/^[WDL?]\d*$/.test(g.querySelector('.glyph').textContent)).length;
    return { hints: hints.length, pieces: pieces.length, bad, noGlyph };
  });
}
async function readable(p, name, { coords, last, hints = true }) {
  const r = await paletteApart(p);
  assert.deepEqual(r.bad, [], `${name}: hint colours too close to piece colours`);
  assert.equal(r.noGlyph, 0, `${name}: a hint without its glyph`);
  if (hints) assert.ok(r.hints > 0 && r.pieces > 0, `${name}: ${r.hints} hints, ${r.pieces} pieces`);
  if (coords) assert.ok(await p.$$eval('#board .coord, #board .pointlabel', l => l.length) >= coords, `${name}: coordinates`);
  if (last) {
    assert.equal(await p.$eval('#board', s => s.dataset.last), last, `${name}: last move`);
    assert.ok(await p.$$eval('#board [data-last]', l => l.length) > 0, `${name}: the last move is not marked`);
  }
  // The board fits the window (no sideways scrolling).
  const w = await p.evaluate(() => [document.getElementById('board').getBoundingClientRect().right, innerWidth]);
  assert.ok(w[0] <= w[1] + 1, `${name}: the board is wider than the window`);
}
// The hint markers do not overlap each other.
async function apart(p) {
  return p.$$eval('#board g.hintmark', gs => {
    const b = gs.map(g => g.querySelector('.ring').getBoundingClientRect());
    let n = 0;
    for (let i = 0; i < b.length; i++) for (let j = i + 1; j < b.length; j++) {
      const [x, y] = [b[i], b[j]];
      if (x.left < y.right - 1 && y.left < x.right - 1 && x.top < y.bottom - 1 && y.top < x.bottom - 1) n++;
    }
    return n;
  });
}

for (const [vw, vh] of [[1280, 900], [390, 844]]) {
  const tag = `${vw}x${vh}`;
  await page.setViewportSize({ width: vw, height: vh });

  await step(`${tag} peg: coordinates, last move, hint colours, Back = undo, keys`, async () => {
    await page.goto(base + '/play?game=peg&board=english&moves=d2-d4');
    await settled();
    await page.waitForSelector('g.hintmark[data-colour]', { state: 'attached' });
    await readable(page, 'peg', { coords: 28, last: 'd2-d4' });
    assert.equal(await page.$eval('[data-last="to"]', e => e.getAttribute('cx')), await page.$eval('[data-hole="d4"]', e => e.getAttribute('cx')));
    assert.equal(await apart(page), 0, 'peg hint markers overlap');
    await page.screenshot({ path: join(out, `peg-${tag}.png`) });
    // A move by clicking its hint marker, then the browser's Back undoes it, Forward redoes it.
    await page.dispatchEvent('g.hintmark[data-move="b3-d3"]', 'click');
    await page.waitForFunction(() => /moves=d2-d4%2Cb3-d3/.test(location.search));
    await settled();
    await page.goBack();
    await page.waitForFunction(() => /moves=d2-d4$/.test(location.search));
    await settled();
    assert.equal(await played(), 1);
    assert.equal(await page.$$eval('[data-peg]', l => l.length), 31);
    await page.goForward();
    await page.waitForFunction(() => /b3-d3/.test(location.search));
    await settled();
    assert.equal(await page.$$eval('[data-peg]', l => l.length), 30);
    // ← undo, → redo, h hides the hints.
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => !/b3-d3/.test(location.search));
    await settled();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => /b3-d3/.test(location.search));
    await settled();
    await page.keyboard.press('h');
    await page.waitForFunction(() => /hints=0/.test(location.search));
    await settled();
    assert.equal(await page.$$eval('#board g.hintmark', l => l.length), 0);
    // The move list names the moves; a click goes back to that position.
    await page.click('#moves li button[data-index="1"]');
    await page.waitForFunction(() => /moves=d2-d4&/.test(location.search));
  });

  await step(`${tag} sim: players outside the hint palette, markers apart, last move, the losing triangle`, async () => {
    await page.goto(base + '/play?game=sim&n=6&moves=ab,cd');
    await settled();
    await page.waitForSelector('g.hintmark[data-colour]', { state: 'attached' });
    await readable(page, 'sim', { coords: 6, last: 'cd' });
    assert.equal(await apart(page), 0, 'sim hint markers overlap');
    assert.match(await page.$eval('#moves li:nth-child(2)', e => e.textContent), /^blue: cd$/);
    await page.screenshot({ path: join(out, `sim-${tag}.png`) });
    // K8: 28 markers, still apart.
    await page.goto(base + '/play?game=sim&n=8');
    await settled();
    await page.waitForSelector('g.hintmark[data-colour]', { state: 'attached' });
    assert.equal(await page.$$eval('g.hintmark', l => l.length), 28);
    assert.equal(await apart(page), 0, 'K8 hint markers overlap');
    // Red completes the triangle abc and loses: the triangle is marked.
    await page.goto(base + '/play?game=sim&n=6&moves=ab,de,bc,df,ac');
    await settled();
    assert.equal(await page.$eval('#board [data-triangle]', e => e.dataset.triangle.split(',').sort().join(',')), 'ab,ac,bc');
  });

  await step(`${tag} pentago: rotation buttons, the AI in one request with the spinner, its move marked`, async () => {
    await page.goto(base + '/play?game=pentago&ai=white&strength=random');
    await settled();
    await page.click('[data-cell="b2"]');
    await page.waitForSelector('g.rot[data-move="ur cw"]', { state: 'attached' });
    await settled();
    // ≥ 32 px targets with their cw/ccw label.
    const sizes = await page.$$eval('g.rot', gs => gs.map(g => { const b = g.getBoundingClientRect(); return [b.width, b.height, g.textContent]; }));
    assert.equal(sizes.length, 8);
    for (const [w, h, t] of sizes) { assert.ok(w >= 32 && h >= 32, `rotation control ${w}×${h}`); assert.match(t, /\b(cw|ccw)\b/); }
    await readable(page, 'pentago', { coords: 12 });
    await page.screenshot({ path: join(out, `pentago-rotate-${tag}.png`) });
    // The AI answers with one request (no hints for its own position).
    const asked = [];
    const onReq = r => { const u = r.url(); if (/\/api\/pentago\/(hints|ai)/.test(u)) asked.push(u); };
    page.on('request', onReq);
    await page.evaluate(() => {
      window.__spin = null;
      const sp = document.getElementById('spinner');
      new MutationObserver(() => { if (!sp.hidden && window.__spin === null) window.__spin = [performance.now() - window.__click, sp.textContent]; })
        .observe(sp, { attributes: true, childList: true, subtree: true });
      window.__click = performance.now();
    });
    await page.dispatchEvent('g.rot[data-move="ur cw"]', 'click');
    await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 2, null, { timeout: 20000 });
    await settled();
    page.off('request', onReq);
    const aiPositionHints = asked.filter(u => /hints/.test(u) && new URL(u).searchParams.get('moves').split(',').length === 1);
    assert.deepEqual(aiPositionHints, [], 'hints asked for the AI position');
    assert.equal(asked.filter(u => /\/ai\?/.test(u)).length, 1);
    // (random strength answers fast: the spinner may not show; the
    // strong AI below does.)
    const last = await page.$eval('#board', s => s.dataset.last);
    assert.match(last, /^[a-f][1-6] (ll|ul|lr|ur) c?cw$/);
    assert.match(await page.$eval('#moves li:nth-child(2)', e => e.textContent), /^white \(AI\): /);
    assert.ok(await page.$$eval('#board .lastquad', l => l.length) === 1, 'the AI\'s quadrant is not marked');
    assert.ok(await page.$$eval('#board circle.last-to', l => l.length) === 1, 'the AI\'s stone is not marked');
    await page.screenshot({ path: join(out, `pentago-ai-${tag}.png`) });
  });

  await step(`${tag} martello: coordinates, move names, last operation, arrows off the stone colours`, async () => {
    await page.goto(base + '/play?game=martello&n=4&seed=1');
    await settled();
    await page.waitForSelector('line.hint[data-colour]', { state: 'attached' });
    await readable(page, 'martello', { coords: 8 });
    const [a, b] = await page.$eval('line.hint', l => [l.dataset.eater, l.dataset.eaten]);
    await page.click(`circle[data-stone="${a}"]`);
    await page.click(`circle[data-stone="${b}"]`);
    await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 1);
    await settled();
    await page.waitForFunction(() => /^[a-zA-Z]:[a-zA-Z]$/.test(document.getElementById('board').dataset.last));
    const op = await page.$eval('#board', s => s.dataset.last);
    assert.equal(await page.$eval('#moves li', e => e.textContent), op);
    assert.ok(await page.$$eval('#board [data-last]', l => l.length) > 0);
    // The same line from its URL names the move too (asked of the server).
    const url = page.url();
    const p2 = await browser.newPage();
    await p2.setViewportSize({ width: vw, height: vh });
    await p2.goto(url);
    await p2.waitForFunction(o => document.querySelector('#moves li')?.textContent === o, op);
    await p2.close();
    await page.screenshot({ path: join(out, `martello-${tag}.png`) });
  });

  await step(`${tag} chart: unknown positions off the value lines, labels clear of the dots`, async () => {
    await page.goto(base + '/play?game=pentago&moves=c4 ur cw');
    await settled();
    await page.waitForFunction(() => document.getElementById('chart').dataset.points === '2', null, { timeout: 15000 });
    const r = await page.evaluate(() => {
      const c = document.getElementById('chart');
      const unknown = [...c.querySelectorAll('circle.dot.unknown')].map(d => +d.getAttribute('cy'));
      const known = [...c.querySelectorAll('circle.dot:not(.unknown)')].map(d => +d.getAttribute('cy'));
      const lines = [...c.querySelectorAll('line.chart-axis, line.chart-grid')].map(l => +l.getAttribute('y1'));
      const labels = [...c.querySelectorAll('text.chart-label')].map(t => t.getBoundingClientRect());
      const dots = [...c.querySelectorAll('circle.dot')].map(d => d.getBoundingClientRect());
      const overlaps = labels.filter(l => dots.some(d => l.right > d.left && l.left < d.right && l.bottom > d.top && l.top < d.bottom)).length;
      const axis = +c.querySelector('line.chart-axis').getAttribute('y1');
      return { unknown, known, axis, lines, overlaps };
    });
    assert.equal(r.unknown.length, 2, JSON.stringify(r));
    assert.ok(r.unknown.every(y => y !== r.axis && !r.known.includes(y)), JSON.stringify(r));
    assert.ok(Math.max(...r.lines.filter(y => y !== r.unknown[0])) < r.unknown[0], 'the unknown row is below every value line');
    assert.equal(r.overlaps, 0, 'a chart label overlaps a dot');
  });

  await step(`${tag} bad links: an unknown game, a bad setting, an illegal move`, async () => {
    await page.goto(base + '/play?game=chess');
    await page.waitForSelector('#notice:not([hidden]) a[href="/play?game=peg"]');
    assert.match(await page.$eval('#notice', e => e.textContent), /no game called "chess"/);
    await page.click('#notice a[href="/play?game=sim"]');
    await settled();
    assert.equal(await page.$$eval('line.seg', l => l.length) > 0, true);
    // A bad seed: a readable message (not the server's raw text), a new game to play.
    await page.goto(base + '/play?game=martello&n=4&seed=x');
    await page.waitForSelector('#notice:not([hidden])');
    await settled();
    const msg = await page.$eval('#notice', e => e.textContent);
    assert.match(msg, /seed = "x" is not a whole number/);
    assert.doesNotMatch(await page.content(), /Failed to deserialize/);
    assert.ok(await page.$$eval('[data-stone]', l => l.length) === 16);
    assert.doesNotMatch(page.url(), /seed=x/);
    // An illegal third move: the first two are played, the third named.
    await page.goto(base + '/play?game=sim&n=6&moves=ab,cd,ab,ef');
    await page.waitForSelector('#notice:not([hidden])');
    await settled();
    assert.match(await page.$eval('#notice', e => e.textContent), /move 3 \(ab\)/);
    assert.equal(await played(), 2);
    assert.match(page.url(), /moves=ab%2Ccd(&|$)/);
    assert.deepEqual(consoleErrors, []);
    await page.screenshot({ path: join(out, `bad-link-${tag}.png`) });
  });
}

await step('pentago: a hint with an exact value shows its remoteness', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(base + '/play?game=pentago&moves=' + encodeURIComponent('a1 ur cw,a4 ur cw,b1 ur cw,b4 ur cw,c1 ur cw,f6 ur cw,d1 ur cw,e6 ur cw'));
  await settled();
  await page.waitForSelector('g.hintmark[data-colour]', { state: 'attached', timeout: 20000 });
  const marks = await page.$$eval('#board g.hintmark', l => l.map(g => [g.querySelector('.glyph').textContent, g.querySelector('title')?.textContent || '']));
  const counted = marks.filter(([t]) => /^[WL]\d+$/.test(t));
  assert.ok(counted.length > 0, JSON.stringify(marks));
  for (const [t, title] of counted) assert.match(title, new RegExp(`(win|loss) in ${t.slice(1)}$`));
  // Black completes a1–e1 by placing e1: "W1" on e1, "win in 1" in words.
  assert.equal(await page.$eval('#board g.hintmark[data-hint="e1"] .glyph', t => t.textContent), 'W1');
  await page.screenshot({ path: join(out, 'pentago-remoteness.png') });
});

await step('timings: first board drawn, first hints drawn (per game, from navigation start)', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const lines = [];
  for (const path of ['/play?game=peg&board=english', '/play?game=sim&n=6', '/play?game=pentago', '/play?game=martello&n=4&seed=1']) {
    await page.goto(base + path);
    const board = await page.waitForFunction(() => document.querySelector('#board [data-peg], #board line.seg, #board .cell, #board .mstone') && performance.now());
    const first = await board.jsonValue();
    const hints = await (await page.waitForFunction(() => document.querySelector('#board .hintmark[data-colour]:not([data-colour=""]), #board line.hint[data-colour]') && performance.now(), null, { timeout: 30000 })).jsonValue();
    assert.ok(first < 5000, `${path}: board after ${first} ms`);
    lines.push(`${path}: board ${first.toFixed(0)} ms, hints ${hints.toFixed(0)} ms`);
    await settled();
  }
  for (const l of lines) console.log(`     ${l}`);
});

await step('favicon', async () => {
  const r = await fetch(base + '/favicon.ico');
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /image\/svg\+xml/);
  assert.match(await r.text(), /^<svg/);
});

await step('spinner: says what is computed within 200 ms (the strong Pentago AI)', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(base + '/play?game=pentago&ai=white&strength=strong&hints=0');
  await settled();
  await page.click('[data-cell="c3"]');
  await page.waitForSelector('g.rot[data-move="ll cw"]', { state: 'attached' });
  await settled();
  await page.evaluate(() => {
    window.__spin = null;
    const sp = document.getElementById('spinner');
    new MutationObserver(() => { if (!sp.hidden && window.__spin === null) window.__spin = [performance.now() - window.__click, sp.textContent]; })
      .observe(sp, { attributes: true });
    window.__click = performance.now();
  });
  await page.dispatchEvent('g.rot[data-move="ll cw"]', 'click');
  await page.waitForFunction(() => window.__spin !== null, null, { timeout: 5000 });
  const [ms, text] = await page.evaluate(() => window.__spin);
  assert.ok(ms <= 200, `the spinner showed after ${ms.toFixed(0)} ms`);
  assert.match(text, /AI/);
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 2, null, { timeout: 20000 });
  await settled();
  const reply = await page.evaluate(() => performance.now() - window.__click);
  console.log(`     spinner after ${ms.toFixed(0)} ms ("${text.trim()}"), the strong AI's reply drawn after ${reply.toFixed(0)} ms`);
});

await browser.close();
server.kill('SIGTERM');
console.log(failures ? `${failures} failure(s)` : 'all end-to-end checks passed');
process.exit(failures ? 1 : 0);
