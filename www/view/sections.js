// The sections below the card: the cause's evidence and candidates, the traceback's trust, the
// echoes and the other errors, each place a jump into the input.

import { sanitize, el, text, prose, linesText } from "./dom.js";

/** The ReportView methods of this part (report-view.js mixes them into its class). */
export const sectionsView = {
  section(testid, title) {
    const s = el("section", `fa-section fa-section-${testid}`);
    s.setAttribute("data-testid", testid);
    s.append(text("h2", "", title));
    this.root.append(s);
    return s;
  },

  paragraphs(parent, s) {
    for (const p of String(s ?? "").split("\n\n").map((p) => p.trim()).filter(Boolean)) {
      parent.append(prose("p", "", p.replaceAll("\n", " ")));
    }
  },

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
  },

  /** `s` as text, with the first occurrence of `matched` in a <mark>. */
  marked(parent, s, matched) {
    const t = sanitize(s);
    const m = matched ? sanitize(matched) : "";
    const i = m ? t.indexOf(m) : -1;
    if (i < 0) return parent.append(document.createTextNode(t));
    const mark = el("mark");
    mark.textContent = t.slice(i, i + m.length);
    parent.append(document.createTextNode(t.slice(0, i)), mark, document.createTextNode(t.slice(i + m.length)));
  },

  cause(c) {
    // The title follows what the cause stands on.
    const head = { stated: "view_cause_title_stated", confirmed: "view_cause_title_confirmed", none: "view_cause_title_usually" }[c.basis] ?? "view_cause_title";
    const s = this.section("cause", this.t(head));
    s.setAttribute("data-category", c.category);
    s.setAttribute("data-rule", c.rule);
    // The title and its certainty are the card's; here, what kind of cause it is and why.
    const title = el("p", "fa-cause-title");
    title.append(text("span", "fa-category", this.t(`view_category_${c.category}`)));
    s.append(title);
    if (c.evidence?.length) {
      // A prior's lines show what the code is, not that the error happened there.
      s.append(text("h3", "", this.t(c.basis === "prior" ? "view_context" : "view_evidence")));
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
    if (c.candidates?.length) {
      s.append(text("h3", "", this.t(c.basis === "none" ? "view_usual_causes" : "view_candidates")));
      const ul = el("ul", "fa-candidates");
      for (const k of c.candidates) {
        const li = el("li", "");
        li.setAttribute("data-testid", "candidate");
        li.setAttribute("data-category", k.category);
        li.setAttribute("data-rule", k.rule);
        const pct = Math.round(k.confidence * 100);
        // With nothing to go on, a share of this error, not a certainty.
        const share = this.t(c.basis === "none" ? "view_share_of_errors" : "view_sure", { pct });
        li.append(text("span", "fa-category", this.t(`view_category_${k.category}`)), " ", text("strong", "", k.title), " · ", text("span", "fa-confidence", share));
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
  },

  stack(st, ra) {
    const s = this.section("stack", this.t("view_stack_title"));
    s.setAttribute("data-trustworthy", st.trustworthy ? "true" : "false");
    // No traceback: nothing to judge, said neutrally.
    const [cls, key] = !ra?.frames?.length ? ["fa-badge", "view_no_traceback"] : st.trustworthy ? ["fa-badge ok", "view_trusted"] : ["fa-badge warn", "view_untrusted"];
    const badge = text("p", cls, this.t(key));
    badge.setAttribute("data-testid", "stack-verdict");
    s.append(badge, prose("p", "fa-explanation", st.explanation));
    if (!ra) return;
    const p = el("p", "fa-raised");
    p.append(this.jumpTo(ra), text("code", "", ra.text));
    s.append(p);
  },

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
  },

  others(list) {
    const s = this.section("other-errors", this.t("view_other_title"));
    const ul = el("ul", "fa-other");
    for (const e of list) {
      const li = el("li", `kind-${e.kind}`);
      li.append(this.jumpTo(e), text("code", "", e.text), text("p", "", e.explanation));
      ul.append(li);
    }
    s.append(ul);
  },
};
