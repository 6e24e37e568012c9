// Large training logs for the page's file tests and benchmark (tests/e2e/stream.test.mjs,
// bench-file.mjs): megabytes of step lines, a device-side assert at 40% (the kernel's record
// and the traceback) and an echo at 80%.

import { openSync, writeSync, closeSync } from "node:fs";

const MB = 1 << 20;

/** A training log's lines, about one megabyte of them. */
function filler(epoch) {
  let s = "";
  for (let step = 0; s.length < MB - 80; step++) s += `epoch ${epoch} step ${step} loss 0.${(step * 7919) % 10000} lr 0.0001\n`;
  return Buffer.from(s);
}

/** Writes a log of about `mb` megabytes to `file`. */
export function writeLog(file, mb) {
  const fd = openSync(file, "w");
  const assertAt = Math.floor(mb * 0.4);
  const echoAt = Math.floor(mb * 0.8);
  const block = [filler(0), filler(1)];
  for (let i = 0; i < mb; i++) {
    writeSync(fd, block[i & 1]);
    if (i === assertAt) {
      writeSync(fd, "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\n");
      writeSync(fd, 'Traceback (most recent call last):\n  File "train.py", line 88, in <module>\n    loss = criterion(logits, labels)\nRuntimeError: CUDA error: device-side assert triggered\n');
    }
    if (i === echoAt) writeSync(fd, "RuntimeError: CUDA error: device-side assert triggered\n");
  }
  closeSync(fd);
}
