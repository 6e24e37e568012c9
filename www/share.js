// Sharing a report: Markdown for an issue or a forum post, and a link that carries the report
// in its fragment (never sent to a server), both with personal data hidden unless the reader
// turns that off. Loaded only when a share button is used or a shared link is opened.
//
// The table of what is hidden and which versions are read is the engine's (share/patterns.toml,
// in pkg/share.LANG.json with the Markdown report's texts); the Markdown is the text `first-assert --format markdown` writes (the
// engine's src/share/markdown.rs, ported: the package has no bytes to spare for it).
// tests/e2e/share.test.mjs checks both write the same text, byte for byte.

import { fill, sanitize } from "./view/dom.js";

/** The version of the link's format (`#r1.` + base64url of the deflated JSON). */
const LINK_PREFIX = "#r1.";
/** A link longer than this is cut down (chat tools and some browsers cut longer ones). */
export const LINK_BUDGET = 8000;
/** What an opened link may hold: its fragment, and the JSON it inflates to. */
const MAX_FRAGMENT = 64 << 10;
const MAX_JSON = 1 << 20;

/** A row's pattern with its flags, as a global RegExp with match indices. */
function regex(row) {
  return new RegExp(row.pattern, `gd${row.flags ?? ""}`);
}

const mixed = (s) => /[A-Za-z]/.test(s) && /[0-9]/.test(s);

export class Sharer {
  /** `table`: pkg/share.LANG.json's; `messages`: the catalogue's messages of the report's
   * language with that document's. */
  constructor(table, messages) {
    this.table = table;
    this.messages = messages;
    this.rows = table.redact.map((row) => ({ ...row, re: regex(row) }));
  }

  t(key, args) {
    return fill(this.messages[key] ?? key, args);
  }

  /** `text` with every row applied, and how many items of each kind were replaced. */
  redact(text, counts = this.counts()) {
    let s = String(text);
    for (const row of this.rows) {
      row.re.lastIndex = 0;
      let out = "";
      let last = 0;
      for (const m of s.matchAll(row.re)) {
        const parts = m.length > 1 ? m.indices.slice(1).map((span, i) => [i, span]).filter(([, span]) => span) : [[0, m.indices[0]]];
        if (row.mixed && !parts.every(([, [a, b]]) => mixed(s.slice(a, b)))) continue;
        for (const [i, [a, b]] of parts) {
          out += s.slice(last, a) + (row.with[i] ?? row.with.at(-1));
          last = b;
        }
        counts[row.kind] += 1;
      }
      s = out + s.slice(last);
    }
    return s;
  }

  counts() {
    return Object.fromEntries(this.table.kinds.map((k) => [k, 0]));
  }

  /** "Hidden before sharing: 2 user names, 1 token." (or that nothing was found). */
  hiddenLine(counts) {
    const items = this.table.kinds.filter((k) => counts[k] > 0).map((k) => this.t(`share_kind_${k}${counts[k] === 1 ? "_one" : ""}`, { n: counts[k] }));
    return items.length ? this.t("share_hidden", { items: items.join(this.t("share_list_sep")) }) : this.t("share_hidden_none");
  }

  /** The versions `text` shows, in the table's order: [what, value] pairs. */
  seen(text) {
    const out = [];
    for (const what of ["pytorch", "cuda", "python", "gpu"]) {
      for (const row of this.table.version.filter((r) => r.what === what)) {
        const m = new RegExp(row.pattern, row.flags).exec(text);
        if (m && m[1] != null) {
          out.push([what, m[1]]);
          break;
        }
      }
    }
    return out;
  }

  item(label, value) {
    return this.t("view_label", { label, value });
  }

  /** The report as Markdown; with `hide`, personal data replaced and counted. */
  markdown(r, seen, hide) {
    const body = this.body(r, seen ?? []);
    const counts = hide ? this.counts() : null;
    let md = hide ? this.redact(body, counts) : body;
    md += "---\n" + this.t("share_footer", { version: r.tool?.version ?? "" });
    if (counts) md += (r.lang === "zh" ? "" : " ") + this.hiddenLine(counts);
    return { markdown: md + "\n", hidden: counts };
  }

