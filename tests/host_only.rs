//! The Colab path: outputs with no kernel line, where the cause must come from the host-side
//! evidence alone (the host message, the traceback's frames and source lines, every cell's
//! code, earlier outputs, an op that launches no kernel). Each scenario is written once as
//! cells and read in every shape it can take: a plain log (when the evidence is in what a
//! process prints), an `.ipynb` from Colab, and the adapters' cell list. Each must name the
//! category (and rule) and show the line the evidence came from.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_bytes, Options, Report};
use serde_json::{json, Value};

enum Out {
    /// Text the cell printed (stdout, or stderr for warnings).
    Print(&'static str, &'static str),
    /// The cell's error: the exception's message and the traceback's frames, innermost last,
    /// each `[file, function, source line]`.
    Error(&'static str, &'static [[&'static str; 3]]),
}

struct Cell {
    source: &'static str,
    outputs: Vec<Out>,
}

struct Scenario {
    name: &'static str,
    cells: Vec<Cell>,
    /// The evidence is also in what a script prints (not only in other cells' code).
    as_log: bool,
    category: &'static str,
    rule: &'static str,
    /// The evidence's scope and a part of its line.
    evidence: (&'static str, &'static str),
}

const ASSERT: &str = "CUDA error: device-side assert triggered";

fn cell(source: &'static str, outputs: Vec<Out>) -> Cell {
    Cell { source, outputs }
}

fn scenarios() -> Vec<Scenario> {
    use Out::*;
    vec![
        Scenario {
            name: "the host message names the kernel's file (old builds)",
            cells: vec![cell(
                "loss = criterion(model(x), y)\nloss.backward()",
                vec![Error(
                    "cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THCUNN/generic/ClassNLLCriterion.cu:110",
                    &[["<cell>", "<module>", "loss.backward()"], ["/usr/local/lib/python3.7/dist-packages/torch/tensor.py", "backward", "torch.autograd.backward(self, gradient, retain_graph, create_graph)"]],
                )],
            )],
            as_log: true,
            category: "invalid_label",
            rule: "class-target-out-of-range",
            evidence: ("site", "ClassNLLCriterion.cu"),
        },
        Scenario {
            name: "a library frame's source line calls the op (nll_loss2d)",
            cells: vec![cell(
                "loss = F.cross_entropy(out, mask)",
                vec![Error(
                    ASSERT,
                    &[
                        ["<cell>", "<module>", "loss = F.cross_entropy(out, mask)"],
                        ["/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py", "cross_entropy", "return torch._C._nn.nll_loss2d(input, target, weight, _Reduction.get_enum(reduction), ignore_index)"],
                    ],
                )],
            )],
            as_log: true,
            category: "invalid_label",
            rule: "segmentation-mask-out-of-range",
            evidence: ("code", "nll_loss2d("),
        },
        Scenario {
            name: "the embedding table in an earlier cell's code, the error at the model call",
            cells: vec![
                cell("class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.emb = nn.Embedding(5000, 64)\n        self.head = nn.Linear(64, 2)", vec![]),
                cell("out = net(batch)", vec![Error(ASSERT, &[["<cell>", "<module>", "out = net(batch)"]])]),
            ],
            as_log: false,
            category: "index_out_of_bounds",
            rule: "embedding-index-out-of-range",
            evidence: ("code", "nn.Embedding(5000, 64)"),
        },
        Scenario {
            name: "tokens added in an earlier cell, the embedding not resized",
            cells: vec![
                cell(
                    "num_added = tokenizer.add_special_tokens({'additional_special_tokens': ['<speaker1>', '<speaker2>']})",
                    vec![Print("stderr", "Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained.\n")],
                ),
                cell(
                    "outputs = model(**batch)",
                    vec![Error(
                        ASSERT,
                        &[
                            ["<cell>", "<module>", "outputs = model(**batch)"],
                            ["/usr/local/lib/python3.10/dist-packages/torch/nn/modules/sparse.py", "forward", "return F.embedding("],
                        ],
                    )],
                ),
            ],
            as_log: true,
            category: "index_out_of_bounds",
            rule: "tokenizer-vocab-mismatch",
            evidence: ("message", "Special tokens have been added"),
        },
        Scenario {
            name: "an earlier output warns that the sequences are past the model's positions",
            cells: vec![
                cell(
                    "enc = tokenizer(texts, truncation=False, padding=True, return_tensors='pt')",
                    vec![Print("stderr", "Token indices sequence length is longer than the specified maximum sequence length for this model (734 > 512). Running this sequence through the model will result in indexing errors\n")],
                ),
                cell(
                    "logits = model(**enc).logits",
                    vec![Error(
                        ASSERT,
                        &[
                            ["<cell>", "<module>", "logits = model(**enc).logits"],
                            ["/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py", "embedding", "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)"],
                        ],
                    )],
                ),
            ],
            as_log: true,
            category: "index_out_of_bounds",
            rule: "position-ids-too-long",
            evidence: ("message", "Token indices sequence length"),
        },
        Scenario {
            name: "labels set to -1 in an earlier cell, cross-entropy without ignore_index",
            cells: vec![
                cell("df['label'] = df['label'].fillna(-1).astype(int)", vec![]),
                cell(
                    "loss = F.cross_entropy(logits, labels)",
                    vec![Error(
                        ASSERT,
                        &[
                            ["<cell>", "<module>", "loss = F.cross_entropy(logits, labels)"],
                            ["/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py", "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)"],
                        ],
                    )],
                ),
            ],
            as_log: false,
            category: "invalid_label",
            rule: "ignore-index-mismatch",
            evidence: ("code", "fillna(-1)"),
        },
        Scenario {
            name: "an earlier cell printed labels up to the class count a cell set",
            cells: vec![
                cell("num_classes = 10\nmodel = resnet18(num_classes=num_classes).to(device)", vec![]),
                cell("print(torch.unique(train_labels))", vec![Print("stdout", "tensor([ 1,  2,  3,  4,  5,  6,  7,  8,  9, 10])\n")]),
                cell(
                    "for x, y in loader:\n    out = model(x.to(device))\n    total += out.argmax(1).eq(y.to(device)).sum().item()",
                    vec![Error(ASSERT, &[["<cell>", "<module>", "total += out.argmax(1).eq(y.to(device)).sum().item()"]])],
                ),
            ],
            as_log: false,
            category: "invalid_label",
            rule: "class-target-out-of-range",
            evidence: ("check", "tensor([ 1,  2,  3"),
        },
        Scenario {
            name: "the only error is at torch.cuda.empty_cache(): an earlier assert broke the context",
            cells: vec![cell(
                "del model\ntorch.cuda.empty_cache()",
                vec![Error(
                    ASSERT,
                    &[
                        ["<cell>", "<module>", "torch.cuda.empty_cache()"],
                        ["/usr/local/lib/python3.10/dist-packages/torch/cuda/memory.py", "empty_cache", "torch._C._cuda_emptyCache()"],
                    ],
                )],
            )],
            as_log: true,
            category: "stale_context",
            rule: "stale-context",
            evidence: ("frame", "empty_cache"),
        },
        Scenario {
            name: "near miss: a CrossEntropyLoss in the notebook does not take an embedding assert",
            cells: vec![
                cell("criterion = nn.CrossEntropyLoss()\noptimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)", vec![]),
                cell(
                    "hidden = model.embed(tokens)",
                    vec![Error(
                        ASSERT,
                        &[
                            ["<cell>", "<module>", "hidden = model.embed(tokens)"],
                            ["/usr/local/lib/python3.10/dist-packages/torch/nn/modules/sparse.py", "forward", "return F.embedding("],
                            ["/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py", "embedding", "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)"],
                        ],
                    )],
                ),
            ],
            as_log: false,
            category: "index_out_of_bounds",
            rule: "embedding-index-out-of-range",
            evidence: ("frame", "embedding"),
        },
    ]
}

/// The traceback as IPython prints it in a cell (plain, the way the cell-list adapters read
/// it off the page), frames of the cell named by the cell's input.
fn ipython(n: usize, msg: &str, frames: &[[&str; 3]]) -> Vec<String> {
    let mut tb = vec![
        "---------------------------------------------------------------------------".to_string(),
        "RuntimeError                              Traceback (most recent call last)".to_string(),
    ];
    for (i, [file, func, code]) in frames.iter().enumerate() {
        let line = 3 + i * 40;
        if *file == "<cell>" {
            tb.push(format!("<ipython-input-{n}-5d1c0f2e9ab7> in <cell line: {line}>()\n----> {line} {code}\n"));
        } else {
            tb.push(format!("{file} in {func}(*args, **kwargs)\n{:>6}     # ...\n-> {line:>4}     {code}\n", line - 1));
        }
    }
    tb.push(format!("RuntimeError: {msg}"));
    tb
}

/// What the same code prints as a script: outputs, then Python's traceback.
fn as_log(s: &Scenario) -> String {
    let mut out = String::new();
    for (n, c) in s.cells.iter().enumerate() {
        for o in &c.outputs {
            match o {
                Out::Print(_, t) => out.push_str(t),
                Out::Error(msg, frames) => {
                    out.push_str("Traceback (most recent call last):\n");
                    for (i, [file, func, code]) in frames.iter().enumerate() {
                        let file = if *file == "<cell>" { "/content/train.py" } else { file };
                        out.push_str(&format!("  File \"{file}\", line {}, in {func}\n    {code}\n", 10 + n * 20 + i));
                    }
                    out.push_str(&format!("RuntimeError: {msg}\n"));
                }
            }
        }
    }
    out
}

fn ipynb(s: &Scenario) -> String {
    let cells: Vec<Value> = s
        .cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let n = i + 1;
            let outputs: Vec<Value> = c
                .outputs
                .iter()
                .map(|o| match o {
                    Out::Print(name, t) => json!({ "output_type": "stream", "name": name, "text": [t] }),
                    Out::Error(msg, frames) => json!({
                        "output_type": "error", "ename": "RuntimeError", "evalue": msg,
                        // Colab colours its tracebacks.
                        "traceback": ipython(n, msg, frames).iter().map(|l| format!("\u{1b}[0;31m{l}\u{1b}[0m")).collect::<Vec<_>>(),
                    }),
                })
                .collect();
            json!({ "cell_type": "code", "execution_count": n, "metadata": {}, "source": c.source, "outputs": outputs })
        })
        .collect();
    json!({ "nbformat": 4, "nbformat_minor": 0, "metadata": { "colab": { "provenance": [] }, "accelerator": "GPU" }, "cells": cells })
        .to_string()
}

fn cell_list(s: &Scenario) -> String {
    let cells: Vec<Value> = s
        .cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let n = i + 1;
            let outputs: Vec<Value> = c
                .outputs
                .iter()
                .map(|o| match o {
                    Out::Print(name, t) => json!({ "kind": "stream", "name": name, "text": t }),
                    Out::Error(msg, frames) => {
                        json!({ "kind": "error", "ename": "RuntimeError", "evalue": msg, "traceback": ipython(n, msg, frames) })
                    }
                })
                .collect();
            json!({ "index": i, "execution_count": n, "source": c.source, "outputs": outputs })
        })
        .collect();
    json!({ "host": "colab", "cells": cells }).to_string()
}

