// The input beside the report: the map of the whole input (Session.map, binned to the width) and
// the window of lines around a place (Session.window), and the jumps between them.

import { sanitize, el, text } from "./dom.js";

/** A map bin's least width and the gap between bins (style.css's `.fa-map`), in CSS pixels. */
const MIN_BIN = 4;

const MAP_GAP = 2;

const RANK = { none: 0, superseded: 1, evidence: 2, other: 3, echo: 4, first: 5 };

/** A line number as the progress line says it: 1,234,567 (zh as well). */
export function lineNo(n) {
  return Number(n).toLocaleString("en");
}

/** A box's gutter fits its longest number, so seven digits do not touch the text and two do
 * not waste a phone's width: a class per width (style.css's `.g1`-`.g13`; no inline style). */
function fitGutter(box, numbers) {
  const widest = Math.max(1, ...numbers.map((n) => lineNo(n).length));
  box.classList.add(`g${Math.min(widest, 13)}`);
}

/** Of map entries merged into one bin: the one with the strongest mark (the first of them),
 * so the bin shows that mark and jumps there. */
function strongest(entries) {
  return entries.reduce((best, e) => ((RANK[e.mark] ?? 0) > (RANK[best.mark] ?? 0) || (best.line == null && e.line != null && RANK[e.mark] === RANK[best.mark]) ? e : best));
}

