// Peg solitaire: any board shape (square or triangular lattice). Click a
// peg, then a highlighted hole (or click a hint arrow) to jump.
import { el, hintMark, placeApart } from './api.js';

let selected = null;
export function reset() { selected = null; }
export function title(v) { return `Peg solitaire — ${v.art ? 'your board' : (v.board || 'english')}`; }
export function apiParams(v, moves) {
  const q = {};
  for (const k of ['board', 'art', 'start', 'finish', 'diagonal']) if (v[k]) q[k] = v[k];
  q.moves = moves.join(',');
  return q;
}
export function describe(s) {
  if (s.solved) return `Solved! ${s.pegs} peg left.`;
  if (s.over) return `No jump left: ${s.pegs} pegs.`;
  return `${s.pegs} pegs; goal: ${s.goal}.`;
}
// The hint is the peg crate's analysis: `result` {solvable, best,
// best_proven} for the position and each move, `remoteness` (moves to the
// goal, or to the best result when the goal is lost), `colour`,
// `solutions` when counted.
function bestText(r) {
  if (!r || r.best == null) return '';
  return `; ${r.best} peg(s) at best${r.best_proven ? '' : ' found'}`;
}
export function valueText(h) {
  const r = h.result || {};
  const sol = h.solutions != null ? ` ${h.solutions} solution(s).` : '';
  if (r.solvable === true) return `This position is solvable: ${h.remoteness} move(s) to the goal.${sol}`;
  if (r.solvable === false) return `This position is unsolvable${r.best != null ? `; at best ${r.best} peg(s) left` : ''}.`;
  return `This position is undecided within the budget.${h.reason ? ' ' + h.reason : ''}`;
}
function moveTitle(m) {
  if (!m) return '';
  const r = m.result || {};
  const sol = m.solutions != null ? `, ${m.solutions} solution(s)` : '';
  if (r.solvable === true) return `${m.move}: solvable, ${m.remoteness} move(s) to the goal${sol}`;
  if (r.solvable === false) return `${m.move}: unsolvable${bestText(r)}`;
  return `${m.move}: undecided within the budget`;
}

// Row and column labels as the notation names the holes: the letter is the
// column (square boards; on triangles it counts the holes of a row from
// its left end, so the letters go under the bottom row), the number the
// row counted from the top.
function coordinates(svg, s, at, hex, w, hgt, pad) {
  const label = (x, y, text, cls) => { const t = el('text', { x, y, class: `coord ${cls}` }); t.textContent = text; svg.append(t); };
  const rows = new Map(), cols = new Map();
  for (const h of s.holes) {
    const [, letter, num] = /^([a-z]+)(\d+)$/i.exec(h.name) || [];
    const [x, y] = at[h.name];
    if (!rows.has(num)) rows.set(num, y);
    if (!hex && !cols.has(letter)) cols.set(letter, x);
  }
  for (const [num, y] of rows) { label(pad / 2 - 6, y, num, 'row'); if (!hex) label(w - pad / 2 + 6, y, num, 'row'); }
  if (hex) {
    const maxY = Math.max(...s.holes.map(h => h.y));
    for (const h of s.holes.filter(h => h.y === maxY)) { const [x, y] = at[h.name]; label(x, y + 36, /^[a-z]+/i.exec(h.name)[0], 'col'); }
  } else {
    for (const [letter, x] of cols) { label(x, pad / 2 - 4, letter, 'col'); label(x, hgt - pad / 2 + 6, letter, 'col'); }
  }
}

