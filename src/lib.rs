//! # Brief overview
//!
//! `first-assert` reads PyTorch output (a pasted log, a Jupyter or Colab notebook, a list of
//! cells) and finds the **first** CUDA device-side assert in it: the first kernel
//! `Assertion ... failed` line wherever it sits, else the first host-side error that reports
//! one. It marks every later CUDA error as an echo of it, says whether the traceback can be
//! trusted, names the most likely cause with its evidence, and builds the restart-and-isolate
//! checklist, in English or Simplified Chinese.
//!
//! The library does no I/O: callers hand it text or bytes and get a [`Report`] back (plain
//! serde data, the contract of `first-assert --json` and of the WebAssembly package).
//!
//! # Example
//!
//! ```
//! use first_assert::{analyze_text, Options, Verdict, Category};
//!
//! let log = "\
//! ../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.
//! Traceback (most recent call last):
//!   File \"train.py\", line 40, in <module>
//!     total += loss.item()
//! RuntimeError: CUDA error: device-side assert triggered
//! ";
//! let report = analyze_text(log, &Options::default());
//! assert_eq!(report.verdict, Verdict::DeviceAssert);
//! assert_eq!(report.first_assert.unwrap().at.line, 1);
//! assert_eq!(report.cause.unwrap().category, Category::InvalidLabel);
//! // The host line is where Python raised it (its report), not an echo of it.
//! assert_eq!(report.echo_count, 0);
//! assert_eq!(report.raised_at.unwrap().at.line, 5);
//! ```
//!
//! # Layout
//!
//! The engine is layered: a module imports its own layer or a lower one (`tests/layers.rs`
//! holds the table and fails the build on an upward import or a cycle). Read it bottom-up:
//!
//! | layer | modules | what they are |
//! | ---: | --- | --- |
//! | 0 | [`lang`], [`json`], [`re`], `order`, `memo`, [`sanitize`], [`runtime_log`], [`find`] | leaves: languages, the JSON reader, one regex syntax on two engines, the keyword search |
//! | 1 | [`report`], `text::msg` | the report contract; the message keys |
//! | 2 | [`facts`], [`input`], [`findings`] | what the scan observed; the inputs' shapes and how to read them ([`input::sniff`]); what the diagnosis decided, in no language |
//! | 3 | [`rules`] | the rule data (`rules/*.toml`) and the choice of a cause |
//! | 4 | [`text`], [`scan`], [`notebook`], `code` | the texts in both languages; the streaming scanner; a notebook's run (its order, the probed rerun, the checks on its cells); reading Python source |
//! | 5 | `diagnose`, [`words`], [`probe`] | from facts (and the input's context, [`facts::InputContext`]) to [`findings::Findings`]; the one pass that words them as a [`Report`] (the checklist and the probe cell among them) |
//! | 6 | `pipeline` | from an input to a report: the entry points re-exported here |
//! | 7 | `render`, `share`, [`view`], `docs`, [`report_json`], `triage` | what a report becomes: text, Markdown, the page's items, the rules page, JSON, a fleet's rows and groups |
//! | 8 | `wasm` | the WebAssembly binding (the command line is the binary beside the library) |
//!
//! This file holds only `mod` and `pub use`.

#[cfg(not(target_arch = "wasm32"))]
pub mod docs;
pub mod facts;
/// The kernel's card (native only: the Python package shows it).
#[cfg(not(target_arch = "wasm32"))]
pub mod card;
/// The command line (native only: the binary and the Python package run it).
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
pub mod find;
pub mod findings;
pub mod input;
pub mod json;
pub mod lang;
pub mod notebook;
mod memo;
pub mod re;
#[cfg(not(target_arch = "wasm32"))]
pub mod render;
pub mod report;
pub mod report_json;
pub mod rules;
pub mod runtime_log;
pub mod sanitize;
pub mod scan;
#[cfg(not(target_arch = "wasm32"))]
pub mod share;
pub mod text;
/// Fleet triage: rows and groups (native only: the command line and the Python package).
#[cfg(not(target_arch = "wasm32"))]
pub mod triage;
pub mod view;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

mod code;
mod diagnose;
mod order;
mod pipeline;
pub mod probe;
#[cfg(feature = "python")]
mod python;
pub mod words;

pub use input::{Cell, CellType, InputError, Notebook, Output, OutputKind};
pub use pipeline::{
    analyze_bytes, analyze_bytes_keeping, analyze_cells, analyze_notebook, analyze_sniffed, analyze_text, diagnose_bytes_keeping,
    diagnose_cells, diagnose_text, Decoded, Options, TextAnalyzer,
};
pub use report::*;
pub use text::{Lang, Msg};