/** The ReportView methods of this part (report-view.js mixes them into its class). */
export const linesView = {
  lineRow(no, s, mark) {
    const row = el("div", `fa-line mark-${mark}`);
    row.setAttribute("data-line", String(no));
    const code = el("code", "fa-text");
    // Confirmed, the first mark is where the probe (or the CPU) caught the bad value.
    const first = this.report?.verdict === "confirmed" ? "view_sr_caught" : "view_sr_first";
    const sr = { first, echo: "view_sr_echo", other: "view_sr_other", evidence: "view_sr_evidence" }[mark];
    if (sr) code.append(text("span", "fa-sr", this.t(sr)));
    code.append(sanitize(s));
    row.append(text("span", "fa-no", lineNo(no)), code);
    return row;
  },

  /** A box of lines: a region a keyboard can reach and a screen reader can name. */
  linesBox(label) {
    const box = el("div", "fa-lines");
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", label);
    box.tabIndex = 0;
    return box;
  },

  jumpButton(label, cell, line, log = false) {
    const b = text("button", "fa-jump", label);
    b.type = "button";
    b.setAttribute("data-action", "jump");
    b.setAttribute("data-line", String(line));
    // A line of the runtime log read beside the input: no cell of the notebook to reveal.
    if (log) b.setAttribute("data-log", "true");
    else if (cell != null) b.setAttribute("data-cell", String(cell));
    return b;
  },

  jumpTo(at) {
    return this.jumpButton(at.where, at.cell, at.line, at.runtime_log === true);
  },

  map() {
    const s = this.section("map", this.t("view_map_title"));
    const input = this.report.input ?? {};
    // A map says something only of a longer input: more than ~60 lines, or several cells.
    if ((input.lines ?? 0) > 60 || (input.cells ?? 0) > 1 || input.runtime_log) {
      const legend = el("p", "fa-legend");
      const keys = [
        ["first", this.report.verdict === "confirmed" ? "view_legend_caught" : "view_legend_first"],
        ["echo", "view_legend_echo"],
        ["other", "view_legend_other"],
        ["evidence", "view_legend_evidence"],
      ];
      if (input.superseded_cells?.length) keys.push(["superseded", "view_legend_superseded"]);
      for (const [mark, key] of keys) {
        legend.append(text("span", `fa-key mark-${mark}`, this.t(key)));
      }
      s.append(legend);
      const cells = input.format !== "text";
      const map = el("ul", cells ? "fa-map cells" : "fa-map lines");
      map.setAttribute("aria-label", this.t("view_map_title"));
      s.append(map);
      // A log's runs of lines, merged so that all of them fit the strip (a phone's is ~340 px
      // for the engine's 120 runs): each keeps the strongest mark among those it merges.
      const entries = this.session.map();
      // A marked cell says what it holds in words (a phone has no hover for the title).
      const first = this.report.verdict === "confirmed" ? "view_legend_caught" : "view_legend_first";
      const words = { first, echo: "view_legend_echo", other: "view_legend_other", evidence: "view_legend_evidence" };
      const fit = Math.max(12, Math.floor((map.clientWidth + MAP_GAP) / (MIN_BIN + MAP_GAP)));
      const k = cells || !map.clientWidth ? 1 : Math.ceil(entries.length / fit);
      for (let i = 0; i < entries.length; i += k) {
        const e = strongest(entries.slice(i, i + k));
        const li = el("li");
        const label = cells && words[e.mark] ? `${e.label} ${this.t(words[e.mark])}` : e.label;
        const node = e.line != null ? this.jumpButton(label, e.cell, e.line, e.log) : text("span", "", label);
        node.setAttribute("class", `fa-bin mark-${e.mark}`);
        node.setAttribute("title", e.title);
        if (e.line != null) node.setAttribute("aria-label", label === e.label ? e.title : `${e.title}: ${label}`);
        li.append(node);
        map.append(li);
      }
    }
    const w = el("div", "fa-window");
    w.setAttribute("data-testid", "window");
    s.append(w);
    this.fillWindow(w, this.target);
  },

  /** Fills the window with the lines around a place (`target`: `{ cell, line, log }`; without
   * one, where the engine opens first: the first assert, else the first other error); `then`
   * runs once they are shown. The session answers at once (the package) or later (the engine
   * in a worker): both work. */
  fillWindow(w, target, then = null) {
    const draw = (win) => {
      if (!win) return;
      const { cell, line, log } = win;
      w.replaceChildren();
      w.setAttribute("data-cell", cell == null ? "" : String(cell));
      w.setAttribute("data-line", String(line));
      w.setAttribute("data-log", log ? "true" : "false");
      const heading = this.t("view_window_at", { at: win.at });
      w.append(text("h3", "", heading));
      const lines = this.linesBox(heading);
      fitGutter(lines, win.lines.map((l) => l.no));
      // A kernel's record repeated by thread after thread (the engine folds the run under its
      // first line): one line, the rest on demand.
      for (let i = 0; i < win.lines.length; i++) {
        const head = win.lines[i];
        const row = this.lineRow(head.no, head.text, head.mark);
        if (head.no === line) row.classList.add("target");
        lines.append(row);
        if (!(head.repeats > 0)) continue;
        const more = win.lines.slice(i + 1, i + 1 + head.repeats);
        i += more.length;
        const det = el("details", "fa-repeat");
        const args = { n: more.length, from: head.threads?.[0], to: head.threads?.[1] };
        det.append(text("summary", "", this.t(head.threads ? "view_repeat_threads" : "view_repeat_lines", args)));
        for (const l of more) det.append(this.lineRow(l.no, l.text, l.mark));
        lines.append(det);
      }
      w.append(lines);
      then?.();
    };
    const win = target ? this.session.window(target.cell ?? undefined, target.line, target.log) : this.session.window();
    if (typeof win?.then === "function") win.then(draw, () => {});
    else draw(win);
  },

  /** Shows the lines around a place in the window (and keeps it across re-renders). */
  jump(cell, line, log = false) {
    this.target = { cell: cell ?? null, line: Math.max(1, Math.floor(line)), log };
    const w = this.root.querySelector("[data-testid=window]");
    if (!w || !this.session) return;
    this.fillWindow(w, this.target, () => {
      // Focus goes where the jump lands, with a way back to the answer.
      const back = text("button", "button quiet fa-back", this.t("view_back"));
      back.type = "button";
      back.setAttribute("data-action", "back");
      w.append(back);
      const lines = w.querySelector(".fa-lines");
      lines?.scrollIntoView({ block: "nearest" });
      lines?.focus({ preventScroll: true });
    });
  },
};
