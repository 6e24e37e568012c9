//! Writes a synthetic PyTorch training log for benchmarks: progress lines, epoch summaries,
//! warnings, and optionally one device-side assert near the end.
//!
//! Usage: cargo run --release --example genlog -- SIZE_MB [--assert] [--seed N] > out.log

use std::io::{BufWriter, Write};

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mb: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(100);
    let with_assert = args.iter().any(|a| a == "--assert");
    let seed =
        args.iter().position(|a| a == "--seed").and_then(|i| args.get(i + 1)).and_then(|s| s.parse().ok()).unwrap_or(1);
    let total = mb << 20;
    let mut rng = Lcg(seed);
    let out = std::io::stdout();
    let mut w = BufWriter::with_capacity(1 << 20, out.lock());
    let mut written = 0u64;
    let mut step = 0u64;
    let mut epoch = 0u64;
    let assert_at = total - total / 50;
    let mut asserted = !with_assert;
    while written < total {
        let line = match rng.next() % 100 {
            0 => {
                epoch += 1;
                format!("Epoch {epoch}: train loss {:.4} val loss {:.4} val acc {:.3}\n", 1.0 / (epoch as f64 + 1.0), 1.2 / (epoch as f64 + 1.0), 0.5 + (epoch % 50) as f64 / 100.0)
            }
            1 => "/usr/local/lib/python3.10/dist-packages/torch/optim/lr_scheduler.py:139: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`.\n".to_string(),
            _ => {
                step += 1;
                let pct = (written * 100 / total) as usize;
                let bar: String = "#".repeat(pct / 10);
                format!("{pct:3}%|{bar:<10}| {step}/{} [{:02}:{:02}<{:02}:{:02}, {:.2}it/s, loss={:.4}, lr={:.2e}]\n", total / 90, step / 3600 % 60, step / 60 % 60, rng.next() % 60, rng.next() % 60, 8.0 + (rng.next() % 400) as f64 / 100.0, (rng.next() % 10000) as f64 / 10000.0, 3e-4)
            }
        };
        if !asserted && written >= assert_at {
            asserted = true;
            for t in 0..32 {
                let _ = writeln!(w, "../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [{t},0,0] Assertion `t >= 0 && t < n_classes` failed.");
            }
            let _ = w.write_all(b"Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n    running_loss += loss.item()\nRuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n");
        }
        written += line.len() as u64;
        if w.write_all(line.as_bytes()).is_err() {
            return;
        }
    }
}
