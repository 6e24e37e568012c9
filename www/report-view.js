// The report as DOM, built node by node: every text from the input goes in through text nodes
// (textContent), never through HTML parsing, and control characters from the input are made
// visible, never interpreted. Styles come from classes only, so the page works under a CSP
// without 'unsafe-inline'. The engine (pkg/) decides everything shown: the report, and, from
// the input it keeps, the map and the windows of lines (Session.map, Session.window); this only
// builds nodes and handles the clicks in them (jumps, copy buttons, checklist boxes).
//
//   const view = new ReportView(element, { messages });   // the catalogue's messages
//   view.show(report, session);                           // session: a Session, or null
//   view.jump(cell, line);                                // the window at a place
//
// A report needs no session (a report from elsewhere): then there is no map and no window.

/** Text from the input, made safe to show: control characters (C0, DEL, C1) and bidirectional
 * controls become visible `\u{..}`; tabs become spaces (the engine's `sanitize`). */
export function sanitize(s) {
  return String(s ?? "").replace(
    /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g,
    (c) => (c === "\t" ? "    " : `\\u{${c.codePointAt(0).toString(16)}}`),
  );
}

/** A message with each `{name}` replaced; unknown names stay visible. */
function fill(template, args = {}) {
  return String(template ?? "").replace(/\{(\w+)\}/g, (m, name) => (name in args ? String(args[name]) : m));
}

function el(tag, cls = "") {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

function text(tag, cls, s) {
  const e = el(tag, cls);
  e.textContent = sanitize(s);
  return e;
}

/** Like text() for several lines (code): line breaks stay. */
function linesText(tag, cls, s) {
  const e = el(tag, cls);
  e.textContent = String(s ?? "").split("\n").map(sanitize).join("\n");
  return e;
}

function range([lo, hi]) {
  const t = (v) => `[${v[0]},${v[1]},${v[2]}]`;
  return lo.join() === hi.join() ? t(lo) : `${t(lo)}–${t(hi)}`;
}

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // blocked (sandboxed frame, privacy settings): ticks are not remembered
  }
}

function loadDone(key) {
  const done = new Set();
  try {
    const ids = JSON.parse(storage()?.getItem(key) ?? "[]");
    if (Array.isArray(ids)) for (const id of ids.slice(0, 32)) if (typeof id === "string" && id.length < 64) done.add(id);
  } catch {
    // unreadable: nothing ticked
  }
  return done;
}

export class ReportView {
  constructor(root, { messages }) {
    this.root = root;
    this.messages = messages ?? {};
    this.report = null;
    this.session = null;
    this.snippets = [];
    this.done = new Set();
    this.key = null;
    this.target = null;
    root.addEventListener("click", (e) => this.onClick(e));
    root.addEventListener("change", (e) => this.onChange(e));
  }

  t(key, args) {
    return fill(this.messages[key] ?? key, args);
  }

  /** Where something is (an object with `line`, `cell`, `execution_count`, as the report's
   * places are): `line 12`, or `cell [3], line 12` in a notebook. */
  where(at) {
    if (at.runtime_log === true) return this.t("at_runtime_log", { line: at.line });
    if (at.cell == null) return this.t("at_line", { line: at.line });
    if (at.execution_count != null) return this.t("at_cell", { exec: at.execution_count, line: at.line });
    return this.t("at_cell_pos", { pos: at.cell + 1, line: at.line });
  }

  /** Renders `report` (the engine's object) into the root, replacing what was there. */
  show(report, session = null, messages = null) {
    if (messages) this.messages = messages;
    const sameInput = session && this.session === session && this.key === session.storageKey?.();
    this.report = report;
    this.session = session;
    this.key = session?.storageKey?.() ?? null;
    if (!sameInput) this.target = null;
    this.done = this.key ? loadDone(this.key) : new Set();
    this.render();
  }

