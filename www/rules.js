// The rules page (rules.html, generated from the rule data by make web) holds both languages;
// this shows the reader's (the one picked on the main page), with a switch to the other.
(function () {
  "use strict";
  const KEY = "first-assert:lang";
  let lang = null;
  try {
    lang = localStorage.getItem(KEY);
  } catch {
    lang = null; // storage blocked: fall back to the browser's language
  }
  if (lang !== "en" && lang !== "zh") lang = (navigator.language || "").toLowerCase().startsWith("zh") ? "zh" : "en";
  if (location.hash.startsWith("#zh-")) lang = "zh";
  const sections = Array.from(document.querySelectorAll("section[data-lang]"));
  const show = (l) => {
    for (const s of sections) s.hidden = s.dataset.lang !== l;
    document.documentElement.lang = l === "zh" ? "zh-Hans" : "en";
  };
  for (const s of sections) {
    const other = s.dataset.lang === "zh" ? "en" : "zh";
    const b = document.createElement("button");
    b.type = "button";
    b.className = "button quiet";
    b.dataset.testid = "rules-lang";
    b.textContent = other === "zh" ? "中文" : "English";
    b.addEventListener("click", () => {
      try {
        localStorage.setItem(KEY, other);
      } catch {
        // not remembered
      }
      show(other);
    });
    s.querySelector("h1").after(b);
  }
  show(lang);
})();
