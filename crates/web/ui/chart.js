// The value-history chart, as GamesCrafters draws it: the move number
// across, and for each position reached the value and remoteness.
//
// Two-player games: a centre line (draw); a position won by the player who
// moves first in the game sits above it, one won by the other player below,
// as far out as its remoteness (unknown remoteness: a fixed distance); the
// dot is coloured by the value for the player to move there (green win, red
// loss, yellow draw, blue unknown). Puzzles: the best result reachable
// (fewest pegs / stones) after each move, coloured green solvable, red not,
// blue undecided. A position whose value is not known yet is never drawn
// on a value line: it is a hollow marker in its own row ("?") below the
// chart, and the line through the known points breaks around it.
import { el } from './api.js';

// L: room for the labels on the left, which end before the first dot.
const W = 400, H = 196, L = 76, R = 12, T = 14, B = 44;

// points[i]: the position after i moves, or undefined while unknown.
// Game point: { value: 'win'|'loss'|'draw'|'unknown', remoteness, moverFirst }.
// Puzzle point: { value: 'solvable'|'unsolvable'|'unknown', count }.
export function drawChart(svg, points, n, opts) {
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.textContent = '';
  const step = Math.min(36, (W - L - R) / Math.max(n, 1));
  const x = i => L + i * step;
  // Known: a value, and for a puzzle a count to draw it at.
  const isKnown = p => p && p.value !== 'unknown' && (opts.kind === 'game' || p.count != null);
  const known = points.map((p, i) => [p, i]).filter(([p]) => isKnown(p));
  const unknownY = H - B + 12;
  svg.append(el('rect', { x: 0, y: 0, width: W, height: H, class: 'chart-bg' }));
  let y, colour;
  if (opts.kind === 'game') {
    const maxR = Math.max(4, ...known.map(([p]) => p.remoteness ?? 0));
    const mid = T + (H - T - B) / 2, half = (H - T - B) / 2 - 6;
    y = p => {
      if (p.value === 'draw') return mid;
      const firstWins = (p.value === 'win') === p.moverFirst;
      const r = p.remoteness ?? maxR;
      // Far out = far from the end; the end of the game touches the line.
      const d = 6 + (half - 6) * r / maxR;
      return firstWins ? mid - d : mid + d;
    };
    colour = p => ({ win: 'green', loss: 'red', draw: 'yellow' }[p.value] || 'blue');
    svg.append(el('line', { x1: L, x2: W - R, y1: mid, y2: mid, class: 'chart-axis' }));
    const lab = (t, yy) => { const e = el('text', { x: L - 12, y: yy, class: 'chart-label' }); e.textContent = t; svg.append(e); };
    lab(`${opts.first} wins`, T + 8);
    lab('draw', mid + 4);
    lab(`${opts.second} wins`, H - B - 2);
    for (let r = 0; r <= maxR; r += Math.max(1, Math.ceil(maxR / 4))) {
      const d = 6 + (half - 6) * r / maxR;
      for (const yy of [mid - d, mid + d]) svg.append(el('line', { x1: L, x2: W - R, y1: yy, y2: yy, class: 'chart-grid' }, `remoteness ${r}`));
    }
  } else {
    const maxC = Math.max(2, ...known.map(([p]) => p.count ?? 1));
    const top = T + 4, bottom = H - B - 4;
    y = p => bottom - (bottom - top) * (p.count - 1) / (maxC - 1);
    colour = p => ({ solvable: 'green', unsolvable: 'red' }[p.value] || 'blue');
    for (const c of [1, maxC]) {
      const yy = bottom - (bottom - top) * (c - 1) / (maxC - 1);
      svg.append(el('line', { x1: L, x2: W - R, y1: yy, y2: yy, class: 'chart-grid' }));
      const t = el('text', { x: L - 12, y: yy + 4, class: 'chart-label' }); t.textContent = `${c} ${c === 1 ? opts.unit.replace(/s$/, '') : opts.unit}`; svg.append(t);
    }
  }
  // The row of positions not known (yet): hollow markers, off every value line.
  svg.append(el('line', { x1: L, x2: W - R, y1: unknownY, y2: unknownY, class: 'chart-grid' }));
  const ul = el('text', { x: L - 12, y: unknownY + 4, class: 'chart-label' }); ul.textContent = '? unknown'; svg.append(ul);
  // Move numbers across.
  const every = Math.ceil(n / 16) || 1;
  for (let i = 0; i <= n; i += every) {
    const t = el('text', { x: x(i), y: H - 6, class: 'chart-tick' }); t.textContent = i; svg.append(t);
  }
  // The line through consecutive known points (broken at an unknown one), then the dots.
  let path = '';
  for (const [p, i] of known) path += `${path && isKnown(points[i - 1]) ? 'L' : 'M'} ${x(i)} ${y(p)} `;
  if (path) svg.append(el('path', { d: path, class: 'chart-line' }));
  points.forEach((p, i) => {
    if (isKnown(p) || i > n) return;
    const d = el('circle', { cx: x(i), cy: unknownY, r: i === n ? 6 : 4.5, class: `dot unknown${i === n ? ' chart-current' : ''}`,
      'data-index': i, 'data-colour': 'unknown' }, `after ${i} move(s): ${p ? 'not decided within the budget' : 'not asked yet'}`);
    if (opts.onPick) d.onclick = () => opts.onPick(i);
    svg.append(d);
  });
  for (const [p, i] of known) {
    const title = opts.kind === 'game'
      ? `after ${i} move(s): ${p.value}${p.remoteness != null ? ` in ${p.remoteness}` : ''} for ${p.moverFirst ? opts.first : opts.second} to move`
      : `after ${i} move(s): ${p.value}${p.count != null ? `, ${p.count} ${opts.unit} at best` : ''}`;
    const c = colour(p);
    const d = el('circle', { cx: x(i), cy: y(p), r: i === n ? 7 : 5, class: `dot ${c}${i === n ? ' chart-current' : ''}`,
      'data-index': i, 'data-colour': c }, title);
    if (opts.onPick) d.onclick = () => opts.onPick(i);
    svg.append(d);
  }
}