fn check(s: &Scenario, shape: &str, r: &Report) -> Option<String> {
    let Some(c) = &r.cause else { return Some(format!("{} [{shape}]: no cause", s.name)) };
    if r.first_assert.is_none() {
        return Some(format!("{} [{shape}]: no first assert", s.name));
    }
    let (scope, text) = s.evidence;
    let shown = c.evidence.iter().any(|e| e.scope == scope && e.text.contains(text));
    if c.category.id() != s.category || c.rule != s.rule || !shown {
        let ev: Vec<String> = c.evidence.iter().map(|e| format!("{}: {}", e.scope, e.text)).collect();
        return Some(format!(
            "{} [{shape}]: got {} ({}) with {ev:?}; want {} ({}) with {scope} `{text}`",
            s.name,
            c.rule,
            c.category.id(),
            s.rule,
            s.category
        ));
    }
    None
}

#[test]
fn host_side_evidence_names_the_cause_in_every_shape() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for s in scenarios() {
        let mut shapes = vec![("ipynb", "colab.ipynb", ipynb(&s)), ("cells", "cells.json", cell_list(&s))];
        if s.as_log {
            shapes.push(("log", "train.log", as_log(&s)));
        }
        for (shape, name, text) in shapes {
            let r = analyze_bytes(text.as_bytes(), Some(name), &Options::default()).expect(name);
            runs += 1;
            failures.extend(check(&s, shape, &r));
        }
    }
    assert!(runs >= 20, "only {runs} runs");
    assert!(failures.is_empty(), "{} of {runs} misread:\n{}", failures.len(), failures.join("\n"));
}

