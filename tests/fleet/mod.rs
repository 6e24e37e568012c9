//! A fleet of failed runs, generated from a seed: jobs of ranks, one log per rank (every tenth
//! gzipped), torchrun's error files beside them, and the truth about what is in it. Our own
//! text, in the forms real launches print: rank prefixes (`[rank3]:`, `[default3]:`,
//! `(pid=812)`, a logger's time and `[rank 3]`), kernel records with each rank's own blocks and
//! threads, PyTorch versions that print a site at different lines, the echoes on other ranks.
//!
//! Used by tests/triage.rs, by `examples/genfleet.rs` (the benchmark's and the Python tests'
//! fleets) and so by the Ray test.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// What fails in a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    Label,
    Embedding,
    Index,
    Bce,
    OutOfMemory,
    Clean,
}

pub const BUGS: [Bug; 6] = [Bug::Label, Bug::Embedding, Bug::Index, Bug::Bce, Bug::OutOfMemory, Bug::Clean];

impl Bug {
    /// A kernel record of this bug: the site as two PyTorch versions print it.
    fn record(self, new: bool, block: u64, thread: u64) -> Option<String> {
        let (file, line, func, cond) = match self {
            Bug::Label => ("Loss.cu", if new { 250 } else { 242 }, "nll_loss_forward_reduce_cuda_kernel_2d", "t >= 0 && t < n_classes"),
            Bug::Embedding => ("Indexing.cu", if new { 1369 } else { 1289 }, "indexSelectLargeIndex", "srcIndex < srcSelectDimSize"),
            Bug::Index => ("IndexKernel.cu", if new { 94 } else { 92 }, "operator()", "-sizes[i] <= index && index < sizes[i] && \"index out of bounds\""),
            Bug::Bce => ("Loss.cu", if new { 106 } else { 102 }, "operator()", "input_val >= zero && input_val <= one"),
            _ => return None,
        };
        let root = if new { "/pytorch/aten/src/ATen/native/cuda" } else { "../aten/src/ATen/native/cuda" };
        Some(format!("{root}/{file}:{line}: {func}: block: [{block},0,0], thread: [{thread},0,0] Assertion `{cond}` failed."))
    }

    /// The group the engine should make of a log where this bug fired (its rule's id stands in
    /// the group; the test reads which from the first report).
    pub fn asserts(self) -> bool {
        !matches!(self, Bug::OutOfMemory | Bug::Clean)
    }
}

/// A rank's prefix, one of the launchers' forms.
fn prefix(form: u64, rank: u32, rng: &mut Lcg) -> String {
    match form % 4 {
        0 => format!("[rank{rank}]: "),
        1 => format!("[default{rank}]:"),
        2 => format!("(pid={}) ", 1000 + rng.next() % 60000),
        _ => format!("2026-12-0{} 0{}:{:02}:{:02},{:03} [rank {rank}] ", 1 + rng.next() % 7, rng.next() % 10, rng.next() % 60, rng.next() % 60, rng.next() % 1000),
    }
}

/// The truth about a fleet.
#[derive(Default, Debug)]
pub struct Truth {
    /// Every log written, with its job's bug and whether its rank printed the assert (the
    /// others echo it, or print nothing of it).
    pub logs: Vec<(PathBuf, Bug, bool)>,
    /// torchrun's error files, with their job and time.
    pub error_files: Vec<(PathBuf, u64)>,
    pub bytes: u64,
}

/// Writes a fleet of `jobs` jobs of `ranks` ranks under `dir`, each log about `kb` KiB.
pub fn write(dir: &Path, jobs: u32, ranks: u32, kb: u64, seed: u64) -> std::io::Result<Truth> {
    let mut rng = Lcg(seed);
    let mut truth = Truth::default();
    let mut n = 0u64;
    for j in 0..jobs {
        let bug = BUGS[(rng.next() % BUGS.len() as u64) as usize];
        let new = rng.next() % 2 == 0;
        let form = rng.next();
        let job = dir.join(format!("job-{j:04}"));
        std::fs::create_dir_all(&job)?;
        // One or two ranks fire the assert; the others see the launch fail.
        let first = (rng.next() % u64::from(ranks)) as u32;
        let second = (rng.next() % u64::from(ranks)) as u32;
        let t0 = 1_764_700_000 + u64::from(j) * 97;
        for r in 0..ranks {
            let fires = bug.asserts() && (r == first || r == second);
            let text = log(&mut rng, bug, new, form, r, fires, kb);
            n += 1;
            let gz = n % 10 == 0;
            let path = job.join(if gz { format!("rank_{r}.log.gz") } else { format!("rank_{r}.log") });
            let bytes = if gz {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(text.as_bytes())?;
                e.finish()?
            } else {
                text.into_bytes()
            };
            truth.bytes += bytes.len() as u64;
            std::fs::write(&path, bytes)?;
            truth.logs.push((path, bug, fires));
            if fires {
                // torchrun's error file for the rank: the second one to fire may tie.
                let t = t0 + if r == first { 0 } else { rng.next() % 2 };
                let f = job.join(format!("torchelastic/attempt_0/{r}/error.json"));
                std::fs::create_dir_all(f.parent().unwrap_or(&job))?;
                let host = bug.record(new, 0, 0).map(|_| "CUDA error: device-side assert triggered").unwrap_or("error");
                let json = format!(
                    r#"{{"message": {{"message": "RuntimeError: {host}", "extraInfo": {{"py_callstack": "Traceback (most recent call last):\n  File \"/srv/train.py\", line 91, in step\n    loss.backward()\nRuntimeError: {host}\n", "timestamp": "{t}"}}}}}}"#
                );
                std::fs::write(&f, json)?;
                truth.error_files.push((f, t));
            }
        }
    }
    Ok(truth)
}

/// One rank's log.
fn log(rng: &mut Lcg, bug: Bug, new: bool, form: u64, rank: u32, fires: bool, kb: u64) -> String {
    let p = |rng: &mut Lcg| prefix(form, rank, rng);
    let mut out = String::new();
    let mut step = 0;
    while (out.len() as u64) < kb << 10 {
        step += 1;
        let pre = p(rng);
        out.push_str(&format!("{pre}step {step} loss {:.4} lr 3.0e-04 grad_norm {:.3}\n", (rng.next() % 10000) as f64 / 10000.0, (rng.next() % 5000) as f64 / 1000.0));
    }
    match bug {
        Bug::Clean => out.push_str(&format!("{}training finished: {step} steps\n", p(rng))),
        Bug::OutOfMemory => {
            out.push_str(&format!("{}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {} MiB. GPU {rank} has a total capacity of 79.10 GiB of which {} MiB is free.\n", p(rng), 256 + rng.next() % 4096, rng.next() % 900));
        }
        _ if fires => {
            for k in 0..(2 + rng.next() % 6) {
                let rec = bug.record(new, rng.next() % 64, k * 32 + rng.next() % 32).unwrap_or_default();
                out.push_str(&format!("{}{rec}\n", p(rng)));
            }
            for l in ["Traceback (most recent call last):", "  File \"/srv/train.py\", line 91, in step", "    loss.backward()"] {
                out.push_str(&format!("{}{l}\n", p(rng)));
            }
            out.push_str(&format!("{}RuntimeError: CUDA error: device-side assert triggered\n", p(rng)));
        }
        _ => {
            // A rank that did not fire: the collective it waits in fails.
            out.push_str(&format!("{}[E ProcessGroupNCCL.cpp:1484] [PG 0 Rank {rank}] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5\n", p(rng)));
        }
    }
    out
}
