// The hosts' words (the bookmarklet's toasts, the badges in a notebook's page): the catalogue's
// `host_` messages (i18n/messages.toml), which scripts/adapters-script.mjs puts in as
// `__HOST_TEXTS__` when it bundles a host. Without them (the sources run as they are) every
// text is its key.

/* global __HOST_TEXTS__ */
const TEXTS = typeof __HOST_TEXTS__ === "object" ? __HOST_TEXTS__ : { en: {}, zh: {} };

/** The language of a page: Chinese when its reader's browser speaks it, else English. */
export function langOf(win) {
  const l = ((win && win.navigator && win.navigator.language) || "en").toLowerCase();
  return l.startsWith("zh") ? "zh" : "en";
}

/** The host text `key` (without its `host_`) in `lang`, its `{n}` filled. */
export function say(lang, key, n) {
  const t = (TEXTS[lang] || TEXTS.en)["host_" + key] ?? TEXTS.en["host_" + key] ?? key;
  return n === undefined ? t : t.replace("{n}", String(n));
}