  render() {
    const r = this.report;
    const root = this.root;
    this.snippets = [];
    root.replaceChildren();
    if (!r) return;
    root.className = `fa-report verdict-${r.verdict}`;
    root.setAttribute("lang", r.lang === "zh" ? "zh-Hans" : "en");
    root.setAttribute("data-verdict", r.verdict);

    const head = text("p", "fa-headline", r.headline);
    head.setAttribute("data-testid", "headline");
    head.setAttribute("role", "status");
    root.append(head);

    if (r.first_assert) this.firstAssert(r.first_assert);
    if (r.cause) this.cause(r.cause);
    if (r.stack) this.stack(r.stack, r.raised_at);
    if (r.echo_count > 0) this.echoes(r);
    if (r.other_errors?.length) this.others(r.other_errors);
    if (this.session && r.verdict !== "clean") this.map();
    if (r.checklist?.length) this.checklist(r.checklist);
    if (r.notes?.length) {
      const s = this.section("notes", this.t("view_notes_title"));
      const ul = el("ul", "fa-notes");
      for (const n of r.notes) {
        const li = text("li", "", n.text);
        li.setAttribute("data-note", n.id);
        ul.append(li);
      }
      s.append(ul);
    }
  }

  section(testid, title) {
    const s = el("section", `fa-section fa-section-${testid}`);
    s.setAttribute("data-testid", testid);
    s.append(text("h2", "", title));
    this.root.append(s);
    return s;
  }

  paragraphs(parent, s) {
    for (const p of String(s ?? "").split("\n\n").map((p) => p.trim()).filter(Boolean)) {
      parent.append(text("p", "", p.replaceAll("\n", " ")));
    }
  }

  lineRow(no, s, mark) {
    const row = el("div", `fa-line mark-${mark}`);
    row.setAttribute("data-line", String(no));
    row.append(text("span", "fa-no", String(no)), text("code", "fa-text", s));
    return row;
  }

  jumpButton(label, cell, line, log = false) {
    const b = text("button", "fa-jump", label);
    b.type = "button";
    b.setAttribute("data-action", "jump");
    b.setAttribute("data-line", String(line));
    // A line of the runtime log read beside the input: no cell of the notebook to reveal.
    if (log) b.setAttribute("data-log", "true");
    else if (cell != null) b.setAttribute("data-cell", String(cell));
    return b;
  }

  jumpTo(at) {
    return this.jumpButton(this.where(at), at.cell, at.line, at.runtime_log === true);
  }

  codeBlock(code) {
    // A page of code (the probe cell) scrolls in its box; its copy button takes all of it.
    const wrap = el("div", code.split("\n").length > 24 ? "fa-code fa-code-long" : "fa-code");
    const pre = el("pre");
    pre.append(linesText("code", "", code));
    const b = text("button", "fa-copy", this.t("view_copy"));
    b.type = "button";
    b.setAttribute("data-action", "copy");
    b.setAttribute("data-copy", String(this.snippets.length));
    this.snippets.push(code);
    wrap.append(pre, b);
    return wrap;
  }

  /** `s` as text, with the first occurrence of `matched` in a <mark>. */
  marked(parent, s, matched) {
    const t = sanitize(s);
    const m = matched ? sanitize(matched) : "";
    const i = m ? t.indexOf(m) : -1;
    if (i < 0) return parent.append(document.createTextNode(t));
    const mark = el("mark");
    mark.textContent = t.slice(i, i + m.length);
    parent.append(document.createTextNode(t.slice(0, i)), mark, document.createTextNode(t.slice(i + m.length)));
  }

  firstAssert(f) {
    const s = this.section("first-assert", this.t("view_first_title"));
    s.append(text("p", "fa-where", this.where(f)));
    const ctx = el("div", "fa-lines");
    for (const c of f.context ?? []) if (c.line < f.line) ctx.append(this.lineRow(c.line, c.text, "none"));
    const first = this.lineRow(f.line, f.text, "first");
    first.setAttribute("data-testid", "first-assert-line");
    ctx.append(first);
    const last = f.end_line ?? f.line;
    for (const c of f.context ?? []) if (c.line > last) ctx.append(this.lineRow(c.line, c.text, "none"));
    s.append(ctx);
    const site = f.site;
    if (!site) return;
    const det = el("details", "fa-site");
    let sum = site.file.split(/[\\/]/).pop();
    if (site.line != null) sum += `:${site.line}`;
    const name = site.name ?? site.function;
    if (name) sum += ` · ${name}`;
    if (site.condition != null) sum += ` · \`${site.condition}\``;
    det.append(text("summary", "", `${this.t("view_site")}: ${sum}`));
    const rep = f.repeats;
    if (rep) {
      det.append(
        text("p", "", this.t("report_repeats", {
          count: rep.count,
          threads: Math.max(rep.threads, 1),
          blocks: Math.max(rep.blocks, 1),
          last: rep.last_line,
        })),
      );
      if (rep.block_range && rep.thread_range) {
        det.append(text("p", "", this.t("view_ranges", { blocks: range(rep.block_range), threads: range(rep.thread_range) })));
      }
    }
    det.append(text("p", "fa-path", site.file));
    if (site.function) det.append(text("p", "fa-path", site.function));
    s.append(det);
  }