  body(r, seen) {
    this.zh = r.lang === "zh";
    const title = { device_assert: "share_title_assert", other_cuda_error: "share_title_other", confirmed: "share_title_confirmed" }[r.verdict] ?? "share_title_clean";
    let md = `## ${this.t(title)}\n\n${prose(r.headline)}\n\n`;
    if (r.first_assert) md += this.firstAssert(r.first_assert);
    if (r.cause) md += this.cause(r.cause);
    if (r.stack) md += this.stack(r.stack, r.raised_at);
    const echoes = r.echoes ?? [];
    if (echoes.length) {
      md += (r.echo_count === 1
        ? this.t("share_echo_one", { at: echoes[0].where })
        : this.t("share_echoes", { n: r.echo_count, from: echoes[0].where, to: echoes.at(-1).where })) + "\n\n";
    }
    if (r.other_errors?.length) {
      md += `**${this.t("share_other")}**\n\n`;
      for (const e of r.other_errors) md += `- ${this.item(e.where, code(e.text))} ${prose(e.explanation)}\n`;
      md += "\n";
    }
    if (r.verdict === "clean" || r.verdict === "unreadable") {
      const errors = (r.first_assert ? 1 : 0) + (r.echo_count ?? 0) + (r.other_errors?.length ?? 0);
      md += this.t("share_read", { lines: r.input?.lines ?? 0, errors }) + "\n\n";
    }
    if (r.checklist?.length && r.verdict !== "clean") {
      md += `**${this.t("share_checklist")}**\n\n`;
      for (const s of r.checklist) {
        md += `- [${s.done ? "x" : " "}] ${prose(s.title)}\n`;
        if (String(s.body ?? "").trim()) md += `  ${prose(s.body)}\n`;
        // The probe cell is the tool's own code, not the user's: `--probe` prints it.
        if (s.code != null && String(s.code).trim() && s.code !== r.probe?.code) md += "\n" + block(s.code, "python", "  ");
      }
      md += "\n";
    }
    if (seen.length) md += `**${this.item(this.t("share_seen"), versionLine(seen))}**\n\n`;
    return md;
  }

  firstAssert(fa) {
    const head = [`**${this.t("share_first")}**`, fa.where];
    if (fa.site) {
      const file = basename(fa.site.file);
      head.push(code(fa.site.line != null ? `${file}:${fa.site.line}` : file));
      if (fa.site.function != null) head.push(code(fa.site.function));
    }
    if (fa.repeats && fa.repeats.count > 1) {
      head.push(this.t("share_printed", { count: fa.repeats.count, threads: fa.repeats.threads, blocks: fa.repeats.blocks }));
    }
    const ctx = fa.context ?? [];
    const lines = [...ctx.filter((c) => c.line < fa.line).map((c) => c.text), fa.text, ...ctx.filter((c) => c.line > fa.line).map((c) => c.text)];
    return `${head.join(" · ")}\n\n${block(lines.join("\n"), "text", "")}\n`;
  }

  cause(c) {
    if (c.basis === "none" && c.candidates?.length) {
      // Nothing here to go on: the cause most often behind this error, and the shares.
      let md = `**${prose(this.t("view_usually", { cause: c.candidates[0].title, pct: Math.round(c.candidates[0].confidence * 100) }))}**\n\n${prose(c.summary)}\n\n`;
      md += `${this.item(this.t("view_usual_causes"), "").trimEnd()}\n\n`;
      for (const k of c.candidates) md += `- ${prose(k.title)} · ${this.t("view_share_of_errors", { pct: Math.round(k.confidence * 100) })}\n`;
      return md + "\n";
    }
    const pct = Math.round(c.confidence * 100);
    const head = { stated: "view_cause_title_stated", confirmed: "view_cause_title_confirmed", none: "view_cause_title_usually" }[c.basis] ?? "view_cause_title";
    let md = `**${this.t(head)}** · ${this.t(`view_category_${c.category}`)} · ${this.t("view_sure", { pct })}\n\n${prose(c.summary)}\n\n`;
    if (c.evidence?.length) {
      md += `${this.item(this.t(c.basis === "prior" ? "share_context" : "share_evidence"), "").trimEnd()}\n\n`;
      for (const e of c.evidence) md += `- ${this.item(e.where, code(e.text))}\n`;
      md += "\n";
    }
    return md;
  }

  stack(s, raised) {
    const verdict = !raised?.frames?.length ? "view_no_traceback" : s.trustworthy ? "view_trusted" : "view_untrusted";
    let md = `**${this.t("share_traceback")}** · ${this.t(verdict)}\n\n${prose(s.explanation)}\n\n`;
    const f = raised?.user_frame;
    if (f && f.code != null) {
      const file = f.line != null ? `${f.file}:${f.line}` : f.file;
      const at = f.where ? f.where : `${raised.where} · ${code(file)}`;
      const paren = this.zh ? `（${at}）` : `(${at})`;
      md += `- ${this.item(this.t("view_blamed"), code(f.code))} ${paren}\n\n`;
    }
    return md;
  }

