//! What only the kernel knows (the notebook extension tells it: `input.kernel`) is read as a fact:
//! whether CUDA_LAUNCH_BLOCKING=1 was in force when CUDA started decides whether the traceback
//! can be trusted, `torch.compile` in use adds the step to run uncompiled, and every writer of
//! the report (text, Markdown, the kernel's card) shows what the kernel saw.

use first_assert::{analyze_notebook, Options};
use first_assert::report::{KernelFacts, LaunchBlocking, Report};
use first_assert::text::Lang;
use first_assert::{card, render, share};

const RECORD: &str = "/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.\n";

/// A session as the extension hands it over: a setup cell, then a cell whose kernel record and
/// traceback (blaming `loss = F.cross_entropy(logits, labels)`) are its outputs.
fn session(setup: &str, note: bool) -> String {
    let tb = format!(
        "Traceback (most recent call last):\n  File \"/tmp/ipykernel_77/1.py\", line 2, in <module>\n    loss = F.cross_entropy(logits, labels)\ntorch.AcceleratorError: CUDA error: device-side assert triggered\n{}",
        if note { "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n" } else { "" }
    );
    serde_json::json!({"cells": [
        {"cell_type": "code", "execution_count": 1, "source": setup, "outputs": []},
        {"cell_type": "code", "execution_count": 2, "source": "logits = model(x)\nloss = F.cross_entropy(logits, labels)",
         "outputs": [{"output_type": "stream", "name": "stderr", "text": RECORD},
                     {"output_type": "error", "ename": "AcceleratorError", "evalue": "CUDA error: device-side assert triggered",
                      "traceback": tb.lines().collect::<Vec<_>>()}]}
    ]})
    .to_string()
}

fn facts(launch_blocking: Option<bool>, compiled: bool) -> KernelFacts {
    KernelFacts {
        torch: Some("2.11.0+cu128".into()),
        device: launch_blocking.map(|_| "Tesla T4".into()),
        launch_blocking,
        compiled,
        ..KernelFacts::default()
    }
}

fn analyze(nb: &str, kernel: Option<KernelFacts>, lang: Lang) -> Report {
    analyze_notebook(nb, &Options { kernel, ..Options::lang(lang) }).expect("a notebook")
}

#[test]
fn launch_blocking_seen_by_the_kernel_decides_whether_the_traceback_is_trusted() {
    let nb = session("import torch", false);
    // Without the kernel, nothing in the cells sets it: not set, a guess from the output.
    let guessed = analyze(&nb, None, Lang::En).stack.unwrap();
    assert_eq!((guessed.launch_blocking, guessed.launch_blocking_known, guessed.trustworthy), (LaunchBlocking::NotSet, false, false));

    let on = analyze(&nb, Some(facts(Some(true), false)), Lang::En).stack.unwrap();
    assert_eq!((on.launch_blocking, on.launch_blocking_known, on.trustworthy), (LaunchBlocking::Set, true, true));
    assert!(on.explanation.starts_with("The kernel saw CUDA start with CUDA_LAUNCH_BLOCKING=1"), "{}", on.explanation);

    let off = analyze(&nb, Some(facts(Some(false), false)), Lang::En).stack.unwrap();
    assert_eq!((off.launch_blocking, off.launch_blocking_known, off.trustworthy), (LaunchBlocking::NotSet, true, false));
    assert!(off.explanation.starts_with("The kernel saw CUDA start without CUDA_LAUNCH_BLOCKING=1"), "{}", off.explanation);

    // Set in a cell, yet not in force when CUDA started: set too late, whatever the cells' order says.
    let late = analyze(&session("import os\nos.environ['CUDA_LAUNCH_BLOCKING'] = '1'", false), Some(facts(Some(false), false)), Lang::En);
    assert_eq!(late.stack.unwrap().launch_blocking, LaunchBlocking::SetAfterCuda);
    // In force, yet PyTorch's asynchronous note is there: the variable was not seen.
    let ignored = analyze(&session("import torch", true), Some(facts(Some(true), false)), Lang::En).stack.unwrap();
    assert_eq!((ignored.launch_blocking, ignored.trustworthy), (LaunchBlocking::Ignored, false));
    // CUDA started before the extension was loaded: nothing known, the output decides.
    let unknown = analyze(&nb, Some(KernelFacts { launch_blocking: None, ..facts(Some(true), false) }), Lang::En).stack.unwrap();
    assert!(!unknown.launch_blocking_known);
}