  cause(c) {
    const s = this.section("cause", this.t("view_cause_title"));
    s.setAttribute("data-category", c.category);
    s.setAttribute("data-rule", c.rule);
    const title = el("p", "fa-cause-title");
    title.append(text("span", "fa-category", c.category), text("strong", "", c.title));
    const pct = Math.round(c.confidence * 100);
    if (pct > 0) {
      const conf = text("span", "fa-confidence", this.t("report_confidence", { pct }));
      conf.setAttribute("data-confidence", String(pct));
      title.append(conf);
    }
    s.append(title, text("p", "fa-summary", c.summary));
    if (c.evidence?.length) {
      s.append(text("h3", "", this.t("view_evidence")));
      const ul = el("ul", "fa-evidence");
      for (const e of c.evidence) {
        const li = el("li", `scope-${e.scope}`);
        const code = el("code");
        this.marked(code, e.text, e.matched);
        li.append(this.jumpTo(e), code);
        ul.append(li);
      }
      s.append(ul);
    }
    s.append(text("h3", "", this.t("view_why")));
    this.paragraphs(s, c.why);
    if (c.snippet != null) {
      s.append(text("h3", "", this.t("view_check")), text("p", "", c.check), this.codeBlock(c.snippet));
    }
    s.append(text("h3", "", this.t("view_fix")));
    this.paragraphs(s, c.fix);
    if (c.ops?.length) s.append(text("p", "fa-ops", `${this.t("view_ops")}: ${c.ops.join(", ")}`));
    s.append(text("p", "fa-rule", `${this.t("view_rule")}: ${c.rule}`));
    if (c.candidates?.length) {
      s.append(text("h3", "", this.t("view_candidates")));
      const ul = el("ul", "fa-candidates");
      for (const k of c.candidates) {
        const li = el("li", "");
        li.setAttribute("data-testid", "candidate");
        li.setAttribute("data-category", k.category);
        li.setAttribute("data-rule", k.rule);
        const pct = Math.round(k.confidence * 100);
        li.append(text("span", "fa-category", k.category), text("strong", "", k.title), text("span", "fa-confidence", this.t("report_confidence", { pct })));
        for (const e of k.evidence ?? []) {
          const p = el("p", "");
          const code = el("code");
          this.marked(code, e.text, e.matched);
          p.append(this.jumpTo(e), code);
          li.append(p);
        }
        ul.append(li);
      }
      s.append(ul);
    }
  }

  stack(st, ra) {
    const s = this.section("stack", this.t("view_stack_title"));
    s.setAttribute("data-trustworthy", st.trustworthy ? "true" : "false");
    s.append(
      text("p", st.trustworthy ? "fa-badge ok" : "fa-badge warn", this.t(st.trustworthy ? "view_trusted" : "view_untrusted")),
      text("p", "fa-explanation", st.explanation),
    );
    if (!ra) return;
    const p = el("p", "fa-raised");
    p.append(this.jumpTo(ra), text("code", "", ra.text));
    s.append(p);
    const code = ra.user_frame?.code;
    if (code != null) {
      const b = el("p", "fa-blamed");
      b.append(text("span", "", `${this.t("view_blamed")}: `), text("code", "", code));
      s.append(b);
    }
  }

  echoes(r) {
    const s = this.section("echoes", this.t("view_echoes_title"));
    s.append(text("p", "", this.t("report_echoes", { n: r.echo_count })));
    const ol = el("ol", "fa-echoes");
    for (const e of r.echoes ?? []) {
      const li = el("li", `kind-${e.kind}`);
      li.setAttribute("data-testid", "echo");
      li.append(this.jumpTo(e), text("code", "", e.text));
      ol.append(li);
    }
    s.append(ol);
  }

  others(list) {
    const s = this.section("other-errors", this.t("view_other_title"));
    const ul = el("ul", "fa-other");
    for (const e of list) {
      const li = el("li", `kind-${e.kind}`);
      li.append(this.jumpTo(e), text("code", "", e.text), text("p", "", e.explanation));
      ul.append(li);
    }
    s.append(ul);
  }

