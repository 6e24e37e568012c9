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

import { writeClipboard, selectCode } from "./view/clipboard.js";
import { fill, el, prose } from "./view/dom.js";
import { cardView } from "./view/card.js";
import { sectionsView } from "./view/sections.js";
import { linesView } from "./view/lines.js";
import { checklistView, loadTicks } from "./view/checklist.js";

export { sanitize, fill } from "./view/dom.js";

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

  /** Moves the reader to the answer (after a paste, a file, a drop or a demo). */
  focusAnswer() {
    const title = this.root.querySelector("#fa-answer-title");
    if (!title) return;
    title.scrollIntoView({ block: "start" });
    title.focus({ preventScroll: true });
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

// The rest of the class, one file a part (www/view/).
Object.assign(ReportView.prototype, cardView, sectionsView, linesView, checklistView);
