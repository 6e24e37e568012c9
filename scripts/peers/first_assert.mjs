// A plain JavaScript peer for the benchmarks: the first line that looks like a CUDA
// device-side assert, found with one RegExp over the text, the way a page script would do it
// without our package. Prints `LINE: TEXT` or nothing.
import { readFileSync } from "node:fs";

const PATTERN = /Assertion `.*` failed|device-side assert triggered/;
const text = readFileSync(process.argv[2], "utf8");
const m = PATTERN.exec(text);
if (m) {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < m.index; i = text.indexOf("\n", i + 1)) line++;
  const start = text.lastIndexOf("\n", m.index) + 1;
  console.log(`${line}: ${text.slice(start, Math.min(text.indexOf("\n", m.index) >>> 0, start + 200))}`);
} else {
  process.exitCode = 1;
}