export function render(svg, s, hints, ctx) {
  const hex = s.lattice === 'hex';
  // A jump's hint curves around the peg it jumps over, through the gap
  // between two rows of holes: the spacing leaves room for its marker.
  const S = 64, sx = hex ? S / 2 : S, sy = hex ? Math.round(S * 0.866) : S, pad = 56, R = 20;
  const xs = s.holes.map(h => h.x), ys = s.holes.map(h => h.y);
  const w = Math.max(...xs) * sx + 2 * pad, hgt = Math.max(...ys) * sy + 2 * pad;
  svg.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
  svg.textContent = '';
  const at = {};
  for (const h of s.holes) at[h.name] = [pad + h.x * sx, pad + h.y * sy, h];
  coordinates(svg, s, at, hex, w, hgt, pad);
  const colour = {};
  if (hints && ctx.hintsOn) for (const m of hints.moves) colour[m.move] = m;
  // The last jump: the hole it left and the peg it removed (dashed), the
  // peg where it landed (ringed).
  const last = ctx.moves.length ? ctx.moves[ctx.moves.length - 1] : null;
  const [lf, lt] = last ? last.split('-') : [];
  let lo = null;
  if (last && at[lf] && at[lt]) {
    const mx = (at[lf][2].x + at[lt][2].x) / 2, my = (at[lf][2].y + at[lt][2].y) / 2;
    const o = s.holes.find(h => h.x === mx && h.y === my);
    lo = o ? o.name : null;
  }
  svg.dataset.last = last || '';
  // Holes and pegs.
  for (const h of s.holes) {
    const [x, y] = at[h.name];
    const hole = el('circle', { cx: x, cy: y, r: R, class: 'hole', 'data-hole': h.name }, h.name);
    svg.append(hole);
    if (h.peg) {
      const p = el('circle', { cx: x, cy: y, r: R - 4, class: 'peg' + (selected === h.name ? ' selected' : ''), 'data-peg': h.name }, h.name);
      p.onclick = () => { selected = selected === h.name ? null : h.name; render(svg, s, hints, ctx); };
      svg.append(p);
    }
    if (h.name === lt) svg.append(el('circle', { cx: x, cy: y, r: R + 3, class: 'last last-to', 'data-last': 'to' }));
    if (h.name === lf || h.name === lo) svg.append(el('circle', { cx: x, cy: y, r: R - 2, class: 'last last-from', 'data-last': h.name === lf ? 'from' : 'over' }));
  }
  // Hint curves: every legal jump from its peg to its landing hole, bent
  // to its right-hand side around the peg it jumps over, with an arrow
  // head, a white outline, and a marker (glyph + remoteness) along it.
  if (hints && ctx.hintsOn) {
    const curves = s.moves.map(m => {
      const [x1, y1] = at[m.from], [x2, y2] = at[m.to];
      const dx = x2 - x1, dy = y2 - y1, L = Math.hypot(dx, dy);
      const ux = dx / L, uy = dy / L, nx = -uy, ny = ux;
      const bend = L * 0.5;
      const c = [(x1 + x2) / 2 + nx * bend, (y1 + y2) / 2 + ny * bend];
      const p0 = [x1 + nx * 10 + ux * 4, y1 + ny * 10 + uy * 4], p2 = [x2 + nx * 12 - ux * 10, y2 + ny * 12 - uy * 10];
      const B = t => [0, 1].map(k => (1 - t) ** 2 * p0[k] + 2 * t * (1 - t) * c[k] + t * t * p2[k]);
      return { m, p0, c, p2, cands: [0.6, 0.5, 0.7, 0.42, 0.78].map(B) };
    });
    const spots = placeApart(curves.map(k => k.cands), [34, 24]);
    const marks = [];
    curves.forEach(({ m, p0, c, p2 }, i) => {
      const hm = colour[m.move];
      const cls = hm ? hm.colour : 'none';
      const d = `M ${p0[0]} ${p0[1]} Q ${c[0]} ${c[1]} ${p2[0]} ${p2[1]}`;
      svg.append(el('path', { d, class: 'hint-under' }));
      const a = el('path', { d, class: `hint ${cls}`, 'data-move': m.move, 'data-colour': hm ? hm.colour : '', 'marker-end': `url(#peghead-${cls})` }, moveTitle(hm));
      a.onclick = () => { selected = null; ctx.play(m.move); };
      svg.append(a);
      const mark = hintMark(spots[i][0], spots[i][1], hm, 11, { 'data-move': m.move }, moveTitle(hm));
      mark.onclick = () => { selected = null; ctx.play(m.move); };
      marks.push(mark);
    });
    svg.append(...marks);
    svg.prepend(arrowHeads('peghead'));
  }
  // Landing holes of the selected peg.
  if (selected) {
    for (const m of s.moves.filter(m => m.from === selected)) {
      const [x, y] = at[m.to];
      const t = el('circle', { cx: x, cy: y, r: R - 2, class: 'target', 'data-target': m.to }, m.move);
      t.onclick = () => { selected = null; ctx.play(m.move); };
      svg.append(t);
    }
  }
}

// Arrow heads in the hint colours (marker ids PREFIX-colour).
export function arrowHeads(prefix, size = 3.2) {
  const defs = el('defs');
  for (const c of ['green', 'red', 'yellow', 'blue', 'none']) {
    const m = el('marker', { id: `${prefix}-${c}`, viewBox: '0 0 10 10', refX: 6, refY: 5, markerWidth: size, markerHeight: size, orient: 'auto' });
    m.append(el('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: `head ${c}` }));
    defs.append(m);
  }
  return defs;
}
