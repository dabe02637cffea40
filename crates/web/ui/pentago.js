// Pentago: click an empty cell to place, then a rotation arrow. Hints come
// from the analysis service: for a position due to place, every full move
// (`c4 ur cw`, best first), each cell's dot coloured by the best move
// through it; once placed (a rotation due), the eight rotations as
// coloured arrows. Undecided moves stay blue, with the strong evaluation's
// estimate in their hover text. Each rotation is a button (cw / ccw,
// with its hint's glyph) above or below its quadrant. The last move is
// marked: its stone ringed (where the turn took it) and its quadrant
// outlined with the turn's direction; a winning five is struck through.
import { el, hintMark, GLYPH, hintText } from './api.js';

let pending = null;
// The last move's turn is played out on the board: the turned quadrant's
// stones swing through their quarter turn once, when the move is new
// (a redraw while it runs resumes it; a page loaded with moves does not).
const TURN_MS = 450;
let turnKey = null, turnAt = 0;
export function reset() { pending = null; }
export const aiSides = ['black', 'white'];
export const strengths = ['strong', 'reference', 'random'];
export function title() { return 'Pentago'; }
// The hint budget is the analysis service's default (the same as the
// command line's), so no budget parameter is sent.
export function apiParams(v, moves) {
  const q = { moves: moves.join(',') };
  if (v.start) q.start = v.start;
  if (pending) q.place = pending;
  return q;
}
export function describe(s, v) {
  const who = side => `${side}${v.ai === side ? ' (AI)' : ''}`;
  if (s.over) return s.winner === 'none' ? 'Game over: draw.' : `Game over: ${who(s.winner)} wins.`;
  return s.must_rotate ? `${who(s.to_move)}: turn a quadrant.` : `${who(s.to_move)} to place.`;
}
const valueWords = (v, r) => (r === null || r === undefined || v === 'unknown' ? `${v}` : `${v} in ${r}`);
export function valueText(h) {
  let s = `Value for the player to move: ${valueWords(h.value, h.remoteness)}.`;
  if (h.estimate) s += ` Estimate ${h.estimate.score.toFixed(2)} (${h.estimate.by}).`;
  if (h.reason) s += ` ${h.reason[0].toUpperCase()}${h.reason.slice(1)}.`;
  return s;
}
// The hover text of a move: its exact value, or the estimate when undecided.
function moveTitle(m) {
  if (m.estimate) return `${m.move}: undecided; estimate ${m.estimate.score.toFixed(2)} (${m.estimate.by})`;
  return `${m.move}: ${valueWords(m.value, m.remoteness)}`;
}
const cellName = (x, y) => `${'abcdef'[x]}${y + 1}`;
const QUADS = { ll: [0, 0], ul: [0, 1], lr: [1, 0], ur: [1, 1] };

// Where a stone placed on (x, y) is after the turn of quadrant q (as seen
// with rank 6 at the top: clockwise takes the top middle to the right middle).
function turned(x, y, q, dir) {
  const [qx, qy] = QUADS[q];
  if (Math.floor(x / 3) !== qx || Math.floor(y / 3) !== qy) return [x, y];
  const dx = x - 3 * qx - 1, dy = y - 3 * qy - 1;
  const [nx, ny] = dir === 'cw' ? [dy, -dx] : [-dy, dx];
  return [3 * qx + 1 + nx, 3 * qy + 1 + ny];
}
// The rows of five of one colour (a win), as lists of [x, y].
function fives(cells) {
  const out = [];
  for (const [dx, dy] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
    for (let y = 0; y < 6; y++) for (let x = 0; x < 6; x++) {
      const run = [0, 1, 2, 3, 4].map(k => [x + k * dx, y + k * dy]);
      if (run.some(([a, b]) => a < 0 || a > 5 || b < 0 || b > 5)) continue;
      const v = cells[y][x];
      if (v !== '.' && run.every(([a, b]) => cells[b][a] === v)) out.push(run);
    }
  }
  return out;
}