/// On Colab, the notebook's shapes say where the kernel's lines went; a plain log does not
/// claim to know.
#[test]
fn on_colab_the_report_says_the_kernel_lines_are_in_the_runtime_log() {
    let s = &scenarios()[2];
    for (name, text) in [("colab.ipynb", ipynb(s)), ("cells.json", cell_list(s))] {
        let r = analyze_bytes(text.as_bytes(), Some(name), &Options::default()).unwrap();
        assert!(r.notes.iter().any(|n| n.id == "kernel_lines_in_runtime_log"), "{name}: {:?}", r.notes);
        assert_eq!(r.checklist.first().map(|s| s.id.as_str()), Some("runtime_log"), "{name}");
    }
}

/// Labels printed below the class count are no evidence of a label past it.
#[test]
fn labels_below_the_class_count_are_not_evidence() {
    let s = scenarios().into_iter().find(|s| s.name.starts_with("an earlier cell printed labels")).unwrap();
    let text =
        ipynb(&s).replace("tensor([ 1,  2,  3,  4,  5,  6,  7,  8,  9, 10])", "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])");
    let r = analyze_bytes(text.as_bytes(), Some("colab.ipynb"), &Options::default()).unwrap();
    let c = r.cause.unwrap();
    assert!(c.evidence.iter().all(|e| e.scope != "check"), "{:?}", c.evidence);
    assert_ne!(c.rule, "class-target-out-of-range", "{:?}", c.evidence);
}