  map() {
    const s = this.section("map", this.t("view_map_title"));
    const legend = el("p", "fa-legend");
    for (const [mark, key] of [
      ["first", "view_legend_first"],
      ["echo", "view_legend_echo"],
      ["other", "view_legend_other"],
      ["evidence", "view_legend_evidence"],
    ]) {
      legend.append(text("span", `fa-key mark-${mark}`, this.t(key)));
    }
    s.append(legend);
    const cells = this.report.input?.format !== "text";
    const map = el("div", cells ? "fa-map cells" : "fa-map lines");
    map.setAttribute("role", "list");
    for (const e of this.session.map()) {
      const node = e.line != null ? this.jumpButton(e.label, e.cell, e.line, e.log) : text("span", "", e.label);
      node.setAttribute("class", `fa-bin mark-${e.mark}`);
      node.setAttribute("title", e.title);
      node.setAttribute("role", "listitem");
      map.append(node);
    }
    s.append(map);
    const w = el("div", "fa-window");
    w.setAttribute("data-testid", "window");
    s.append(w);
    const at = this.target ?? this.initialTarget();
    if (at) this.fillWindow(w, at.cell, at.line, at.log);
  }

  /** Where the window opens first: the first assert, else the first other error. */
  initialTarget() {
    const at = this.report.first_assert ?? this.report.other_errors?.[0];
    return at ? { cell: at.cell ?? null, line: at.line, log: at.runtime_log === true } : null;
  }

  fillWindow(w, cell, line, log = false) {
    const win = this.session.window(cell ?? undefined, line, log);
    w.replaceChildren();
    w.setAttribute("data-cell", cell == null ? "" : String(cell));
    w.setAttribute("data-line", String(line));
    w.setAttribute("data-log", log ? "true" : "false");
    w.append(text("h3", "", this.t("view_window_at", { at: win.at })));
    const lines = el("div", "fa-lines");
    for (const l of win.lines) {
      const row = this.lineRow(l.no, l.text, l.mark);
      if (l.no === line) row.classList.add("target");
      lines.append(row);
    }
    w.append(lines);
  }

  /** Shows the lines around a place in the window (and keeps it across re-renders). */
  jump(cell, line, log = false) {
    this.target = { cell: cell ?? null, line: Math.max(1, Math.floor(line)), log };
    const w = this.root.querySelector("[data-testid=window]");
    if (!w || !this.session) return;
    this.fillWindow(w, this.target.cell, this.target.line, log);
    w.scrollIntoView({ block: "nearest" });
  }

  checklist(steps) {
    const s = this.section("checklist", this.t("view_steps_title"));
    const ol = el("ol", "fa-steps");
    for (const step of steps) {
      const li = el("li", "fa-step");
      li.setAttribute("data-step", step.id);
      const label = el("label");
      const cb = el("input");
      cb.type = "checkbox";
      cb.setAttribute("data-action", "step");
      cb.setAttribute("data-step", step.id);
      if (step.done || this.done.has(step.id)) cb.setAttribute("checked", "");
      label.append(cb, text("span", "fa-step-title", step.title));
      li.append(label);
      this.paragraphs(li, step.body);
      if (step.code != null) li.append(this.codeBlock(step.code));
      ol.append(li);
    }
    s.append(ol);
  }

  onClick(e) {
    const a = e.target instanceof Element ? e.target.closest("[data-action]") : null;
    if (!a || !this.root.contains(a)) return;
    const action = a.getAttribute("data-action");
    if (action === "jump") {
      const cell = a.hasAttribute("data-cell") ? Number(a.getAttribute("data-cell")) : null;
      this.jump(cell, Number(a.getAttribute("data-line")) || 1, a.getAttribute("data-log") === "true");
    } else if (action === "copy") {
      const code = this.snippets[Number(a.getAttribute("data-copy"))];
      if (code == null) return;
      navigator.clipboard?.writeText(code).catch(() => {});
      a.textContent = this.t("view_copied");
      a.classList.add("copied");
    }
  }

  onChange(e) {
    const a = e.target instanceof Element ? e.target.closest("[data-action=step]") : null;
    if (!a || !this.key) return;
    const id = a.getAttribute("data-step");
    if (a.checked) this.done.add(id);
    else this.done.delete(id);
    try {
      storage()?.setItem(this.key, JSON.stringify([...this.done].sort()));
    } catch {
      // storage full or blocked: not remembered
    }
  }
}
