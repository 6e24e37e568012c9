//! Writes the benchmark inputs, deterministically from a seed (make bench):
//!
//!   genlog train SIZE_MB [--assert]   a training log (progress bars, epoch lines, warnings),
//!                                     with one device-side assert near the end if asked
//!   genlog flood LINES                per-thread assertion records, then tracebacks and echoes
//!   genlog notebook SIZE_MB CELLS     an .ipynb: training outputs, ANSI tracebacks, the
//!                                     first assert in one cell and echoes in later ones;
//!                                     texts a line per string, as Jupyter writes them
//!   genlog longline SIZE_MB           one line of that size with an assert in the middle
//!
//! Options: --seed N (default 1). Older form: `genlog SIZE_MB [--assert]` = `train`.

use std::io::{BufWriter, Write};

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

const KERNEL: &str = "../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d";
const ERROR: &str = "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n";

fn record(block: u64, thread: u64) -> String {
    format!("{KERNEL}: block: [{block},0,0], thread: [{thread},0,0] Assertion `t >= 0 && t < n_classes` failed.\n")
}

/// One line of an ordinary training run.
fn train_line(rng: &mut Lcg, written: u64, total: u64, step: &mut u64, epoch: &mut u64) -> String {
    match rng.next() % 100 {
        0 => {
            *epoch += 1;
            let e = *epoch as f64;
            format!("Epoch {epoch}: train loss {:.4} val loss {:.4} val acc {:.3}\n", 1.0 / (e + 1.0), 1.2 / (e + 1.0), 0.5 + (*epoch % 50) as f64 / 100.0)
        }
        1 => "/usr/local/lib/python3.10/dist-packages/torch/optim/lr_scheduler.py:139: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`.\n".to_string(),
        _ => {
            *step += 1;
            let pct = (written * 100 / total.max(1)) as usize;
            let bar: String = "#".repeat(pct / 10);
            format!(
                "{pct:3}%|{bar:<10}| {step}/{} [{:02}:{:02}<{:02}:{:02}, {:.2}it/s, loss={:.4}, lr={:.2e}]\n",
                total / 90,
                *step / 3600 % 60,
                *step / 60 % 60,
                rng.next() % 60,
                rng.next() % 60,
                8.0 + (rng.next() % 400) as f64 / 100.0,
                (rng.next() % 10000) as f64 / 10000.0,
                3e-4
            )
        }
    }
}

