// Pentago: click an empty cell to place, then a rotation arrow. Hints come
// from the analysis service: for a position due to place, every full move
// (`c4 ur cw`, best first), each cell's dot coloured by the best move
// through it; once placed (a rotation due), the eight rotations as
// coloured arrows. Undecided moves stay blue, with the strong evaluation's
// estimate in their hover text.
import { el } from './api.js';

let pending = null;
export function reset() { pending = null; }
export const aiSides = ['black', 'white'];
export const strengths = ['strong', 'seed', 'random'];
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

export function render(svg, s, hints, ctx) {
  const C = 56, G = 10, M = 76, W = 2 * M + 6 * C + G;
  svg.setAttribute('viewBox', `0 0 ${W} ${W}`);
  svg.textContent = '';
  const px = x => M + x * C + (x >= 3 ? G : 0);
  const py = y => M + (5 - y) * C + (y < 3 ? G : 0);
  // By move (the rotations of a placement made), and by cell the best
  // full move through it (moves come best first).
  const hint = {}, byCell = {};
  if (hints && ctx.hintsOn) {
    for (const m of hints.moves) {
      hint[m.move] = m;
      if (m.cell && !byCell[m.cell]) byCell[m.cell] = m;
    }
  }
  for (const [q, [qx, qy]] of Object.entries(QUADS)) {
    svg.append(el('rect', { x: px(3 * qx) - 3, y: py(3 * qy + 2) - 3, width: 3 * C + 6, height: 3 * C + 6, rx: 10, class: 'quad', 'data-quad': q }));
  }
  for (let y = 0; y < 6; y++) for (let x = 0; x < 6; x++) {
    const cx = px(x) + C / 2, cy = py(y) + C / 2, name = cellName(x, y);
    const v = s.cells[y][x];
    const cell = el('circle', { cx, cy, r: C / 2 - 6, class: 'cell', 'data-cell': name });
    svg.append(cell);
    if (v !== '.') {
      svg.append(el('circle', { cx, cy, r: C / 2 - 8, class: `stone ${v}` + (pending === name ? ' pending' : ''), 'data-stone': name }));
    } else if (!s.over && !s.must_rotate) {
      cell.onclick = () => {
        // A placement that makes five wins at once: it is the whole move.
        if (s.moves.includes(name)) { pending = null; ctx.play(name); return; }
        pending = name; ctx.refresh();
      };
      const h = byCell[name];
      if (h) {
        const d = el('circle', { cx, cy, r: 8, class: `dot ${h.colour}`, 'data-hint': name, 'data-colour': h.colour, 'data-best': h.move, 'pointer-events': 'none' }, moveTitle(h));
        svg.append(d);
      }
    }
  }
  if (s.must_rotate && !s.over) {
    // Two arrows per quadrant, at its outer corners.
    for (const [q, [qx, qy]] of Object.entries(QUADS)) {
      for (const dir of ['cw', 'ccw']) {
        const mv = `${q} ${dir}`, h = hint[mv];
        const x0 = px(3 * qx), y0 = py(3 * qy + 2), size = 3 * C;
        // Outer corner of the quadrant, arrow bending around it.
        // The two arrows of a corner at different distances, so both stay visible.
        const off = dir === 'cw' ? 24 : 50;
        const ox = qx ? x0 + size + off : x0 - off, oy = qy ? y0 - off : y0 + size + off;
        const along = dir === 'cw' ? 1 : -1;
        // cw arrows lie along the horizontal outer edge for top quadrants, etc.
        const horiz = (dir === 'cw') === (qx === qy);
        const x1 = horiz ? ox + (qx ? -40 : 40) : ox, y1 = horiz ? oy : oy + (qy ? 40 : -40);
        const path = `M ${x1} ${y1} Q ${ox} ${oy} ${horiz ? ox : ox + (qx ? -40 : 40)} ${horiz ? oy + (qy ? 40 : -40) : oy}`;
        const cls = h ? h.colour : 'none';
        const a = el('path', { d: path, class: `arrow hint ${cls}`, 'data-move': mv, 'data-colour': h ? h.colour : '', 'marker-end': `url(#head-${cls})` }, h ? moveTitle(h) : mv);
        a.onclick = () => { const full = `${pending} ${mv}`; pending = null; ctx.play(full); };
        void along;
        svg.append(a);
      }
    }
    const defs = el('defs');
    for (const c of ['green', 'red', 'yellow', 'blue', 'none']) {
      const m = el('marker', { id: `head-${c}`, viewBox: '0 0 10 10', refX: 5, refY: 5, markerWidth: 4, markerHeight: 4, orient: 'auto-start-reverse' });
      m.append(el('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: `dot ${c}` }));
      defs.append(m);
    }
    svg.prepend(defs);
  }
  for (let i = 0; i < 6; i++) {
    const f = el('text', { x: px(i) + C / 2, y: W - 12, class: 'remote' }); f.textContent = 'abcdef'[i]; svg.append(f);
    const r = el('text', { x: 14, y: py(i) + C / 2, class: 'remote' }); r.textContent = i + 1; svg.append(r);
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
