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
  let s = `${h.move ?? h.op}: ${h.value}`;
  if (h.remoteness !== undefined && h.remoteness !== null) s += ` in ${h.remoteness}`;
  if (h.min_stones !== undefined && h.min_stones !== null) s = `${h.op}: at best ${h.min_stones} stone(s) left`;
  return s;
}
