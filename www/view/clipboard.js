// Copying a snippet or a shared text: the clipboard API, else the old execCommand("copy"), else
// the text shown selected to copy by hand.

/** Writes `text` to the clipboard; where the clipboard API is missing or refused, the old
 * `execCommand("copy")`. Whether it worked. */
export async function writeClipboard(text) {
  try {
    if (!navigator.clipboard?.writeText) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return copyByCommand(text);
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
export function selectCode(button) {
  const pre = button.parentElement?.querySelector("pre") ?? button.closest(".fa-report")?.querySelector("[data-step=probe] pre");
  const sel = window.getSelection();
  if (!pre || !sel) return;
  const range = document.createRange();
  range.selectNodeContents(pre);
  sel.removeAllRanges();
  sel.addRange(range);
}
