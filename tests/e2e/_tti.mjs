import { launch, serve, openPage } from "./lib.mjs";
const srv = await serve(); const b = await launch();
const t = [];
for (let i = 0; i < 9; i++) {
  const ctx = await b.newContext();
  const { page } = await openPage(ctx, srv.url + "?nosw");
  t.push(await page.evaluate(() => { const n = performance.getEntriesByType("navigation")[0]; return [Math.round(n.domContentLoadedEventStart), Math.round(performance.getEntriesByName("first-assert:interactive")[0].startTime)]; }));
  await ctx.close();
}
const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
console.log("dcl", med(t.map((x) => x[0])), "tti", med(t.map((x) => x[1])));
await b.close(); srv.close();