  /** The report to carry in a link: redacted (with `hide`), the probe's code left out (the
   * tool's own), and cut down until the link fits LINK_BUDGET; says what it left out. */
  async link(base, report, seen, hide) {
    const counts = hide ? this.counts() : null;
    const clean = (v) => (counts ? redactValue(v, (s) => this.redact(s, counts)) : v);
    let r = clean(structuredClone(report));
    const probe = r.probe?.code;
    r.probe = null;
    r.checklist = (r.checklist ?? []).map((s) => (probe != null && s.code === probe ? { ...s, code: null } : s));
    const payload = { v: 1, report: r, seen: clean(seen ?? []), cut: 0 };
    let url = base + LINK_PREFIX + (await pack(payload));
    for (const cut of [1, 2, 3]) {
      if (url.length <= LINK_BUDGET) break;
      trim(r, cut);
      payload.cut = cut;
      url = base + LINK_PREFIX + (await pack(payload));
    }
    return { url, cut: payload.cut, hidden: counts };
  }
}

/** What a shared link left out, by level: the lines around the first assert; then the lists
 * past their first three items and the traceback's frames; then the steps' explanations. */
function trim(r, level) {
  if (level >= 1 && r.first_assert) r.first_assert.context = [];
  if (level >= 2) {
    if (r.cause) {
      r.cause.evidence = (r.cause.evidence ?? []).slice(0, 3);
      r.cause.candidates = (r.cause.candidates ?? []).map((c) => ({ ...c, evidence: [] }));
    }
    if (r.raised_at) r.raised_at.frames = [];
    r.echoes = (r.echoes ?? []).slice(0, 3);
    r.kernel_sites = (r.kernel_sites ?? []).slice(0, 3);
    r.other_errors = (r.other_errors ?? []).slice(0, 3);
    r.notes = [];
  }
  if (level >= 3) r.checklist = (r.checklist ?? []).map((s) => ({ ...s, body: "" }));
}

/** `v` with `f` applied to every string in it. */
function redactValue(v, f) {
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) return v.map((x) => redactValue(x, f));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redactValue(x, f)]));
  return v;
}

function basename(file) {
  return String(file).split(/[/\\]/).at(-1);
}

