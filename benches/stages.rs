//! The engine's stages, each on its own (criterion; `make bench`), so a regression shows in
//! the stage that has it: ingest (normalising lines, reading a notebook), the scan (keyword jumps and readers over a
//! log), the rules (choosing a cause from evidence), the report (diagnosis, JSON and text).
#[cfg(not(target_arch = "wasm32"))]
mod stages {
    use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
    use first_assert::scan::normalize::normalise;
    use first_assert::scan::Scanner;
    use first_assert::{analyze_text, render, Options};
    use std::hint::black_box;

    /// A generated training log with `records` per-thread assertion records and a traceback.
    fn log(mb: usize, records: usize) -> String {
        let mut s = String::new();
        let mut i = 0u64;
        while s.len() < mb << 20 {
            i += 1;
            s.push_str(&format!(
                " {:3}%|#####     | {i}/90000 [01:12<00:40, 8.31it/s, loss=0.{:04}]\n",
                i % 100,
                i % 10000
            ));
            if i.is_multiple_of(97) {
                s.push_str("/usr/local/lib/python3.10/dist-packages/torch/optim/lr_scheduler.py:139: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`.\n");
            }
        }
        for t in 0..records {
            s.push_str(&format!("../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [{},0,0], thread: [{},0,0] Assertion `t >= 0 && t < n_classes` failed.\n", t / 128, t % 128));
        }
        s.push_str("Traceback (most recent call last):\n  File \"/content/train.py\", line 57, in <module>\n    loss = F.cross_entropy(logits, labels)\nRuntimeError: CUDA error: device-side assert triggered\n");
        s
    }

    fn ingest(c: &mut Criterion) {
        let lines: Vec<String> = [
            "\u{1b}[0;31mRuntimeError\u{1b}[0m: CUDA error: device-side assert triggered",
            "[rank0]: ../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t &gt;= 0 &amp;&amp; t &lt; n_classes` failed.",
            "  File \"/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py\", line 3104, in cross_entropy",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let bytes: usize = lines.iter().map(String::len).sum();
        let mut g = c.benchmark_group("ingest");
        g.throughput(Throughput::Bytes(bytes as u64));
        g.bench_function("normalise", |b| {
            b.iter(|| lines.iter().map(|l| normalise(black_box(l)).len()).sum::<usize>())
        });
        // A notebook as nbformat writes it: outputs as arrays of lines, read one cell at a time.
        let nb = notebook(200, 100);
        g.throughput(Throughput::Bytes(nb.len() as u64));
        g.bench_function("notebook-200-cells", |b| {
            b.iter(|| first_assert::input::parse_notebook(black_box(&nb)).map(|n| n.cells.len()))
        });
        g.finish();
    }

    /// A notebook of `cells` code cells, each with `lines` lines of stdout as a list.
    fn notebook(cells: usize, lines: usize) -> String {
        let out: Vec<String> =
            (0..lines).map(|i| format!("\" {i:>4}/9000 [00:12<01:40, 8.31it/s, loss=0.{i:04}]\\n\"")).collect();
        let cell = format!(
            "{{\"cell_type\": \"code\", \"execution_count\": 1, \"metadata\": {{}}, \"source\": [\"train()\\n\", \"evaluate()\"], \"outputs\": [{{\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [{}]}}]}}",
            out.join(", ")
        );
        format!(
            "{{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {{}}, \"cells\": [{}]}}",
            vec![cell; cells].join(",\n")
        )
    }

    fn scan(c: &mut Criterion) {
        let mut g = c.benchmark_group("scan");
        g.sample_size(20);
        for (name, text) in [("training-16mb", log(16, 32)), ("flood-100k", log(1, 100_000))] {
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_with_input(BenchmarkId::from_parameter(name), &text, |b, t| {
                b.iter(|| {
                    let mut s = Scanner::new();
                    s.feed_str(black_box(t));
                    s.finish()
                })
            });
        }
        g.finish();
    }

    fn rules(c: &mut Criterion) {
        // Choosing the cause: the whole analysis of a short log is scan + diagnosis + rules, and
        // the scan of a few lines is cheap, so this tracks the rule engine.
        let short = log(0, 8);
        let mut g = c.benchmark_group("rules");
        g.bench_function("decide-short-log", |b| b.iter(|| analyze_text(black_box(&short), &Options::default()).cause));
        g.finish();
    }

    fn report(c: &mut Criterion) {
        let r = analyze_text(&log(0, 64), &Options::default());
        let mut g = c.benchmark_group("report");
        g.bench_function("json", |b| b.iter(|| serde_json::to_string(black_box(&r)).unwrap().len()));
        g.bench_function("text", |b| b.iter(|| render::text(black_box(&r), &render::TextOptions::default()).len()));
        g.finish();
    }

    criterion_group!(benches, ingest, scan, rules, report);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    stages::benches();
    criterion::Criterion::default().configure_from_args().final_summary();
}

// The benches measure the native engine; a WebAssembly build of every target gets nothing.
#[cfg(target_arch = "wasm32")]
fn main() {}
