// What a host does with the panel's answers: the bookmarklet and the extension's content
// script, one handler for both. A result is kept and marked; "marks" turns the marks off and
// on; "reveal" scrolls a cell into view; "error" is told. The host says how it marks (the
// extension marks inside Colab's outputframes too) and what it tells the user.

import { PREFIX } from "../protocol.js";
import { reveal } from "./mark.js";

/**
 * A handler of the panel's messages for `doc`, marking with `host`:
 * - `collected()`: the cells read (null before they are);
 * - `marks(result)`: marks the page for `result`, the old marks gone; returns what it marked
 *   (`mark`'s answer) or null;
 * - `clear()`: takes every mark away;
 * - `told(result, marked)`: the result came (a toast, a badge);
 * - `failed(message)`: the panel refused the request.
 * Returns `{ onMessage(data), remark() }`; `remark` marks the kept result again (cells that
 * rendered since), the user told nothing.
 */
export function panelHost(doc, host) {
  let last = null;
  let on = true;
  const apply = () => {
    host.clear();
    return on && last && host.collected() ? host.marks(last) : null;
  };
  return {
    onMessage(m) {
      m = m || {};
      if (m.type === PREFIX + "result") {
        last = m;
        on = true;
        host.told(m, apply());
      } else if (m.type === PREFIX + "reveal") {
        const c = host.collected();
        if (c && Number.isInteger(m.cell)) reveal(doc, c, m.cell);
      } else if (m.type === PREFIX + "marks") {
        on = !!m.on;
        apply();
      } else if (m.type === PREFIX + "error") {
        host.failed(String(m.message));
      }
    },
    remark: () => void apply(),
  };
}