#[test]
fn the_checklist_runs_uncompiled_while_isolating_when_torch_compile_is_in_use() {
    // The launch-blocking step turns compiling off too (one step, before the probe).
    let uncompiled = |r: &Report| {
        let s = r.checklist.iter().find(|s| s.id == "launch_blocking").expect("the launch-blocking step");
        s.code.as_deref().unwrap_or("").contains("TORCH_COMPILE_DISABLE")
    };
    assert!(!uncompiled(&analyze(&session("import torch", false), None, Lang::En)));
    let seen = analyze(&session("import torch", false), Some(facts(Some(false), true)), Lang::En);
    assert!(uncompiled(&seen), "the kernel saw a compiled graph");
    assert!(seen.checklist.iter().find(|s| s.id == "launch_blocking").unwrap().body.contains("torch.compile is in use"));
    // Set in time, but compiled: not done yet.
    let done = analyze(&session("import torch", false), Some(facts(Some(true), true)), Lang::En);
    assert!(!done.checklist.iter().find(|s| s.id == "launch_blocking").unwrap().done);
    // A cell that calls it says so too; a comment does not.
    assert!(uncompiled(&analyze(&session("model = torch.compile(model)", false), None, Lang::En)));
    assert!(!uncompiled(&analyze(&session("# model = torch.compile(model)", false), None, Lang::En)));
    let zh = analyze(&session("model = torch.compile(model)", false), None, Lang::Zh);
    assert!(zh.checklist.iter().find(|s| s.id == "launch_blocking").unwrap().body.contains("torch.compile"));
}

#[test]
fn every_writer_shows_what_the_kernel_saw() {
    let nb = session("import torch", false);
    for (lang, line) in [
        (Lang::En, "torch 2.11.0+cu128 · Tesla T4 · CUDA_LAUNCH_BLOCKING=1 when CUDA started · torch.compile in use"),
        (Lang::Zh, "torch 2.11.0+cu128 · Tesla T4 · CUDA 启动时 CUDA_LAUNCH_BLOCKING=1 · 使用了 torch.compile"),
    ] {
        let r = analyze(&nb, Some(facts(Some(true), true)), lang);
        let text = render::text(&r, &render::TextOptions { color: false, source: None, log_source: None, verbose: false });
        assert!(text.contains(line), "{text}");
        assert!(card::html(&r).contains(line), "{}", card::html(&r));
        assert!(share::markdown::markdown(&r, &[], true).markdown.contains(line));
        // The report round-trips with the facts (the Python package renders from the JSON).
        let back: Report = serde_json::from_str(&first_assert::report_json::to_string(&r)).unwrap();
        assert_eq!(back.input.kernel, r.input.kernel);
    }
    // Torch on the CPU only; CUDA started before the load.
    let cpu = KernelFacts { torch: Some("2.11.0".into()), ..KernelFacts::default() };
    assert_eq!(render::kernel_facts(&cpu, Lang::En).unwrap(), "torch 2.11.0 · CUDA not started");
    let before = KernelFacts { launch_blocking: None, ..facts(Some(true), false) };
    assert_eq!(render::kernel_facts(&before, Lang::En).unwrap(), "torch 2.11.0+cu128 · Tesla T4 · CUDA started before the extension was loaded");
    assert_eq!(render::kernel_facts(&KernelFacts::default(), Lang::En), None);
    // Without the kernel, no line.
    let r = analyze(&nb, None, Lang::En);
    assert!(!render::text(&r, &render::TextOptions { color: false, source: None, log_source: None, verbose: false }).contains("Kernel:"));
}

#[test]
fn a_device_name_from_the_kernel_is_escaped_in_the_card() {
    let k = KernelFacts { device: Some("<img src=x onerror=alert(1)>".into()), ..facts(Some(true), false) };
    let h = card::html(&analyze(&session("import torch", false), Some(k), Lang::En));
    assert!(!h.contains("<img"), "{h}");
    assert!(h.contains("&lt;img src=x onerror=alert(1)&gt;"));
}