fn train(w: &mut impl Write, rng: &mut Lcg, mb: u64, with_assert: bool) -> std::io::Result<()> {
    let total = mb << 20;
    let (mut written, mut step, mut epoch) = (0u64, 0u64, 0u64);
    let assert_at = total - total / 50;
    let mut asserted = !with_assert;
    while written < total {
        if !asserted && written >= assert_at {
            asserted = true;
            for t in 0..32 {
                w.write_all(record(0, t).as_bytes())?;
            }
            w.write_all(b"Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n    running_loss += loss.item()\n")?;
            w.write_all(ERROR.as_bytes())?;
        }
        let line = train_line(rng, written, total, &mut step, &mut epoch);
        written += line.len() as u64;
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

fn flood(w: &mut impl Write, rng: &mut Lcg, lines: u64) -> std::io::Result<()> {
    for i in 0..lines {
        // Threads in order within a block, blocks in a shuffled order, as kernels print them.
        let block = (i / 128 + rng.next() % 3) % 4096;
        w.write_all(record(block, i % 128).as_bytes())?;
    }
    w.write_all(b"Traceback (most recent call last):\n  File \"/content/train.py\", line 57, in <module>\n    loss = criterion(logits, labels)\n  File \"/usr/local/lib/python3.10/dist-packages/torch/nn/modules/loss.py\", line 1174, in forward\n    return F.cross_entropy(input, target, weight=self.weight,\n")?;
    w.write_all(ERROR.as_bytes())?;
    for _ in 0..20 {
        w.write_all(b"RuntimeError: CUDA error: device-side assert triggered\n")?;
    }
    Ok(())
}

/// `s` as nbformat writes a multi-line string: a JSON list of its lines.
fn json_lines(s: &str) -> String {
    let lines: Vec<String> = s.split_inclusive('\n').map(json).collect();
    format!("[{}]", lines.join(", "))
}

fn json(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn notebook(w: &mut impl Write, rng: &mut Lcg, mb: u64, cells: u64) -> std::io::Result<()> {
    // The cells before the assert carry the training output; the ones after it only their
    // echo tracebacks, so the output is spread over the former to reach `mb` in all.
    let assert_cell = cells * 3 / 5;
    let per_cell = (mb << 20) / assert_cell.max(1);
    w.write_all(b"{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {}, \"cells\": [\n")?;
    let (mut step, mut epoch) = (0u64, 0u64);
    for c in 0..cells {
        let mut outputs = Vec::new();
        if c == assert_cell {
            let recs: String = (0..64).map(|t| record(t / 32, t % 32)).collect();
            outputs.push(format!(
                "{{\"output_type\": \"stream\", \"name\": \"stderr\", \"text\": {}}}",
                json_lines(&recs)
            ));
        }
        if c >= assert_cell {
            let tb = [
                "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
                "\x1b[0;31mRuntimeError\x1b[0m                              Traceback (most recent call last)",
                &format!(
                    "\x1b[0;32m<ipython-input-{}-0a1b2c3d4e5f>\x1b[0m in \x1b[0;36m<cell line: 3>\x1b[0;34m()\x1b[0m",
                    c + 1
                ),
                "\x1b[0;32m----> 3\x1b[0;31m loss = criterion(logits, labels)\x1b[0m",
                "\x1b[0;31mRuntimeError\x1b[0m: CUDA error: device-side assert triggered",
            ];
            let tb: Vec<String> = tb.iter().map(|l| json(l)).collect();
            outputs.push(format!(
                "{{\"output_type\": \"error\", \"ename\": \"RuntimeError\", \"evalue\": \"CUDA error: device-side assert triggered\", \"traceback\": [{}]}}",
                tb.join(", ")
            ));
        } else {
            let mut text = String::new();
            while (text.len() as u64) < per_cell {
                text.push_str(&train_line(rng, text.len() as u64, per_cell, &mut step, &mut epoch));
            }
            outputs.push(format!(
                "{{\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": {}}}",
                json_lines(&text)
            ));
        }
        let sep = if c + 1 < cells { "," } else { "" };
        writeln!(
            w,
            "{{\"cell_type\": \"code\", \"execution_count\": {}, \"metadata\": {{}}, \"source\": [\"for batch in loader:\\n\", \"    loss = criterion(model(batch.x), batch.y)\\n\"], \"outputs\": [{}]}}{sep}",
            c + 1,
            outputs.join(", ")
        )?;
    }
    w.write_all(b"]}\n")
}

fn longline(w: &mut impl Write, rng: &mut Lcg, mb: u64) -> std::io::Result<()> {
    let total = mb << 20;
    let mut written = 0u64;
    let mut asserted = false;
    while written < total {
        if !asserted && written >= total / 2 {
            asserted = true;
            let r = record(3, 7);
            w.write_all(r.trim_end().as_bytes())?;
            w.write_all(b" RuntimeError: CUDA error: device-side assert triggered ")?;
        }
        let chunk = format!("{{'step': {}, 'loss': 0.{:04}, 'lr': 3e-4}} ", written / 40, rng.next() % 10000);
        written += chunk.len() as u64;
        w.write_all(chunk.as_bytes())?;
    }
    w.write_all(b"\n")
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let seed =
        args.iter().position(|a| a == "--seed").and_then(|i| args.get(i + 1)).and_then(|s| s.parse().ok()).unwrap_or(1);
    if args.first().is_some_and(|a| a.parse::<u64>().is_ok()) {
        args.insert(0, "train".into());
    }
    let num = |i: usize, default: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let mut rng = Lcg(seed);
    let out = std::io::stdout();
    let mut w = BufWriter::with_capacity(1 << 20, out.lock());
    let r = match args.first().map(String::as_str) {
        Some("train") => train(&mut w, &mut rng, num(1, 100), args.iter().any(|a| a == "--assert")),
        Some("flood") => flood(&mut w, &mut rng, num(1, 1_000_000)),
        Some("notebook") => notebook(&mut w, &mut rng, num(1, 20), num(2, 500)),
        Some("longline") => longline(&mut w, &mut rng, num(1, 10)),
        _ => {
            eprintln!("usage: genlog train SIZE_MB [--assert] | flood LINES | notebook SIZE_MB CELLS | longline SIZE_MB  [--seed N]");
            std::process::exit(2);
        }
    };
    // A closed pipe (`| head`) ends the output quietly.
    let _ = r.and_then(|_| w.flush());
}
