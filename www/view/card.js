// The answer card: the cause with its certainty, one plain sentence, the first assert with its
// failed check marked, the blamed line, the next step, and the share buttons.

import { writeClipboard } from "./clipboard.js";
import { sanitize, el, text, prose, linesText, pathBreaks } from "./dom.js";

function range([lo, hi]) {
  const t = (v) => `[${v[0]},${v[1]},${v[2]}]`;
  return lo.join() === hi.join() ? t(lo) : `${t(lo)}–${t(hi)}`;
}

/** The ReportView methods of this part (report-view.js mixes them into its class). */
export const cardView = {
  /** The answer first: the cause with its certainty, one plain sentence, the record with the
   * failed check marked, the blamed line, where it is, and the next step. */
  card(r) {
    this.cardNote = null; // the note the card says itself (the next step, the quoted lines' reason)
    const card = el("section", "fa-card");
    card.setAttribute("data-testid", "answer");
    card.setAttribute("aria-labelledby", "fa-answer-title");
    card.setAttribute("data-headline", r.headline);
    const c = r.cause && r.cause.basis !== "none" ? r.cause : null;
    const usual = r.cause?.basis === "none" ? r.cause.candidates?.[0] : null;
    const title = el("h2", "fa-answer-title");
    title.id = "fa-answer-title";
    title.tabIndex = -1;
    title.setAttribute("data-testid", "answer-title");
    if (c) {
      // How sure, in words: "Most likely" (the prior alone), "Likely" (evidence), a stated cause bare.
      const word = { prior: "view_basis_prior", evidence: "view_basis_evidence", confirmed: "view_basis_confirmed" }[c.basis];
      if (word) {
        const b = text("span", "fa-basis", this.label(word, ""));
        b.setAttribute("data-basis", c.basis);
        title.append(b);
      }
      title.append(text("span", "", c.title));
      const pct = Math.round(c.confidence * 100);
      if (pct > 0) {
        const sure = text("span", "fa-confidence", this.t("view_sure", { pct }));
        sure.setAttribute("data-confidence", String(pct));
        title.append(" ", sure);
      }
    } else if (usual) {
      // Nothing here to go on: the cause most often behind this error, said as such.
      const b = text("span", "fa-basis", this.t("view_usually", { cause: usual.title, pct: Math.round(usual.confidence * 100) }));
      b.setAttribute("data-basis", "none");
      title.append(b);
    } else {
      title.textContent = sanitize(r.headline);
    }
    card.append(title);
    if (c || usual) card.append(prose("p", "fa-summary", r.cause.summary));
    if (c?.basis === "prior") card.append(text("p", "fa-basis-note", this.t("view_basis_prior_note")));
    else if (r.verdict === "other_cuda_error" && r.other_errors?.[0]) card.append(text("p", "fa-summary", r.other_errors[0].explanation));
    if (r.first_assert) this.firstAssert(card, r.first_assert);
    if (r.confirmation) card.append(this.confirmed(r.confirmation));
    const code = r.raised_at?.user_frame?.code;
    if (code != null && r.stack) {
      const b = el("p", "fa-blamed");
      b.append(text("span", "", this.label("view_blamed", "")), text("code", "", code), " ");
      // A cell's line, by its cell (the kernel's file for it means nothing to a reader).
      const where = r.raised_at.user_frame.where;
      if (where) b.append(text("span", "fa-blamed-where", where), " ");
      b.append(text("span", r.stack.trustworthy ? "fa-badge ok" : "fa-badge warn", this.t(r.stack.trustworthy ? "view_trusted" : "view_untrusted")));
      card.append(b);
    }
    if (r.verdict === "clean" || r.verdict === "unreadable") card.append(this.readSummary(r));
    const quoted = r.verdict === "clean" ? this.session?.quoted?.() : null;
    if (quoted) card.append(this.seenNotCounted(quoted));
    this.next(card, r);
    if (this.shareFn) card.append(this.shareBar());
    this.root.append(card);
  },

  /** The probe's (or the CPU's) error, read back: the bad value, the bound, the user's line. */
  confirmed(c) {
    const dl = el("dl", "fa-confirmation");
    dl.setAttribute("data-testid", "confirmation");
    dl.setAttribute("data-source", c.source);
    // The user's line: its kernel file named as the cell it ran in.
    const line = c.line == null ? null : c.where ? (c.line.includes("  ") ? `${c.where}  ${c.line.slice(c.line.indexOf("  ") + 2)}` : c.where) : c.line;
    for (const [key, value] of [["view_confirmed_value", c.value], ["view_confirmed_allowed", c.allowed], ["view_confirmed_line", line]]) {
      if (value == null) continue;
      dl.append(text("dt", "", this.t(key)), el("dd"));
      dl.lastChild.append(text("code", "", value));
    }
    // The probe's own clue: the values it saw, the usual cause for this bound.
    for (const [key, value] of [["view_confirmed_values", c.values], ["view_confirmed_clue", c.clue]]) {
      if (value == null) continue;
      dl.append(text("dt", "", this.t(key)), text("dd", "", value));
    }
    return dl;
  },

  /** What was read: lines, cells, CUDA errors (a clean verdict says what it stands on). */
  readSummary(r) {
    const errors = (r.first_assert ? 1 : 0) + (r.echo_count ?? 0) + (r.other_errors?.length ?? 0);
    const i = r.input ?? {};
    const p = text("p", "fa-read", this.t(i.cells != null ? "view_read_cells" : "view_read_text", { lines: i.lines ?? 0, cells: i.cells ?? 0, errors }));
    p.setAttribute("data-testid", "read-summary");
    return p;
  },

  /** After a clean verdict: the lines that hold the error's words but read as quoted, why they
   * were not counted, and a button to take them as the error (the page shows `quoted.report`). */
  seenNotCounted(quoted) {
    const box = el("div", "fa-quoted");
    box.setAttribute("data-testid", "quoted");
    // A text that only names the error: its note is the reason (and is not said again below).
    const mentioned = (this.report.notes ?? []).find((n) => n.id === "mentioned_only");
    if (mentioned) this.cardNote = mentioned.id;
    const reason = mentioned ? mentioned.text : this.t("view_quoted_reason");
    box.append(text("h3", "", this.t("view_quoted_title")), prose("p", "", reason));
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
  },

  /** The next step, as a button: the probe cell, the runtime log, or the checklist. */
  next(card, r) {
    const box = el("div", "fa-next");
    box.setAttribute("data-testid", "next-step");
    const runtimeLog = r.notes?.find((n) => n.id === "kernel_lines_in_runtime_log");
    const loadExt = r.checklist?.find((s) => s.id === "load_ext");
    let button;
    if (loadExt?.code) {
      // A notebook, and a site to install from: the extension's lines, to copy, the probe cell
      // (and the runtime log) for a runtime that cannot install.
      box.append(text("p", "", this.t("view_next_load_ext")));
      const pre = el("pre", "fa-load-ext");
      pre.setAttribute("data-testid", "load-ext-code");
      // It may scroll on a narrow screen: a region a keyboard can reach.
      pre.tabIndex = 0;
      pre.setAttribute("role", "region");
      pre.setAttribute("aria-label", this.t("view_label", { label: this.t("view_code"), value: loadExt.title }));
      pre.append(linesText("code", "", loadExt.code));
      box.append(pre);
      button = this.copyButton(loadExt.code, "view_copy_lines", "button primary fa-copy-lines");
      const more = el("p", "fa-next-else");
      if (r.probe?.code) more.append(this.copyButton(r.probe.code, "view_copy_probe_instead", "button quiet fa-copy-probe"), " ");
      if (runtimeLog) {
        const log = text("button", "button quiet", this.t("view_add_runtime_log"));
        log.type = "button";
        log.setAttribute("data-action", "runtime-log");
        more.append(log);
      }
      button.type = "button";
      box.prepend(text("h3", "", this.t("view_next")));
      box.append(button);
      if (more.childNodes.length) box.append(more);
      card.append(box);
      return;
    } else if (runtimeLog) {
      this.cardNote = runtimeLog.id;
      box.append(text("p", "", this.t("view_next_runtime_log")));
      button = text("button", "button primary", this.t("view_add_runtime_log"));
      button.setAttribute("data-action", "runtime-log");
    } else if (r.probe?.code) {
      // Said for where the output came from, as the checklist's probe step is.
      const said = { script: "view_next_probe_script", launch: "view_next_probe_launch" }[r.input?.source] ?? "view_next_probe";
      box.append(text("p", "", this.t(said)));
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
  },

  /** A button that copies `code` (the view's copy action), labelled with message `key`. */
  copyButton(code, key, cls) {
    const b = text("button", cls, this.t(key));
    b.type = "button";
    b.setAttribute("data-action", "copy");
    b.setAttribute("data-copy", String(this.snippets.length));
    b.setAttribute("data-label", this.t(key));
    this.snippets.push(code);
    return b;
  },

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
  },

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
  },

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
    // A person's words about the error, not its output: said before the sentence is shown.
    if (f.kind === "described") {
      const d = text("p", "fa-described", this.t("view_described"));
      d.setAttribute("data-testid", "described");
      s.append(d);
    }
    const box = this.linesBox(this.t("view_record_label", { at: f.where }));
    box.classList.add("fa-record");
    const row = el("div", "fa-line mark-first");
    row.setAttribute("data-line", String(f.line));
    row.setAttribute("data-testid", "first-assert-line");
    const code = el("code", "fa-text");
    code.append(text("span", "fa-sr", this.t(f.kind === "described" ? "view_sr_described" : "view_sr_first")));
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
    if (at < 0) code.append(...pathBreaks(rest));
    else {
      const mark = text("mark", "fa-cond", rest.slice(at, at + cond.length));
      mark.setAttribute("data-testid", "failed-check");
      code.append(...pathBreaks(rest.slice(0, at)), mark, rest.slice(at + cond.length));
    }
    if (f.text_truncated) code.append("…");
    // No gutter number: the place above the line already names it.
    row.append(code);
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
  },

  /** "8 times, by 8 threads of 1 block (last at line 10)". */
  repeats(rep) {
    return this.t("report_repeats", { count: rep.count, threads: Math.max(rep.threads, 1), blocks: Math.max(rep.blocks, 1), last: rep.last_line });
  },
};
