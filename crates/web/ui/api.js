// Calls the JSON API; errors (`{"error": ...}`) become exceptions with that message.
// A busy solver (HTTP 503) is asked again a few times.
export async function api(path, params) {
  const url = params ? `${path}?${new URLSearchParams(params)}` : path;
  let r = await fetch(url);
  for (let i = 0; i < 8 && r.status === 503; i++) {
    await new Promise(ok => setTimeout(ok, 500));
    r = await fetch(url);
  }
  const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error(body.error || `HTTP ${r.status}`);
  return body;
}

export const SVG = 'http://www.w3.org/2000/svg';

// Makes an SVG element with attributes (class, data-* …) and an optional title (hover text).
export function el(tag, attrs = {}, title) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (title) { const t = document.createElementNS(SVG, 'title'); t.textContent = title; e.append(t); }
  return e;
}

// The hover text of a hint: value and remoteness (or the result of a puzzle move).
export function hintTitle(h) {
  if (!h) return '';
  if (h.min_stones !== undefined) {
    return h.min_stones === null ? `${h.op}: undecided within the budget` : `${h.op}: at best ${h.min_stones} stone(s) left`;
  }
  if (h.best_pegs !== undefined) {
    if (h.value === 'solvable') return `${h.move}: solvable, ${h.remoteness} move(s) to the goal`;
    if (h.value === 'unsolvable') {
      return `${h.move}: unsolvable` + (h.best_pegs != null ? `; ${h.best_pegs} peg(s) at best${h.best_proven ? '' : ' found'}` : '');
    }
    return `${h.move}: undecided within the budget`;
  }
  let s = `${h.move ?? h.op}: ${h.value}`;
  if (h.remoteness !== undefined && h.remoteness !== null) s += ` in ${h.remoteness}`;
  return s;
}
