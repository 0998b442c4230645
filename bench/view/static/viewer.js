// The page: a run's tables (sortable), its figures, and the replay of one row at a time.
// Data comes from /api/index and /api/replay?key=KEY (see bench/view/server.py).

import { drawBoard } from "./draw.js";
import { drawPlot } from "./plot.js";

const $ = (id) => document.getElementById(id);
const COLOURS = ["#1f6feb", "#d6336c", "#2f9e44", "#ae3ec9", "#f08c00", "#0c8599"];
const MAX_ROWS = 500;

const view = { index: null, replay: null, step: 0, timer: null, rows: [] };

async function getJSON(url) {
  const response = await fetch(url);
  let body;
  try {
    body = await response.json();
  } catch (err) {
    body = { error: response.statusText };
  }
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

const fmt = (v, digits = 2) => {
  if (v === null || v === undefined || v === "") return "n/a";
  if (typeof v === "number") {
    if (Number.isInteger(v)) return v.toLocaleString("en-US");
    return v.toLocaleString("en-US", { maximumFractionDigits: digits });
  }
  return String(v);
};

// --------------------------------------------------------------------------- sortable tables
/** The number a cell sorts by ("12,345", "21.50 [20.1, 22.3]", 7), or null. */
function sortKey(v) {
  if (typeof v === "number") return v;
  if (v === null || v === undefined) return null;
  const m = String(v).replace(/,/g, "").match(/^\s*(-?\d+(\.\d+)?(e[-+]?\d+)?)/i);
  return m ? parseFloat(m[1]) : null;
}

/**
 * A table with sortable columns. `columns`: [{label, get(row) -> value, render(row, td)?}];
 * `rows`: any objects; `onRow(row, tr)` decorates each row.
 */
function makeTable(container, columns, rows, onRow = null) {
  const table = document.createElement("table");
  table.className = "data";
  const head = table.createTHead().insertRow();
  const body = table.createTBody();
  let order = { col: -1, dir: 1 };
  const fill = (list) => {
    body.replaceChildren();
    for (const row of list) {
      const tr = body.insertRow();
      columns.forEach((c, i) => {
        const td = tr.insertCell();
        if (c.render) c.render(row, td);
        else td.textContent = fmt(c.get(row));
        if (i > 0 && c.left) td.className = "left";
      });
      if (onRow) onRow(row, tr);
    }
  };
  columns.forEach((c, i) => {
    const th = document.createElement("th");
    th.textContent = c.label;
    if (c.get) {
      th.className = "sortable";
      th.title = "sort";
      th.addEventListener("click", () => {
        order = { col: i, dir: order.col === i ? -order.dir : 1 };
        head.querySelectorAll("th").forEach((t) => t.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", order.dir > 0 ? "ascending" : "descending");
        const sorted = [...rows].sort((a, b) => {
          const va = c.get(a);
          const vb = c.get(b);
          const na = sortKey(va);
          const nb = sortKey(vb);
          if (na !== null && nb !== null) return (na - nb) * order.dir;
          if (na !== null) return -1; // numbers before "n/a", whatever the direction
          if (nb !== null) return 1;
          return String(va ?? "").localeCompare(String(vb ?? "")) * order.dir;
        });
        fill(sorted);
      });
    }
    head.appendChild(th);
  });
  fill(rows);
  container.replaceChildren(table);
  return table;
}

function summaryTable(container, table) {
  const columns = table.header.map((label, i) => ({ label, get: (row) => row[i], left: i === 0 }));
  makeTable(container, columns, table.rows);
}

// --------------------------------------------------------------------------- the rows
function rowsTable() {
  const needle = $("filter").value.trim().toLowerCase();
  const all = view.index.rows;
  const hits = needle
    ? all.filter((r) => [r.key, r.status, r.config, r.instance, r.instance_set]
      .some((v) => String(v ?? "").toLowerCase().includes(needle)))
    : all;
  const shown = hits.slice(0, MAX_ROWS);
  $("rows-count").textContent = hits.length > MAX_ROWS
    ? `${hits.length} rows match; the first ${MAX_ROWS} are listed (filter to narrow)`
    : `${hits.length} of ${all.length} rows`;
  const columns = [
    { label: "", render: (r, td) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = "replay";
      b.dataset.key = r.key;
      b.addEventListener("click", () => openReplay(r.key, true));
      td.appendChild(b);
    } },
    { label: "instance set", get: (r) => r.instance_set, left: true },
    { label: "instance", get: (r) => r.instance, left: true },
    { label: "configuration", get: (r) => r.config, left: true },
    { label: "status", get: (r) => r.status, left: true },
    { label: "length", get: (r) => r.length },
    { label: "optimal", get: (r) => r.optimal },
    { label: "nodes", get: (r) => r.nodes_generated },
    { label: "time s", get: (r) => r.time_s },
  ];
  makeTable($("rows"), columns, shown, (r, tr) => {
    tr.dataset.key = r.key;
    if (view.replay && view.replay.key === r.key) tr.classList.add("current");
  });
}

// --------------------------------------------------------------------------- replay
function stop() {
  if (view.timer !== null) clearInterval(view.timer);
  view.timer = null;
  $("play").innerHTML = "&#9654; play";
}

function play() {
  const r = view.replay;
  if (!r) return;
  if (view.timer !== null) {
    stop();
    return;
  }
  if (view.step >= r.states.length - 1) show(0);
  const rate = parseFloat($("speed").value) || 2;
  view.timer = setInterval(() => {
    if (view.step >= view.replay.states.length - 1) stop();
    else show(view.step + 1);
  }, 1000 / rate);
  $("play").innerHTML = "&#10074;&#10074; pause";
}

function stepInfo(r, step) {
  const box = $("step-info");
  box.replaceChildren();
  const L = r.states.length - 1;
  const head = document.createElement("div");
  const made = step > 0 ? `after ${r.moves[step - 1]}` : "start";
  const nextMove = step < L ? `next ${r.moves[step]}` : (r.reaches_goal ? "goal" : "end");
  head.innerHTML = `<b>step ${step} of ${L}</b> &middot; ${made} &middot; ${nextMove}`;
  const table = document.createElement("table");
  r.heuristics.forEach((c, i) => {
    const tr = table.insertRow();
    const name = tr.insertCell();
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = COLOURS[i % COLOURS.length];
    name.append(sw, `h ${c.label}`);
    tr.insertCell().textContent = c.values[step] === null ? "\u221e" : fmt(c.values[step], 3);
  });
  const d = r.distance.values[step];
  const tr = table.insertRow();
  tr.insertCell().textContent = "true distance";
  tr.insertCell().textContent = d === null ? "unknown" : fmt(d);
  tr.dataset.role = "distance";
  box.append(head, table);
}

function stepsTable(r) {
  const table = $("steps");
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  for (const label of ["step", "move", ...r.heuristics.map((c) => `h ${c.name}`), "distance"]) {
    const th = document.createElement("th");
    th.textContent = label;
    head.appendChild(th);
  }
  const body = table.createTBody();
  r.states.forEach((_, i) => {
    const tr = body.insertRow();
    tr.insertCell().textContent = String(i);
    tr.insertCell().textContent = i > 0 ? r.moves[i - 1] : "";
    for (const c of r.heuristics) {
      tr.insertCell().textContent = c.values[i] === null ? "\u221e" : fmt(c.values[i], 3);
    }
    const d = r.distance.values[i];
    tr.insertCell().textContent = d === null ? "" : String(d);
    tr.addEventListener("click", () => show(i));
  });
}

function show(step) {
  const r = view.replay;
  if (!r) return;
  const L = r.states.length - 1;
  step = Math.max(0, Math.min(L, step));
  view.step = step;
  const board = $("board");
  drawBoard(board, r.board, r.states[step], step < L ? r.states[step + 1] : null,
            step < L ? r.moves[step] : null, step < L ? r.action_ids[step] : null);
  board.dataset.key = r.key;
  board.dataset.step = String(step);
  board.dataset.length = String(L);
  $("slider").value = String(step);
  stepInfo(r, step);
  $("moves").querySelectorAll("button").forEach((b, i) => {
    b.classList.toggle("done", i < step - 1);
    b.classList.toggle("current", i === step - 1);
  });
  const plots = $("plots");
  plots.replaceChildren();
  r.heuristics.forEach((c, i) => {
    drawPlot(plots, c, r.distance, step, COLOURS[i % COLOURS.length], (j) => { stop(); show(j); });
  });
  $("steps").querySelectorAll("tbody tr").forEach((tr, i) => {
    tr.classList.toggle("current", i === step);
  });
}

async function openReplay(key, scroll = false) {
  stop();
  $("replay").hidden = false;
  $("replay-error").hidden = true;
  $("replay-title").textContent = `loading ${key}\u2026`;
  let r;
  try {
    r = await getJSON(`/api/replay?key=${encodeURIComponent(key)}`);
  } catch (err) {
    $("replay-title").textContent = key;
    $("replay-error").textContent = `cannot replay: ${err.message}`;
    $("replay-error").hidden = false;
    $("replay-body").hidden = true;
    return;
  }
  $("replay-body").hidden = false;
  view.replay = r;
  $("replay-title").textContent = r.title;
  const meta = [`${r.solver} with ${r.heuristic}`, `status ${r.status}`];
  if (r.length !== null && r.length !== undefined) meta.push(`length ${r.length}`);
  if (r.optimal !== null && r.optimal !== undefined) meta.push(`reference optimum ${r.optimal}`);
  if (r.nodes_generated !== null && r.nodes_generated !== undefined) {
    meta.push(`${fmt(r.nodes_generated)} nodes`);
  }
  if (r.time_s !== null && r.time_s !== undefined) {
    meta.push(r.time_s < 0.001 ? "under 1 ms" : `${fmt(r.time_s, 3)} s`);
  }
  if (r.h_start_recorded !== null && r.h_start_recorded !== undefined) {
    meta.push(`h(start) recorded by the search ${fmt(r.h_start_recorded, 3)}`);
  }
  meta.push(`start ${r.start}`);
  $("replay-meta").textContent = meta.join(" \u00b7 ");
  const slider = $("slider");
  slider.max = String(r.states.length - 1);
  const moves = $("moves");
  moves.replaceChildren();
  r.moves.forEach((m, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = m;
    b.title = `state after move ${i + 1}`;
    b.addEventListener("click", () => { stop(); show(i + 1); });
    moves.appendChild(b);
  });
  const sib = $("siblings");
  sib.replaceChildren();
  if (r.siblings && r.siblings.length > 1) {
    sib.append("same instance: ");
    for (const s of r.siblings) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = `${s.config} (${s.status}${s.length !== null ? `, ${s.length}` : ""})`;
      if (s.key === r.key) b.className = "current";
      b.addEventListener("click", () => openReplay(s.key));
      sib.appendChild(b);
    }
  }
  const notes = $("unavailable");
  notes.replaceChildren();
  for (const u of r.unavailable) {
    const li = document.createElement("li");
    li.textContent = `${u.label}: ${u.reason}`;
    notes.appendChild(li);
  }
  $("distance-source").textContent = `True distance: ${r.distance.source}.`
    + (r.reaches_goal ? "" : " The path does not end at a goal.");
  stepsTable(r);
  show(0);
  document.querySelectorAll("#rows tr.current").forEach((tr) => tr.classList.remove("current"));
  document.querySelectorAll(`#rows tr`).forEach((tr) => {
    if (tr.dataset.key === r.key) tr.classList.add("current");
  });
  history.replaceState(null, "", `#replay=${encodeURIComponent(key)}`);
  if (scroll) $("replay").scrollIntoView({ behavior: "smooth", block: "start" });
}