/// A traceback copied off Colab says so by its cell's file name, in each of the five forms
/// Colab used in 2025-26, beside its `dist-packages`; Jupyter's `Cell In[N]` does not.
#[test]
fn each_colab_cell_file_form_tells_a_pasted_traceback_came_from_colab() {
    let tb = |cell: &str, lib: &str| {
        format!(
            "RuntimeError                              Traceback (most recent call last)\n\
             [{cell}](https://localhost:8080/#) in <cell line: 0>()\n\
             ----> 3 loss = criterion(out, y)\n\n\
             {lib}/torch/nn/modules/module.py in _call_impl(self, *args, **kwargs)\n\
             -> 1762 return forward_call(*args, **kwargs)\n\n\
             AcceleratorError: CUDA error: device-side assert triggered\n"
        )
    };
    let colab = "/usr/local/lib/python3.12/dist-packages";
    for cell in [
        "<ipython-input-12-3f2a9c0d1b7e>",
        "/tmp/ipython-input-12-2709765677.py",
        "/tmp/ipython-input-2709765677.py",
        "/tmp/ipython-input-412/2709765677.py",
        "/tmp/ipykernel_412/2709765677.py",
    ] {
        let r = first_assert::analyze_text(&tb(cell, colab), &Options::default());
        assert_eq!(r.checklist.first().map(|s| s.id.as_str()), Some("runtime_log"), "{cell}");
        let user = r.raised_at.as_ref().and_then(|a| a.user_frame.as_ref()).map(|f| f.file.as_str());
        assert_eq!(user, Some(cell), "{cell}");
    }
    let r = first_assert::analyze_text(
        &tb("/tmp/ipykernel_412/2709765677.py", "/opt/conda/lib/python3.12/site-packages"),
        &Options::default(),
    );
    assert_ne!(r.checklist.first().map(|s| s.id.as_str()), Some("runtime_log"));
}