function longestRun(s) {
  return Math.max(0, ...(String(s).match(/`+/g) ?? []).map((r) => r.length));
}

/** `s` as an inline code span, with a fence longer than any run of backticks in it. */
function code(s) {
  s = sanitize(s);
  const fence = "`".repeat(longestRun(s) + 1);
  return s.startsWith("`") || s.endsWith("`") ? `${fence} ${s} ${fence}` : `${fence}${s}${fence}`;
}

/** `s` as a fenced block (each line made safe), indented by `indent`. */
function block(s, info, indent) {
  const lines = String(s).replace(/\n+$/, "").split("\n").map((l) => sanitize(l.replace(/\r+$/, "")));
  const fence = "`".repeat(Math.max(2, ...lines.map(longestRun)) + 1);
  return `${indent}${fence}${info}\n${lines.map((l) => indent + l + "\n").join("")}${indent}${fence}\n`;
}

/** Prose: one paragraph (its line breaks become spaces). */
function prose(s) {
  return sanitize(String(s ?? "").split("\n").map((l) => l.trim()).filter(Boolean).join(" "));
}

export function versionLine(seen) {
  const name = { pytorch: "PyTorch", cuda: "CUDA", python: "Python" };
  return seen.map(([w, v]) => `${name[w] ?? "GPU"} ${v}`).join(" · ");
}

/** The text versions are read from: a log as it is; a notebook or a cell list, each cell's
 * source then its outputs' texts and tracebacks (the engine's `cells_text`). */
export function inputText(input) {
  if (input?.text != null) return input.text;
  if (input?.bytes) {
    const text = new TextDecoder().decode(input.bytes);
    if (!/^\s*[[{]/.test(text)) return text;
    try {
      return inputText({ cells: JSON.parse(text) });
    } catch {
      return text;
    }
  }
  const join = (v) => (Array.isArray(v) ? v.join("") : String(v ?? ""));
  let cells = input?.cells;
  if (cells && !Array.isArray(cells)) cells = cells.cells;
  let out = "";
  for (const c of Array.isArray(cells) ? cells : []) {
    out += join(c.source) + "\n";
    for (const o of c.outputs ?? []) {
      const kind = o.kind ?? o.output_type;
      if (kind === "error") {
        const tb = Array.isArray(o.traceback) ? o.traceback : [];
        out += (tb.length ? tb.join("\n") : `${o.ename ?? "Error"}: ${o.evalue ?? ""}`) + "\n";
      } else if (kind === "stream" || kind === "text") out += join(o.text) + "\n";
      else if (o.data?.["text/plain"] != null) out += join(o.data["text/plain"]) + "\n";
    }
  }
  return out;
}

// ---- the link's payload: JSON, deflated, base64url --------------------------------------------

async function pack(payload) {
  const stream = new Blob([JSON.stringify(payload)]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Whether a URL fragment is a shared report's. */
export function isSharedFragment(hash) {
  return typeof hash === "string" && hash.startsWith(LINK_PREFIX);
}

/** A shared link's payload, checked: throws an Error with `code` (`too_long`, `damaged`,
 * `unsupported`) for anything else. Nothing in it is run; the report is rendered as text. */
export async function unpack(hash) {
  const fail = (code) => Object.assign(new Error(code), { code });
  if (!hash.startsWith(LINK_PREFIX)) throw fail(/^#r\d+\./.test(hash) ? "unsupported" : "damaged");
  const data = hash.slice(LINK_PREFIX.length);
  if (data.length > MAX_FRAGMENT) throw fail("too_long");
  if (!/^[A-Za-z0-9_-]+$/.test(data)) throw fail("damaged");
  let json = "";
  try {
    const bin = atob(data.replaceAll("-", "+").replaceAll("_", "/"));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")).pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      json += value;
      if (json.length > MAX_JSON) {
        reader.cancel().catch(() => {});
        throw fail("too_long");
      }
    }
  } catch (e) {
    throw e.code ? e : fail("damaged");
  }
  let payload;
  try {
    payload = JSON.parse(json);
  } catch {
    throw fail("damaged");
  }
  if (!payload || typeof payload !== "object" || payload.v !== 1) throw fail(payload?.v > 1 ? "unsupported" : "damaged");
  if (!validReport(payload.report)) throw fail("damaged");
  const seen = Array.isArray(payload.seen) ? payload.seen.filter((p) => Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === "string")) : [];
  return { report: payload.report, seen, cut: Number.isInteger(payload.cut) ? payload.cut : 0 };
}

const VERDICTS = ["device_assert", "other_cuda_error", "clean", "unreadable", "confirmed"];
const isStr = (v) => typeof v === "string";
const isNum = (v) => typeof v === "number" && Number.isFinite(v);
const optStr = (v) => v == null || isStr(v);
const place = (p) => p && typeof p === "object" && isNum(p.line) && isStr(p.where) && (p.cell == null || isNum(p.cell)) && (p.execution_count == null || isNum(p.execution_count));
const list = (v, ok) => v == null || (Array.isArray(v) && v.length <= 10000 && v.every(ok));

/** The report's shape as the view reads it: every field the view touches has its type. */
export function validReport(r) {
  if (!r || typeof r !== "object" || r.schema !== 1 || !VERDICTS.includes(r.verdict)) return false;
  if (!isStr(r.headline) || !["en", "zh"].includes(r.lang) || (r.tool != null && !optStr(r.tool.version))) return false;
  const fa = r.first_assert;
  if (fa != null && !(place(fa) && isStr(fa.text) && list(fa.context, (c) => isNum(c.line) && isStr(c.text)))) return false;
  if (fa?.site != null && !(isStr(fa.site.file) && optStr(fa.site.function) && optStr(fa.site.condition))) return false;
  if (fa?.repeats != null && !(isNum(fa.repeats.count) && isNum(fa.repeats.threads) && isNum(fa.repeats.blocks))) return false;
  const c = r.cause;
  if (c != null && !(isStr(c.title) && isStr(c.summary) && isStr(c.category) && isStr(c.rule) && isNum(c.confidence) && list(c.evidence, (e) => place(e) && isStr(e.text)) && list(c.ops, isStr) && list(c.candidates, (x) => isStr(x.title) && isNum(x.confidence) && list(x.evidence, (e) => place(e) && isStr(e.text))))) return false;
  if (r.stack != null && !(typeof r.stack.trustworthy === "boolean" && isStr(r.stack.explanation))) return false;
  const ra = r.raised_at;
  if (ra != null && !(place(ra) && isStr(ra.text) && (ra.user_frame == null || (isStr(ra.user_frame.file) && optStr(ra.user_frame.code))) && list(ra.frames, (f) => isStr(f.file)))) return false;
  if (!list(r.echoes, (e) => place(e) && isStr(e.text)) || !list(r.other_errors, (e) => place(e) && isStr(e.text) && isStr(e.explanation))) return false;
  if (!list(r.checklist, (s) => isStr(s.id) && isStr(s.title) && isStr(s.body) && optStr(s.code) && typeof s.done === "boolean")) return false;
  if (!list(r.notes, (n) => isStr(n.id) && isStr(n.text)) || !list(r.kernel_sites, (k) => k && typeof k === "object")) return false;
  if (r.echo_count != null && !isNum(r.echo_count)) return false;
  return r.probe == null || optStr(r.probe.code);
}