export function render(svg, s, hints, ctx) {
  const C = 56, G = 10, BS = 6 * C + G, MX = 44, MY = 88, W = 2 * MX + BS, H = 2 * MY + BS;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.textContent = '';
  const px = x => MX + x * C + (x >= 3 ? G : 0);
  const py = y => MY + (5 - y) * C + (y < 3 ? G : 0);
  // By move (the rotations of a placement made), and by cell the best
  // full move through it (moves come best first).
  const hint = {}, byCell = {};
  if (hints && ctx.hintsOn) {
    for (const m of hints.moves) {
      hint[m.move] = m;
      if (m.cell && !byCell[m.cell]) byCell[m.cell] = m;
    }
  }
  // The last move: its cell (where its turn took the stone) and its turn.
  const last = ctx.moves.length ? ctx.moves[ctx.moves.length - 1] : '';
  const lm = /^(?:([a-f])([1-6]))?\s*(?:(ll|ul|lr|ur) (cw|ccw))?$/.exec(last) || [];
  let lastCell = null;
  if (lm[1]) {
    const [x, y] = lm[3] ? turned('abcdef'.indexOf(lm[1]), Number(lm[2]) - 1, lm[3], lm[4]) : ['abcdef'.indexOf(lm[1]), Number(lm[2]) - 1];
    if (s.cells[y][x] !== '.') lastCell = cellName(x, y);
  }
  svg.dataset.last = last;
  for (const [q, [qx, qy]] of Object.entries(QUADS)) {
    const turnedHere = lm[3] === q;
    svg.append(el('rect', { x: px(3 * qx) - 3, y: py(3 * qy + 2) - 3, width: 3 * C + 6, height: 3 * C + 6, rx: 10,
      class: 'quad' + (turnedHere ? ' lastquad' : ''), 'data-quad': q, 'data-last': turnedHere ? lm[4] : undefined }));
  }
  for (let y = 0; y < 6; y++) for (let x = 0; x < 6; x++) {
    const cx = px(x) + C / 2, cy = py(y) + C / 2, name = cellName(x, y);
    const v = s.cells[y][x];
    const cell = el('circle', { cx, cy, r: C / 2 - 6, class: 'cell', 'data-cell': name }, name);
    svg.append(cell);
    if (v !== '.') {
      svg.append(el('circle', { cx, cy, r: C / 2 - 8, class: `stone ${v}` + (pending === name ? ' pending' : ''), 'data-stone': name }));
      if (name === lastCell) svg.append(el('circle', { cx, cy, r: C / 2 - 3, class: 'last last-to', 'data-last': name }));
    } else if (!s.over && !s.must_rotate) {
      cell.onclick = () => {
        // A placement that makes five wins at once: it is the whole move.
        if (s.moves.includes(name)) { pending = null; ctx.play(name); return; }
        pending = name; ctx.refresh();
      };
      const h = byCell[name];
      if (h) svg.append(hintMark(cx, cy, h, 13, { 'data-hint': name, 'data-best': h.move, 'pointer-events': 'none' }, moveTitle(h)));
    }
  }
  // The turned quadrant's direction, on its outer corner.
  if (lm[3]) {
    const [qx, qy] = QUADS[lm[3]];
    const x = qx ? px(5) + C + 3 : px(0) - 3, y = qy ? py(5) - 3 : py(0) + C + 3;
    svg.append(el('circle', { cx: x, cy: y, r: 14, class: 'turnmark' }));
    const t = el('text', { x, y, class: 'turnglyph' }); t.textContent = lm[4] === 'cw' ? '↻' : '↺'; svg.append(t);
  }
  const key = ctx.moves.join(' ');
  if (turnKey !== key) {
    if (turnKey !== null) turnAt = performance.now();
    turnKey = key;
  }
  if (lm[3]) {
    const elapsed = performance.now() - turnAt;
    const still = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    if (elapsed < TURN_MS && !still) {
      const [qx, qy] = QUADS[lm[3]];
      const ox = px(3 * qx) + 1.5 * C, oy = py(3 * qy + 2) + 1.5 * C;
      // Drawn where the turn left them: start a quarter turn back.
      const from = lm[4] === 'cw' ? -90 : 90;
      for (const e of svg.querySelectorAll('circle.stone, circle.last')) {
        const x = Number(e.getAttribute('cx')), y = Number(e.getAttribute('cy'));
        if (Math.abs(x - ox) > 1.5 * C || Math.abs(y - oy) > 1.5 * C) continue;
        e.style.transformBox = 'view-box';
        e.style.transformOrigin = `${ox}px ${oy}px`;
        e.animate([{ transform: `rotate(${from}deg)` }, { transform: 'rotate(0deg)' }],
          { duration: TURN_MS, delay: -elapsed, easing: 'ease-in-out' });
      }
      svg.dataset.turn = `${lm[3]} ${lm[4]}`;
    }
  }
  for (const run of s.over ? fives(s.cells) : []) {
    const [a, b] = [run[0], run[4]];
    svg.append(el('line', { x1: px(a[0]) + C / 2, y1: py(a[1]) + C / 2, x2: px(b[0]) + C / 2, y2: py(b[1]) + C / 2,
      class: 'five', 'data-five': run.map(([x, y]) => cellName(x, y)).join(' ') }));
  }
  if (s.must_rotate && !s.over) {
    // Two buttons per quadrant, above the upper quadrants and below the
    // lower ones: anticlockwise on the left, clockwise on the right.
    for (const [q, [qx, qy]] of Object.entries(QUADS)) {
      ['ccw', 'cw'].forEach((dir, k) => {
        const mv = `${q} ${dir}`, h = hint[mv];
        const bw = (3 * C - 8) / 2, bh = 54;
        const x = px(3 * qx) + k * (bw + 8), y = qy ? 8 : H - 8 - bh;
        const g = el('g', { class: `rot ${h ? h.colour : 'none'}`, 'data-move': mv, 'data-colour': h ? h.colour : '', role: 'button',
          'aria-label': `turn the ${q} quadrant ${dir === 'cw' ? 'clockwise' : 'anticlockwise'}` }, h ? moveTitle(h) : mv);
        g.append(el('rect', { x, y, width: bw, height: bh, rx: 10, class: 'ring' }));
        const t = el('text', { x: x + bw / 2, y: y + 19, class: 'rotlabel' }); t.textContent = `${dir === 'cw' ? '↻' : '↺'} ${q} ${dir}`;
        const v = el('text', { x: x + bw / 2, y: y + 40, class: 'glyph' }); v.textContent = h ? hintText(h) : GLYPH.none;
        g.append(t, v);
        g.onclick = () => { const full = `${pending} ${mv}`; pending = null; ctx.play(full); };
        svg.append(g);
      });
    }
  }
  for (let i = 0; i < 6; i++) {
    const f = el('text', { x: px(i) + C / 2, y: MY + BS + 16, class: 'coord col' }); f.textContent = 'abcdef'[i]; svg.append(f);
    const r = el('text', { x: MX - 18, y: py(i) + C / 2, class: 'coord row' }); r.textContent = i + 1; svg.append(r);
  }
}
export function moveLabel(m) { return m; }
// A line for a pending placement starts with the rotation alone: the first
// move is then that placement with the rotation.
export function solutionLine(r) {
  const line = [...(r.line || [])];
  if (pending && line.length && !/^[a-f][1-6] /.test(line[0])) line[0] = `${pending} ${line[0]}`;
  return line;
}
