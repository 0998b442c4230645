// The plot of one heuristic along a path: h at every step (solid), the true remaining distance
// where known (dashed), and a marker at the step shown. A click on the plot jumps to a step.

const SVG = "http://www.w3.org/2000/svg";
const W = 380;
const H = 210;
const M = { left: 40, right: 12, top: 10, bottom: 32 };

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

function label(parent, x, y, content, attrs = {}) {
  const t = el("text", { x, y, "font-size": 11, fill: "#5d6675", ...attrs }, parent);
  t.textContent = content;
  return t;
}

/** About five round tick values from 0 to `max` (`whole`: integers only). */
function ticks(max, whole = false) {
  const raw = whole ? Math.max(1, max / 5) : max / 5;
  const mag = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-9)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((v) => v >= raw) || raw;
  const out = [];
  for (let v = 0; v <= max + 1e-9; v += step) out.push(Math.round(v * 1e6) / 1e6);
  return out;
}

/** Polylines through the known (non-null) values; a gap breaks the line. */
function segments(values, x, y) {
  const out = [];
  let cur = [];
  values.forEach((v, i) => {
    if (v === null || v === undefined) {
      if (cur.length) out.push(cur);
      cur = [];
    } else {
      cur.push([x(i), y(v)]);
    }
  });
  if (cur.length) out.push(cur);
  return out;
}

const pts = (seg) => seg.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(" ");

/**
 * Draw a panel for `curve` ({label, values, admissible, overestimates}) against `distance`
 * ({values}) into `container`; `step` is marked; `onJump(step)` is called on a click.
 */
export function drawPlot(container, curve, distance, step, colour, onJump) {
  const n = curve.values.length;
  const last = Math.max(n - 1, 1);
  const known = [...curve.values, ...(distance.values || [])].filter((v) => v !== null);
  const ymax = Math.max(1, ...known) * 1.05;
  const x = (i) => M.left + (i / last) * (W - M.left - M.right);
  const y = (v) => H - M.bottom - (v / ymax) * (H - M.top - M.bottom);

  const root = el("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
                           "aria-label": `h along the path: ${curve.label}` });
  // axes and grid
  for (const t of ticks(ymax / 1.05)) {
    el("line", { x1: M.left, x2: W - M.right, y1: y(t), y2: y(t), stroke: "#eceef2" }, root);
    label(root, M.left - 5, y(t) + 4, String(t), { "text-anchor": "end" });
  }
  for (const t of ticks(last, true)) {
    if (t > last) continue;
    label(root, x(t), H - M.bottom + 14, String(t), { "text-anchor": "middle" });
  }
  el("line", { x1: M.left, x2: M.left, y1: M.top, y2: H - M.bottom, stroke: "#888" }, root);
  el("line", { x1: M.left, x2: W - M.right, y1: H - M.bottom, y2: H - M.bottom, stroke: "#888" },
     root);
  label(root, (M.left + W - M.right) / 2, H - 4, "step (moves made)", { "text-anchor": "middle" });

  // true remaining distance
  const d = distance.values || [];
  for (const seg of segments(d, x, y)) {
    if (seg.length > 1) {
      el("polyline", { points: pts(seg), fill: "none", stroke: "#222", "stroke-width": 1.5,
                       "stroke-dasharray": "5 4", class: "distance" }, root);
    }
    for (const [a, b] of seg) el("circle", { cx: a, cy: b, r: 2.2, fill: "#222" }, root);
  }
  // h
  for (const seg of segments(curve.values, x, y)) {
    el("polyline", { points: pts(seg), fill: "none", stroke: colour, "stroke-width": 2,
                     class: "h" }, root);
    if (seg.length <= 60) {
      for (const [a, b] of seg) el("circle", { cx: a, cy: b, r: 2.4, fill: colour }, root);
    }
  }
  // the step shown
  el("line", { x1: x(step), x2: x(step), y1: M.top, y2: H - M.bottom, stroke: "#e8590c",
               "stroke-width": 1.5, class: "marker" }, root);
  const hv = curve.values[step];
  if (hv !== null && hv !== undefined) {
    el("circle", { cx: x(step), cy: y(hv), r: 4.5, fill: colour, stroke: "#fff",
                   "stroke-width": 1.5 }, root);
  }
  root.addEventListener("click", (ev) => {
    const box = root.getBoundingClientRect();
    const px = ((ev.clientX - box.left) / box.width) * W;
    const i = Math.round(((px - M.left) / (W - M.left - M.right)) * last);
    onJump(Math.max(0, Math.min(n - 1, i)));
  });

  const panel = document.createElement("div");
  panel.className = "plot";
  panel.dataset.heuristic = curve.name;
  const title = document.createElement("h4");
  const swatch = document.createElement("span");
  swatch.style.color = colour;
  swatch.textContent = "\u25A0 ";
  title.append(swatch, curve.label);
  const meta = document.createElement("p");
  meta.className = "meta";
  const parts = [curve.admissible ? "admissible" : "not admissible"];
  if (curve.overestimates !== null && curve.overestimates !== undefined) {
    const compared = d.filter((v) => v !== null).length;
    parts.push(`h > true distance at ${curve.overestimates} of ${compared} states`);
  }
  parts.push("dashed: true distance");
  meta.textContent = parts.join(" \u00b7 ");
  panel.append(title, meta, root);
  container.append(panel);
}
