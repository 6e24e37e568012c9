import { launch, serve, openPage, ROOT } from "./lib.mjs";
import path from "node:path";
const srv = await serve(); const b = await launch();
const ctx = await b.newContext({ viewport: { width: 390, height: 844 } });
const { page } = await openPage(ctx, `${srv.url}?lang=en&nosw`);
await page.setInputFiles("[data-testid=file-input]", path.join(ROOT, "tests/cases", process.argv[2]));
await page.waitForSelector("[data-testid=answer-title]");
console.log(await page.evaluate(() => [...document.querySelectorAll("body *")].filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== "auto" && getComputedStyle(e).overflowX !== "hidden").slice(0, 12).map((e) => e.tagName + "." + e.className + " cw=" + e.clientWidth + " sw=" + e.scrollWidth + " " + e.textContent.slice(0,60))));
await b.close(); srv.close();
