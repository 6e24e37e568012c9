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
export function fill(template, args = {}) {
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

/** Prose from the catalogue: `quoted` parts become <code>, never raw backticks. */
function prose(tag, cls, s) {
  const e = el(tag, cls);
  sanitize(s)
    .split("`")
    .forEach((part, i) => e.append(i % 2 ? Object.assign(el("code"), { textContent: part }) : part));
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

/** Writes `text` to the clipboard; where the clipboard API is missing or refused, the old
 * `execCommand("copy")`. Whether it worked. */
async function writeClipboard(text) {
  try {
    if (!navigator.clipboard?.writeText) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return copyByCommand(text);
  }
}

/** A map bin's least width and the gap between bins (style.css's `.fa-map`), in CSS pixels. */
const MIN_BIN = 4;
const MAP_GAP = 2;
const RANK = { none: 0, evidence: 1, other: 2, echo: 3, first: 4 };

/** Of map entries merged into one bin: the one with the strongest mark (the first of them),
 * so the bin shows that mark and jumps there. */
function strongest(entries) {
  return entries.reduce((best, e) => ((RANK[e.mark] ?? 0) > (RANK[best.mark] ?? 0) || (best.line == null && e.line != null && RANK[e.mark] === RANK[best.mark]) ? e : best));
}

/** The ticks kept for an error: which steps, and the input they were ticked on. */
function loadTicks(key) {
  const done = new Set();
  let input = null;
  try {
    const kept = key ? JSON.parse(storage()?.getItem(key) ?? "null") : null;
    const ids = Array.isArray(kept?.done) ? kept.done : [];
    for (const id of ids.slice(0, 32)) if (typeof id === "string" && id.length < 64) done.add(id);
    if (typeof kept?.input === "string") input = kept.input;
  } catch {
    // unreadable: nothing ticked
  }
  return { done, input };
}

export class ReportView {
  constructor(root, { messages, share = null }) {
    this.root = root;
    /** The host's sharing (the page's share.js): `(kind, hide) => Promise<{ text, note }>`,
     * kind "markdown" or "link"; without it the card has no share buttons. */
    this.shareFn = share;
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

  /** Renders `report` (the engine's object) into the root, replacing what was there. */
  show(report, session = null, messages = null) {
    if (messages) this.messages = messages;
    const sameInput = session && this.session === session && this.key === session.storageKey?.();
    this.report = report;
    this.session = session;
    this.key = session?.storageKey?.() ?? null;
    if (!sameInput) this.target = null;
    const kept = loadTicks(this.ticksKey());
    this.done = kept.done;
    this.continued = kept.done.size > 0 && kept.input !== this.key;
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

    this.card(r);
    if (r.cause) this.cause(r.cause);
    if (r.stack) this.stack(r.stack, r.raised_at);
    if (r.echo_count > 0) this.echoes(r);
    if (r.other_errors?.length) this.others(r.other_errors);
    if (this.session && r.verdict !== "clean") this.map();
    if (r.checklist?.length) this.checklist(r.checklist);
    // The note the card turned into its next step is not said twice.
    const notes = (r.notes ?? []).filter((n) => n.id !== this.cardNote);
    if (notes.length) {
      const s = this.section("notes", this.t("view_notes_title"));
      const ul = el("ul", "fa-notes");
      for (const n of notes) {
        const li = prose("li", "", n.text);
        li.setAttribute("data-note", n.id);
        ul.append(li);
      }
      s.append(ul);
    }
  }

  /** A label and its value, with the colon of the report's language. */
  label(key, value) {
    return this.t("view_label", { label: this.t(key), value });
  }

  /** The answer first: the cause with its certainty, one plain sentence, the record with the
   * failed check marked, the blamed line, where it is, and the next step. */
  card(r) {
    const card = el("section", "fa-card");
    card.setAttribute("data-testid", "answer");
    card.setAttribute("aria-labelledby", "fa-answer-title");
    card.setAttribute("data-headline", r.headline);
    const c = r.cause && r.cause.rule !== "no-evidence" ? r.cause : null;
    const title = el("h2", "fa-answer-title");
    title.id = "fa-answer-title";
    title.tabIndex = -1;
    title.setAttribute("data-testid", "answer-title");
    if (c) {
      title.append(text("span", "", c.title));
      const pct = Math.round(c.confidence * 100);
      if (pct > 0) {
        const sure = text("span", "fa-confidence", this.t("view_sure", { pct }));
        sure.setAttribute("data-confidence", String(pct));
        title.append(" ", sure);
      }
    } else {
      title.textContent = sanitize(r.headline);
    }
    card.append(title);
    if (c) card.append(prose("p", "fa-summary", c.summary));
    else if (r.verdict === "other_cuda_error" && r.other_errors?.[0]) card.append(text("p", "fa-summary", r.other_errors[0].explanation));
    if (r.first_assert) this.firstAssert(card, r.first_assert);
    const code = r.raised_at?.user_frame?.code;
    if (code != null && r.stack) {
      const b = el("p", "fa-blamed");
      b.append(text("span", "", this.label("view_blamed", "")), text("code", "", code), " ");
      b.append(text("span", r.stack.trustworthy ? "fa-badge ok" : "fa-badge warn", this.t(r.stack.trustworthy ? "view_trusted" : "view_untrusted")));
      card.append(b);
    }
    if (r.verdict === "clean" || r.verdict === "unreadable") card.append(this.readSummary(r));
    const quoted = r.verdict === "clean" ? this.session?.quoted?.() : null;
    if (quoted) card.append(this.seenNotCounted(quoted));
    this.next(card, r);
    if (this.shareFn) card.append(this.shareBar());
    this.root.append(card);
  }

  /** What was read: lines, cells, CUDA errors (a clean verdict says what it stands on). */
  readSummary(r) {
    const errors = (r.first_assert ? 1 : 0) + (r.echo_count ?? 0) + (r.other_errors?.length ?? 0);
    const i = r.input ?? {};
    const p = text("p", "fa-read", this.t(i.cells != null ? "view_read_cells" : "view_read_text", { lines: i.lines ?? 0, cells: i.cells ?? 0, errors }));
    p.setAttribute("data-testid", "read-summary");
    return p;
  }

  /** After a clean verdict: the lines that hold the error's words but read as quoted, why they
   * were not counted, and a button to take them as the error (the page shows `quoted.report`). */
  seenNotCounted(quoted) {
    const box = el("div", "fa-quoted");
    box.setAttribute("data-testid", "quoted");
    box.append(text("h3", "", this.t("view_quoted_title")), prose("p", "", this.t("view_quoted_reason")));
    const q = quoted.report;
    const ul = el("ul", "fa-other");
    for (const at of [q.first_assert ?? q.raised_at, ...(q.echoes ?? [])].filter(Boolean).slice(0, 5)) {
      const li = el("li");
      li.setAttribute("data-line", String(at.line));
      li.append(text("span", "fa-jump", at.where), text("code", "", at.text));
      ul.append(li);
    }
    const treat = text("button", "button", this.t("view_treat"));
    treat.type = "button";
    treat.setAttribute("data-action", "treat");
    this.quoted = quoted;
    box.append(ul, treat);
    return box;
  }

  /** The next step, as a button: the probe cell, the runtime log, or the checklist. */
  next(card, r) {
    this.cardNote = null;
    const box = el("div", "fa-next");
    box.setAttribute("data-testid", "next-step");
    const runtimeLog = r.notes?.find((n) => n.id === "kernel_lines_in_runtime_log");
    let button;
    if (runtimeLog) {
      this.cardNote = runtimeLog.id;
      box.append(text("p", "", this.t("view_next_runtime_log")));
      button = text("button", "button primary", this.t("view_add_runtime_log"));
      button.setAttribute("data-action", "runtime-log");
    } else if (r.probe?.code) {
      box.append(text("p", "", this.t("view_next_probe")));
      button = text("button", "button primary fa-copy-probe", this.t("view_copy_probe"));
      button.setAttribute("data-action", "copy");
      button.setAttribute("data-copy", String(this.snippets.length));
      button.setAttribute("data-label", this.t("view_copy_probe"));
      this.snippets.push(r.probe.code);
    } else if (r.checklist?.length && r.verdict !== "clean") {
      box.append(text("p", "", this.t("view_next_steps")));
      button = text("button", "button primary", this.t("view_go_steps"));
      button.setAttribute("data-action", "steps");
    } else return;
    button.type = "button";
    box.prepend(text("h3", "", this.t("view_next")));
    box.append(button);
    card.append(box);
  }

  /** "Copy as Markdown" and "Copy link", with personal data hidden unless the box is unticked. */
  shareBar() {
    const box = el("div", "fa-share");
    box.setAttribute("data-testid", "share");
    const label = el("label", "fa-share-hide");
    const hide = el("input");
    hide.type = "checkbox";
    hide.checked = this.hide ?? true;
    hide.setAttribute("data-testid", "share-hide");
    hide.addEventListener("change", () => (this.hide = hide.checked));
    label.append(hide, " ", this.t("view_share_hide"));
    const buttons = el("p", "fa-share-buttons");
    for (const [kind, key] of [["markdown", "view_share_markdown"], ["link", "view_share_link"]]) {
      const b = text("button", "button", this.t(key));
      b.type = "button";
      b.setAttribute("data-action", "share");
      b.setAttribute("data-share", kind);
      b.setAttribute("data-testid", `share-${kind}`);
      buttons.append(b, " ");
    }
    const note = el("p", "fa-share-note");
    note.setAttribute("data-testid", "share-note");
    note.setAttribute("role", "status");
    box.append(label, buttons, note);
    return box;
  }

  /** Makes what a share button asked for, copies it and says what happened (and what was
   * hidden); where the clipboard refuses, the text is shown selected, to copy by hand. */
  async shareOut(button) {
    const box = button.closest(".fa-share");
    const note = box.querySelector(".fa-share-note");
    const hide = box.querySelector("input[type=checkbox]").checked;
    box.querySelector("textarea")?.remove();
    let out;
    try {
      out = await this.shareFn(button.getAttribute("data-share"), hide);
    } catch (e) {
      note.textContent = sanitize(e?.message ?? String(e));
      return;
    }
    const ok = await writeClipboard(out.text);
    note.textContent = sanitize(`${this.t(ok ? "view_copied" : "view_press_copy")} · ${out.note}`);
    note.setAttribute("data-copied", String(ok));
    if (!ok) {
      const area = el("textarea", "fa-share-text");
      area.readOnly = true;
      area.value = out.text;
      area.setAttribute("aria-label", this.t(button.getAttribute("data-share") === "link" ? "view_share_link" : "view_share_markdown"));
      area.setAttribute("data-testid", "share-text");
      box.append(area);
      area.focus();
      area.select();
    }
  }

  /** Moves the reader to the answer (after a paste, a file, a drop or a demo). */
  focusAnswer() {
    const title = this.root.querySelector("#fa-answer-title");
    if (!title) return;
    title.scrollIntoView({ block: "start" });
    title.focus({ preventScroll: true });
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
      parent.append(prose("p", "", p.replaceAll("\n", " ")));
    }
  }

  lineRow(no, s, mark) {
    const row = el("div", `fa-line mark-${mark}`);
    row.setAttribute("data-line", String(no));
    const code = el("code", "fa-text");
    const sr = { first: "view_sr_first", echo: "view_sr_echo", other: "view_sr_other", evidence: "view_sr_evidence" }[mark];
    if (sr) code.append(text("span", "fa-sr", this.t(sr)));
    code.append(sanitize(s));
    row.append(text("span", "fa-no", String(no)), code);
    return row;
  }

  /** A box of lines: a region a keyboard can reach and a screen reader can name. */
  linesBox(label) {
    const box = el("div", "fa-lines");
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", label);
    box.tabIndex = 0;
    return box;
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
    return this.jumpButton(at.where, at.cell, at.line, at.runtime_log === true);
  }

  /** A block of code with its copy button; `about` names it for screen readers (each region its own name). */
  codeBlock(code, about) {
    // A page of code (the probe cell) scrolls in its box; its copy button takes all of it.
    const wrap = el("div", code.split("\n").length > 24 ? "fa-code fa-code-long" : "fa-code");
    const pre = el("pre");
    // It may scroll: a region a keyboard can reach.
    pre.tabIndex = 0;
    pre.setAttribute("role", "region");
    pre.setAttribute("aria-label", this.t("view_label", { label: this.t("view_code"), value: about }));
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

  /** The first assert inside the card: where it is, its line with the glued prefix dimmed and
   * the failed condition marked, and the kernel site's details. */
  firstAssert(card, f) {
    const s = el("div", "fa-first");
    s.setAttribute("data-testid", "first-assert");
    const site = f.site;
    const where = el("p", "fa-where");
    where.append(this.jumpTo(f));
    if (site) {
      let at = site.file.split(/[\\/]/).pop();
      if (site.line != null) at += `:${site.line}`;
      const name = site.name ?? site.function;
      where.append(" ", text("code", "fa-site-name", name ? `${at} · ${name}` : at));
    }
    const rep = f.repeats;
    if (rep && rep.count > 1) where.append(" ", text("span", "fa-repeats", this.repeats(rep)));
    s.append(where);
    const box = this.linesBox(this.t("view_record_label", { at: f.where }));
    box.classList.add("fa-record");
    const row = el("div", "fa-line mark-first");
    row.setAttribute("data-line", String(f.line));
    row.setAttribute("data-testid", "first-assert-line");
    const code = el("code", "fa-text");
    code.append(text("span", "fa-sr", this.t("view_sr_first")));
    const t = sanitize(f.text);
    const start = site?.file ? Math.max(0, t.indexOf(sanitize(site.file))) : 0;
    if (start > 0) {
      // A progress bar or a prefix glued in front: dimmed, cut short, the record on its own line.
      const glued = text("span", "fa-glued", t.slice(0, start));
      glued.title = this.t("view_glued");
      code.append(glued);
    }
    const rest = t.slice(start);
    const cond = site?.condition != null ? sanitize(site.condition) : "";
    const at = cond ? rest.indexOf(cond) : -1;
    if (at < 0) code.append(rest);
    else {
      const mark = text("mark", "fa-cond", rest.slice(at, at + cond.length));
      mark.setAttribute("data-testid", "failed-check");
      code.append(rest.slice(0, at), mark, rest.slice(at + cond.length));
    }
    if (f.text_truncated) code.append("…");
    row.append(text("span", "fa-no", String(f.line)), code);
    box.append(row);
    s.append(box);
    if (cond) {
      const label = el("p", "fa-check-label");
      label.append(text("span", "", this.label("view_failed_check", "")), text("code", "", cond));
      s.append(label);
    }
    if (f.offending) {
      const o = el("p", "fa-offending");
      o.setAttribute("data-testid", "offending");
      o.append(text("span", "", this.t("report_offending", { value: f.offending.value, allowed: f.offending.allowed })));
      s.append(o);
    }
    if (site) {
      const det = el("details", "fa-site");
      det.append(text("summary", "", this.t("view_site")));
      if (rep?.block_range && rep.thread_range) {
        det.append(text("p", "", this.t("view_ranges", { blocks: range(rep.block_range), threads: range(rep.thread_range) })));
      }
      det.append(text("p", "fa-path", site.file));
      if (site.function) det.append(text("p", "fa-path", site.function));
      s.append(det);
    }
    card.append(s);
  }

  /** "8 times, by 8 threads of 1 block (last at line 10)". */
  repeats(rep) {
    return this.t("report_repeats", { count: rep.count, threads: Math.max(rep.threads, 1), blocks: Math.max(rep.blocks, 1), last: rep.last_line });
  }

  cause(c) {
    const s = this.section("cause", this.t("view_cause_title"));
    s.setAttribute("data-category", c.category);
    s.setAttribute("data-rule", c.rule);
    // The title and its certainty are the card's; here, what kind of cause it is and why.
    const title = el("p", "fa-cause-title");
    title.append(text("span", "fa-category", this.t(`view_category_${c.category}`)));
    s.append(title);
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
    // The why, on demand; what to print and how to fix it are steps of the checklist.
    const why = el("details", "fa-why");
    why.append(text("summary", "", this.t("view_why")));
    this.paragraphs(why, c.why);
    s.append(why);
    if (c.ops?.length) s.append(text("p", "fa-ops", this.label("view_ops", c.ops.join(", "))));
    s.append(text("p", "fa-rule", this.label("view_rule", c.rule)));
    if (c.candidates?.length) {
      s.append(text("h3", "", this.t("view_candidates")));
      const ul = el("ul", "fa-candidates");
      for (const k of c.candidates) {
        const li = el("li", "");
        li.setAttribute("data-testid", "candidate");
        li.setAttribute("data-category", k.category);
        li.setAttribute("data-rule", k.rule);
        const pct = Math.round(k.confidence * 100);
        li.append(text("span", "fa-category", this.t(`view_category_${k.category}`)), text("strong", "", k.title), text("span", "fa-confidence", this.t("view_sure", { pct })));
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
      prose("p", "fa-explanation", st.explanation),
    );
    if (!ra) return;
    const p = el("p", "fa-raised");
    p.append(this.jumpTo(ra), text("code", "", ra.text));
    s.append(p);
  }

  echoes(r) {
    const s = this.section("echoes", this.t("view_echoes_title"));
    const det = el("details", "fa-echo-list");
    det.append(text("summary", "", this.t("report_echoes", { n: r.echo_count })));
    const ol = el("ol", "fa-echoes");
    for (const e of r.echoes ?? []) {
      const li = el("li", `kind-${e.kind}`);
      li.setAttribute("data-testid", "echo");
      const code = el("code");
      code.append(text("span", "fa-sr", this.t("view_sr_echo")), sanitize(e.text));
      li.append(this.jumpTo(e), code);
      ol.append(li);
    }
    det.append(ol);
    s.append(det);
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
    const input = this.report.input ?? {};
    // A map says something only of a longer input: more than ~60 lines, or several cells.
    if ((input.lines ?? 0) > 60 || (input.cells ?? 0) > 1 || input.runtime_log) {
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
      const cells = input.format !== "text";
      const map = el("ul", cells ? "fa-map cells" : "fa-map lines");
      map.setAttribute("aria-label", this.t("view_map_title"));
      s.append(map);
      // A log's runs of lines, merged so that all of them fit the strip (a phone's is ~340 px
      // for the engine's 120 runs): each keeps the strongest mark among those it merges.
      const entries = this.session.map();
      const fit = Math.max(12, Math.floor((map.clientWidth + MAP_GAP) / (MIN_BIN + MAP_GAP)));
      const k = cells || !map.clientWidth ? 1 : Math.ceil(entries.length / fit);
      for (let i = 0; i < entries.length; i += k) {
        const e = strongest(entries.slice(i, i + k));
        const li = el("li");
        const node = e.line != null ? this.jumpButton(e.label, e.cell, e.line, e.log) : text("span", "", e.label);
        node.setAttribute("class", `fa-bin mark-${e.mark}`);
        node.setAttribute("title", e.title);
        if (e.line != null) node.setAttribute("aria-label", e.title);
        li.append(node);
        map.append(li);
      }
    }
    const w = el("div", "fa-window");
    w.setAttribute("data-testid", "window");
    s.append(w);
    this.fillWindow(w, this.target);
  }

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
  }

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
  }

  /** The key the checklist's ticks are kept under: the error, not the bytes (the rerun the
   * checklist asks for prints other numbers and must find its ticks). */
  ticksKey() {
    const r = this.report;
    if (!r || r.verdict === "clean") return null;
    const site = r.first_assert?.site;
    const what = [r.verdict, r.cause?.rule ?? "", site ? `${site.file.split(/[\\/]/).pop()}|${site.name ?? site.function ?? ""}|${site.condition ?? ""}` : r.other_errors?.[0]?.kind ?? "", r.input?.format ?? ""];
    return `first-assert:ticks:${what.join("|")}`;
  }

  checklist(steps) {
    const s = this.section("checklist", this.t("view_steps_title"));
    const progress = el("p", "fa-progress");
    progress.setAttribute("data-testid", "progress");
    progress.setAttribute("aria-live", "polite");
    const reset = text("button", "button quiet", this.t("view_reset"));
    reset.type = "button";
    reset.setAttribute("data-action", "reset");
    s.append(progress);
    if (this.continued) s.append(text("p", "fa-continued", this.t("view_continued", { done: this.done.size, total: steps.length })));
    const ol = el("ol", "fa-steps");
    for (const step of steps) {
      const li = el("li", "fa-step");
      li.setAttribute("data-step", step.id);
      const label = el("label");
      const cb = el("input");
      cb.type = "checkbox";
      cb.setAttribute("data-action", "step");
      cb.setAttribute("data-step", step.id);
      // A step the input shows as done (CUDA_LAUNCH_BLOCKING now set in time) is ticked.
      if (step.done) this.done.add(step.id);
      if (this.done.has(step.id)) cb.checked = true;
      label.append(cb, text("span", "fa-step-title", step.title));
      li.append(label);
      this.paragraphs(li, step.body);
      if (step.code != null) li.append(this.codeBlock(step.code, step.title));
      ol.append(li);
    }
    s.append(ol, reset);
    this.progress();
  }

  /** "2 of 9 done", kept in step with the boxes. */
  progress() {
    const p = this.root.querySelector("[data-testid=progress]");
    const steps = this.report?.checklist ?? [];
    const done = steps.filter((x) => this.done.has(x.id)).length;
    if (p) p.textContent = this.t("view_progress", { done, total: steps.length });
  }

  saveTicks() {
    const key = this.ticksKey();
    if (!key) return;
    try {
      storage()?.setItem(key, JSON.stringify({ input: this.key, done: [...this.done].sort() }));
    } catch {
      // storage full or blocked: not remembered
    }
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
      if (code != null) this.copy(a, code);
    } else if (action === "steps") {
      const s = this.root.querySelector("[data-testid=checklist] h2");
      if (s) {
        s.tabIndex = -1;
        s.scrollIntoView({ block: "start" });
        s.focus({ preventScroll: true });
      }
    } else if (action === "reset") {
      this.done = new Set();
      this.continued = false;
      for (const b of this.root.querySelectorAll("[data-action=step]")) b.checked = false;
      this.root.querySelector(".fa-continued")?.remove();
      this.saveTicks();
      this.progress();
    } else if (action === "back") {
      this.focusAnswer();
    } else if (action === "treat") {
      this.root.dispatchEvent(new CustomEvent("fa-treat", { bubbles: true, detail: this.quoted }));
    } else if (action === "share") {
      this.shareOut(a);
    } else if (action === "runtime-log") {
      this.root.dispatchEvent(new CustomEvent("fa-runtime-log", { bubbles: true }));
    }
  }

  /** Copies `code`, and says what really happened: "Copied" once the write succeeded, else the
   * text selected with "Press Ctrl+C". The label comes back after 2 s. */
  async copy(button, code) {
    const label = button.getAttribute("data-label") ?? this.t("view_copy");
    const ok = await writeClipboard(code);
    if (!ok) selectCode(button);
    button.textContent = this.t(ok ? "view_copied" : "view_press_copy");
    button.classList.toggle("copied", ok);
    button.classList.toggle("failed", !ok);
    clearTimeout(button.faTimer);
    button.faTimer = setTimeout(() => {
      button.textContent = label;
      button.classList.remove("copied", "failed");
    }, 2000);
  }

  onChange(e) {
    const a = e.target instanceof Element ? e.target.closest("[data-action=step]") : null;
    if (!a) return;
    const id = a.getAttribute("data-step");
    if (a.checked) this.done.add(id);
    else this.done.delete(id);
    this.saveTicks();
    this.progress();
  }
}

/** The old way to copy, for where the clipboard API is missing or refused (plain-http hosts,
 * some webviews): a hidden text area, selected, and the copy command. */
function copyByCommand(code) {
  const ta = document.createElement("textarea");
  ta.value = code;
  ta.setAttribute("readonly", "");
  ta.className = "fa-offscreen";
  document.body.append(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

/** Selects the code a copy button belongs to, so Ctrl+C takes it. */
function selectCode(button) {
  const pre = button.parentElement?.querySelector("pre") ?? button.closest(".fa-report")?.querySelector("[data-step=probe] pre");
  const sel = window.getSelection();
  if (!pre || !sel) return;
  const range = document.createRange();
  range.selectNodeContents(pre);
  sel.removeAllRanges();
  sel.addRange(range);
}
