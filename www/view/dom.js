// Building the view's nodes: text from the input goes in through text nodes (textContent), never
// through HTML parsing, and its control characters are made visible, never interpreted.

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

export function el(tag, cls = "") {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

export function text(tag, cls, s) {
  const e = el(tag, cls);
  e.textContent = sanitize(s);
  return e;
}

/** Prose from the catalogue: `quoted` parts become <code>, never raw backticks. */
export function prose(tag, cls, s) {
  const e = el(tag, cls);
  sanitize(s)
    .split("`")
    .forEach((part, i) => e.append(i % 2 ? Object.assign(el("code"), { textContent: part }) : part));
  return e;
}

/** Like text() for several lines (code): line breaks stay. */
export function linesText(tag, cls, s) {
  const e = el(tag, cls);
  e.textContent = String(s ?? "").split("\n").map(sanitize).join("\n");
  return e;
}

/** `s` as text with a line-break opportunity after each `/` and `\`: a narrow screen breaks a
 *  path between its directories, not inside `Loss.cu:242` (the text copies as it was). */
export function pathBreaks(s) {
  const out = [];
  for (const part of s.split(/(?<=[/\\])/)) {
    if (out.length) out.push(document.createElement("wbr"));
    out.push(part);
  }
  return out;
}
