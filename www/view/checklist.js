// The checklist: its steps with their boxes, the ticks remembered per error (localStorage, when
// the browser allows it) and the progress line.

import { el, text } from "./dom.js";

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // blocked (sandboxed frame, privacy settings): ticks are not remembered
  }
}

/** The ticks kept for an error: which steps, and the input they were ticked on. */
export function loadTicks(key) {
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

/** The ReportView methods of this part (report-view.js mixes them into its class). */
export const checklistView = {
  /** The key the checklist's ticks are kept under: the error, not the bytes (the rerun the
   * checklist asks for prints other numbers and must find its ticks). */
  ticksKey() {
    const r = this.report;
    if (!r || r.verdict === "clean") return null;
    const site = r.first_assert?.site;
    const what = [r.verdict, r.cause?.rule ?? "", site ? `${site.file.split(/[\\/]/).pop()}|${site.name ?? site.function ?? ""}|${site.condition ?? ""}` : r.other_errors?.[0]?.kind ?? "", r.input?.format ?? ""];
    return `first-assert:ticks:${what.join("|")}`;
  },

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
      // The probe's code is the report's one copy (report.probe.code).
      const code = step.id === "probe" ? this.report?.probe?.code ?? step.code : step.code;
      if (code != null) li.append(this.codeBlock(code, step.title));
      ol.append(li);
    }
    s.append(ol, reset);
    this.progress();
  },

  /** "2 of 9 done", kept in step with the boxes. */
  progress() {
    const p = this.root.querySelector("[data-testid=progress]");
    const steps = this.report?.checklist ?? [];
    const done = steps.filter((x) => this.done.has(x.id)).length;
    if (p) p.textContent = this.t("view_progress", { done, total: steps.length });
  },

  saveTicks() {
    const key = this.ticksKey();
    if (!key) return;
    try {
      storage()?.setItem(key, JSON.stringify({ input: this.key, done: [...this.done].sort() }));
    } catch {
      // storage full or blocked: not remembered
    }
  },
};
