// Drops the custom sections of a WebAssembly file in place (wasm-bindgen has removed the
// names and producers already; this takes `target_features`, which only tools read). The
// code and data sections are copied byte for byte.
//
//   node scripts/strip-wasm-custom.mjs FILE.wasm
import { readFileSync, writeFileSync } from "node:fs";

const file = process.argv[2];
const d = readFileSync(file);
if (d.readUInt32LE(0) !== 0x6d736100) throw new Error(`${file}: not a WebAssembly module`);
const leb = (i) => {
  let r = 0, s = 0, b;
  do { b = d[i++]; r += (b & 0x7f) * 2 ** s; s += 7; } while (b & 0x80);
  return [r, i];
};
const keep = [d.subarray(0, 8)];
let dropped = 0;
for (let i = 8; i < d.length; ) {
  const start = i;
  const id = d[i++];
  const [size, body] = leb(i);
  i = body + size;
  if (i > d.length) throw new Error(`${file}: a section runs past the end`);
  if (id === 0) dropped += i - start;
  else keep.push(d.subarray(start, i));
}
writeFileSync(file, Buffer.concat(keep));
if (dropped) console.error(`strip-wasm-custom: ${dropped} bytes of custom sections dropped from ${file}`);