// --------------------------------------------------------------------------- page
function controls() {
  $("first").addEventListener("click", () => { stop(); show(0); });
  $("prev").addEventListener("click", () => { stop(); show(view.step - 1); });
  $("next").addEventListener("click", () => { stop(); show(view.step + 1); });
  $("last").addEventListener("click", () => { stop(); show(Infinity); });
  $("play").addEventListener("click", play);
  $("speed").addEventListener("change", () => {
    if (view.timer !== null) { stop(); play(); }
  });
  $("slider").addEventListener("input", (ev) => { stop(); show(parseInt(ev.target.value, 10)); });
  $("filter").addEventListener("input", rowsTable);
  document.addEventListener("keydown", (ev) => {
    if (!view.replay || ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
    const keys = {
      ArrowRight: () => { stop(); show(view.step + 1); },
      ArrowLeft: () => { stop(); show(view.step - 1); },
      Home: () => { stop(); show(0); },
      End: () => { stop(); show(Infinity); },
      " ": play,
    };
    if (keys[ev.key]) {
      ev.preventDefault();
      keys[ev.key]();
    }
  });
}

async function main() {
  controls();
  let index;
  try {
    index = await getJSON("/api/index");
  } catch (err) {
    $("load-error").textContent = `cannot load the view: ${err.message}`;
    $("load-error").hidden = false;
    return;
  }
  view.index = index;
  document.title = `bench view: ${index.title}`;
  $("title").textContent = index.title;
  $("subtitle").textContent = index.path ? index.path : "";
  if (index.text) {
    $("text").textContent = index.text;
    $("text").hidden = false;
  }
  if (index.sets && index.sets.length) {
    $("summary-box").hidden = false;
    const box = $("summary");
    box.replaceChildren();
    for (const set of index.sets) {
      const title = document.createElement("h3");
      title.textContent = `${set.name} (${set.instances} instances)`;
      const table = document.createElement("div");
      table.className = "scroll set-summary";
      box.append(title, table);
      summaryTable(table, set);
      if (set.comparison && set.comparison.rows.length) {
        const ctitle = document.createElement("h4");
        ctitle.textContent = `${set.name}: on the ${set.comparison.n} instances solved by every `
          + "configuration (that solved any)";
        const ctable = document.createElement("div");
        ctable.className = "scroll set-comparison";
        box.append(ctitle, ctable);
        summaryTable(ctable, set.comparison);
        if (set.comparison.left_out) {
          const gone = document.createElement("p");
          gone.className = "meta";
          gone.textContent = set.comparison.left_out;
          box.append(gone);
        }
      }
      const legend = document.createElement("pre");
      legend.className = "meta legend";
      legend.textContent = set.legend;
      box.append(legend);
    }
    $("reference-note").textContent = index.reference_note || "";
  }
  if (index.mode === "run") {
    $("rows-box").hidden = false;
    rowsTable();
  }
  if (index.figures && index.figures.length) {
    $("figures-box").hidden = false;
    for (const name of index.figures) {
      const fig = document.createElement("figure");
      const img = document.createElement("img");
      img.src = `/figures/${encodeURIComponent(name)}`;
      img.alt = name;
      img.loading = "lazy";
      const cap = document.createElement("figcaption");
      cap.textContent = name;
      fig.append(img, cap);
      $("figures").appendChild(fig);
    }
  }
  const wanted = new URLSearchParams(window.location.hash.slice(1)).get("replay");
  const first = wanted || index.open;
  if (first) await openReplay(first);
  document.body.dataset.ready = "1";
}

main();
