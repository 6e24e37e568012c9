//! The report: what the engine concluded, as plain serde data.
//!
//! This is the contract of `first-assert --json` and of the WebAssembly API. Fields are added
//! freely and never renamed; a breaking change bumps [`SCHEMA`]. The README documents each
//! field.
//!
//! The WebAssembly package only writes reports: reading them back (`Deserialize`) is derived
//! for native builds alone, where tests and Rust users need it; in the package it would cost
//! ~80 KB of code that nothing calls.

use crate::lang::Lang;
#[cfg(not(target_arch = "wasm32"))]
use serde::Deserialize;
use serde::Serialize;

/// The version of the report's shape.
pub const SCHEMA: u32 = 1;

/// What the input shows, in one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A CUDA device-side assert (a kernel line, or a host error that reports one).
    DeviceAssert,
    /// A CUDA error that is not a device-side assert (out of memory, illegal access, ...).
    OtherCudaError,
    /// Neither, in everything that could be read.
    Clean,
    /// Neither in what could be read, but some cells' outputs could not be read (a frame the
    /// page adapter cannot reach, a cell virtualised out of the page): not a clean bill.
    Unreadable,
    /// The cause of a device-side assert seen for what it is: the probe cell's error, or the
    /// CPU's own error for the same bug ([`Report::confirmation`]).
    Confirmed,
}

impl Verdict {
    /// The verdict's id as it appears in the JSON report.
    pub fn id(self) -> &'static str {
        match self {
            Verdict::DeviceAssert => "device_assert",
            Verdict::OtherCudaError => "other_cuda_error",
            Verdict::Clean => "clean",
            Verdict::Unreadable => "unreadable",
            Verdict::Confirmed => "confirmed",
        }
    }
}

/// Why the assert most likely fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// A class target is negative or not smaller than the number of classes.
    InvalidLabel,
    /// An index is past the end (or before the start) of a dimension.
    IndexOutOfBounds,
    /// NaN, Inf or a value outside the domain of an op (probabilities, BCE inputs, ...).
    InvalidValue,
    /// Shapes or sizes that a kernel cannot take.
    ShapeMismatch,
    /// A dtype that a kernel cannot take.
    DtypeMismatch,
    /// The error shown is an echo of an earlier assert whose output is not in the input.
    StaleContext,
    /// Not enough evidence.
    Unknown,
}

impl Category {
    /// Every category, in the order of the report contract's cause categories (docs/report.md).
    pub const ALL: [Category; 7] = [
        Category::InvalidLabel,
        Category::IndexOutOfBounds,
        Category::InvalidValue,
        Category::ShapeMismatch,
        Category::DtypeMismatch,
        Category::StaleContext,
        Category::Unknown,
    ];

    /// The category's id as it appears in the JSON report.
    pub fn id(self) -> &'static str {
        match self {
            Category::InvalidLabel => "invalid_label",
            Category::IndexOutOfBounds => "index_out_of_bounds",
            Category::InvalidValue => "invalid_value",
            Category::ShapeMismatch => "shape_mismatch",
            Category::DtypeMismatch => "dtype_mismatch",
            Category::StaleContext => "stale_context",
            Category::Unknown => "unknown",
        }
    }
}

/// The analysis of one input.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Report {
    /// The version of this shape ([`SCHEMA`]).
    pub schema: u32,
    /// The program that wrote the report.
    pub tool: Tool,
    /// The language of every human-readable text in the report.
    pub lang: Lang,
    /// What was read.
    pub input: InputSummary,
    /// What the input shows.
    pub verdict: Verdict,
    /// One sentence that sums up the report.
    pub headline: String,
    /// The first device-side assert: the first kernel assertion line anywhere in the input,
    /// else the first host-side line that reports a device-side assert.
    pub first_assert: Option<FirstAssert>,
    /// With the verdict `confirmed`: the error that shows the bad value for what it is.
    #[serde(default)]
    pub confirmation: Option<Confirmation>,
    /// Every distinct kernel assertion site, first seen first.
    pub kernel_sites: Vec<KernelSiteCount>,
    /// Where Python first raised the device-side assert, and the frames above it.
    pub raised_at: Option<RaisedAt>,
    /// The most likely cause.
    pub cause: Option<Cause>,
    /// Later CUDA errors that are consequences of the first assert (the context is poisoned
    /// until the process restarts). At most 1000 are listed; `echo_count` counts all.
    pub echoes: Vec<Echo>,
    /// How many echoes the input holds.
    pub echo_count: u64,
    /// Whether the traceback points at the real site.
    pub stack: Option<Stack>,
    /// CUDA errors that are not device-side asserts and not echoes of one.
    pub other_errors: Vec<OtherError>,
    /// The restart-and-isolate steps, tailored to the cause.
    pub checklist: Vec<Step>,
    /// The probe cell to paste first after the restart, when the verdict is a device-side assert.
    pub probe: Option<Probe>,
    /// Things worth knowing about this input.
    pub notes: Vec<Note>,
    /// The rank torchrun names as the first observed failure, when the input holds its summary
    /// (absent otherwise: the reports of other inputs stay as they were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_cause: Option<RootCause>,
}

/// torchrun's `Root Cause (first observed failure)`: which rank failed first by its error
/// file's time, in whole seconds, and the other ranks it lists as failed in the same second.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct RootCause {
    /// The global rank.
    pub rank: Option<u32>,
    pub local_rank: Option<u32>,
    pub host: Option<String>,
    /// As printed (`2026-11-20_10:02:41`): whole seconds.
    pub time: String,
    pub exitcode: Option<i64>,
    pub pid: Option<u32>,
    /// The rank's error file (`TORCHELASTIC_ERROR_FILE`), when it wrote one.
    pub error_file: Option<String>,
    /// Other ranks that failed in the same second: any of them may have failed first.
    pub ties: Vec<u32>,
    /// Where the block's heading is.
    #[serde(flatten)]
    pub at: Location,
    /// Where it is, in the report's language.
    #[serde(rename = "where", default)]
    pub place: String,
}

/// The program that wrote a report.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Tool {
    /// Always `first-assert`.
    pub name: String,
    /// The crate version.
    pub version: String,
}

/// The form the input came in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum InputFormat {
    /// A log: any text.
    #[default]
    Text,
    /// An nbformat notebook.
    Notebook,
    /// The cell-list shape (what the page adapters send).
    Cells,
    /// Colab's runtime log given as the input itself (Runtime > View runtime logs).
    RuntimeLog,
}

impl InputFormat {
    /// The format's id as it appears in the JSON report.
    pub fn id(self) -> &'static str {
        match self {
            InputFormat::Text => "text",
            InputFormat::Notebook => "notebook",
            InputFormat::Cells => "cells",
            InputFormat::RuntimeLog => "runtime_log",
        }
    }

    /// The output came from a notebook's kernel, whose cells the user reruns: a notebook, a
    /// cell list, or the runtime log of Colab's kernel.
    pub fn from_notebook(self) -> bool {
        self != InputFormat::Text
    }
}

/// How the input was read.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct InputSummary {
    /// `text`, `notebook` (nbformat), `cells` (the cell-list shape) or `runtime_log`.
    pub format: InputFormat,
    /// Bytes read.
    pub bytes: u64,
    /// Lines read (for notebooks: output lines over all cells).
    pub lines: u64,
    /// Cells in the notebook, markdown included; `null` for text.
    pub cells: Option<u32>,
    /// True when some bytes were not valid UTF-8 and were replaced.
    pub lossy_utf8: bool,
    /// NUL bytes found (and ignored).
    pub nul_bytes: u64,
    /// Lines longer than the engine's piece size, analysed in pieces.
    pub long_lines: u64,
    /// The runtime log read beside the input, `null` when none was given.
    pub runtime_log: Option<RuntimeLogSummary>,
    /// The cells (notebook index) with an output the page could not read.
    pub unreadable_cells: Vec<u32>,
    /// The cells (notebook index) whose outputs are from before the restart of a run with the
    /// probe: not read.
    pub superseded_cells: Vec<u32>,
    /// What the kernel itself saw, when the notebook extension (`%load_ext first_assert`)
    /// wrote the input; `null` otherwise.
    #[serde(default)]
    pub kernel: Option<KernelFacts>,
    /// Where the output came from: `notebook`, `script` or `launch` (a multi-process launch or
    /// a server); the steps are said for it.
    #[serde(default)]
    pub source: Source,
}

/// Where the output came from, as far as the steps go (the checklist is said for it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A notebook (Colab, Jupyter, Kaggle; its cells, or a notebook's frames in a pasted
    /// traceback): cells to rerun after restarting the runtime.
    Notebook,
    /// A script in a terminal: its process ended with the error.
    #[default]
    Script,
    /// A multi-process launch or a server (torchrun, accelerate, DeepSpeed, vLLM, SGLang): the
    /// environment of the launch, the worker processes.
    Launch,
}

impl Source {
    /// The id as it appears in the JSON report.
    pub fn id(self) -> &'static str {
        match self {
            Source::Notebook => "notebook",
            Source::Script => "script",
            Source::Launch => "launch",
        }
    }
}

/// What only the kernel knows, told by the notebook extension: facts, not read from the output.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct KernelFacts {
    /// `torch.__version__`, when torch was imported.
    pub torch: Option<String>,
    /// The CUDA device's name (`Tesla T4`), when CUDA started.
    pub device: Option<String>,
    /// Whether `CUDA_LAUNCH_BLOCKING=1` was in force when CUDA started; `null` when CUDA has not
    /// started, or started before the extension was loaded.
    pub launch_blocking: Option<bool>,
    /// True when `torch.compile` compiled a graph in this session.
    pub compiled: bool,
    /// What the extension read to answer: `colab` (the notebook as Colab's front end holds it),
    /// `history` (IPython's history), `last_error` (only the last error), each with the cells
    /// since the load, or `since_load` (every cell since it was loaded); `null` when not told.
    #[serde(default)]
    pub read: Option<String>,
    /// How many of the cells read ran before the extension was loaded.
    #[serde(default)]
    pub late_cells: u32,
}

/// The runtime log read beside the input (Colab's Runtime > View runtime logs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct RuntimeLogSummary {
    /// `csv` (the viewer's download), `rows` (rows copied from the viewer) or `lines` (a text
    /// in neither form, such as a terminal's stderr, read line by line).
    pub form: String,
    /// Rows read: those of the kernel session that matters (from the last kernel start
    /// before the last assert).
    pub rows: u64,
    /// Rows in the log.
    pub total: u64,
    /// The log listed the newest row first (it was read oldest first).
    pub newest_first: bool,
}

/// Where something is in the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Location {
    /// 1-based line number in the input text; for a notebook, in that cell's output text
    /// (the cell's outputs joined in order, one after the other).
    pub line: u64,
    /// 0-based index into the notebook's `cells` array (markdown cells count); `null` for text.
    pub cell: Option<u32>,
    /// 0-based index of the output within the cell; `null` for text.
    pub output: Option<u32>,
    /// The cell's execution count, when known.
    pub execution_count: Option<i64>,
    /// True when the place is in the runtime log given beside the input (Colab's Runtime >
    /// View runtime logs): `line` is then the log's line. Absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub runtime_log: bool,
}

/// The kind of a first assert.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum AssertKind {
    /// A kernel's `Assertion ... failed` line, printed by the GPU.
    KernelAssert,
    /// A record of the `TORCH_USE_CUDA_DSA` report.
    DsaReport,
    /// A host-side error that reports a device-side assert (no kernel line in the input).
    HostError,
    /// A person's own report of the error in prose (an issue, a forum post), the phrase in
    /// their sentence: no output of it, so no echoes and no traceback to judge.
    Described,
}

impl AssertKind {
    /// The kind's id as it appears in the JSON report.
    pub fn id(self) -> &'static str {
        match self {
            AssertKind::KernelAssert => "kernel_assert",
            AssertKind::DsaReport => "dsa_report",
            AssertKind::HostError => "host_error",
            AssertKind::Described => "described",
        }
    }
}

/// The first device-side assert.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct FirstAssert {
    /// The line as it appears in the input, escape sequences removed.
    pub text: String,
    /// True when `text` is a window of a longer line.
    pub text_truncated: bool,
    /// Where it is.
    #[serde(flatten)]
    pub at: Location,
    /// Where it is, in the report's language (`line 12`, `cell [3], line 12`): what the page
    /// and the Markdown show beside it.
    #[serde(rename = "where", default)]
    pub place: String,
    /// The last line of the record when it was wrapped over several lines.
    pub end_line: Option<u64>,
    /// Kernel line, DSA record or host error.
    pub kind: AssertKind,
    /// How it was printed: `aten`, `thc`, `windows`, `triton`, `sycl`, `rocm`, `dsa`,
    /// `translated` for kernel lines; `cuda_error`, `accelerator_error`, `cuda_runtime_error`,
    /// `thcudacheck`, `sync_failed`, `cpp_what`, `hip_error`, `cuda_warning` for host lines.
    pub dialect: String,
    /// The kernel site, for kernel lines and DSA records.
    pub site: Option<KernelSite>,
    /// How many times the site was printed (one line per failing GPU thread).
    pub repeats: Option<Repeats>,
    /// The value the device refused and what it had to be, when the output prints them (a
    /// build's verbose kernel line, Apple GPUs' error).
    pub offending: Option<Offending>,
    /// Lines around it.
    pub context: Vec<ContextLine>,
}

/// A value a device check refused, as printed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Offending {
    /// The value (`50260`).
    pub value: String,
    /// What it had to be (`0 <= index < 50257`).
    pub allowed: String,
}

/// Where in PyTorch's sources an assertion fired, as the kernel printed it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct KernelSite {
    /// The source file as printed (build prefix kept).
    pub file: String,
    /// The line in that source file.
    pub line: Option<u32>,
    /// The device function as printed (`null` on Windows builds, which do not print it).
    pub function: Option<String>,
    /// The device function's short name: template arguments, parameter list and return type
    /// dropped (`cunn_ClassNLLCriterion_updateOutput_kernel`).
    pub name: Option<String>,
    /// The asserted condition (`null` when the printed line lost it).
    pub condition: Option<String>,
    /// The first failing block, `[x, y, z]`.
    pub block: Option<[u32; 3]>,
    /// The first failing thread, `[x, y, z]`.
    pub thread: Option<[u32; 3]>,
}

impl KernelSite {
    /// The file name without its directories (`Loss.cu` for `/pytorch/aten/…/Loss.cu`).
    pub fn file_name(&self) -> &str {
        self.file.rsplit(['/', '\\']).next().unwrap_or(&self.file)
    }
}

/// How often a kernel site was printed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Repeats {
    /// Printed records of this site (one per failing thread).
    pub count: u64,
    /// Distinct blocks seen (counted up to 100,000).
    pub blocks: u64,
    /// Distinct threads seen (counted up to 100,000).
    pub threads: u64,
    /// Smallest and largest block index seen, per axis.
    pub block_range: Option<[[u32; 3]; 2]>,
    /// Smallest and largest thread index seen, per axis.
    pub thread_range: Option<[[u32; 3]; 2]>,
    /// The line of the last record.
    pub last_line: u64,
}

/// A line shown around a finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct ContextLine {
    /// 1-based line number (same numbering as [`Location::line`]).
    pub line: u64,
    /// The text, escape sequences removed, cut to 300 characters.
    pub text: String,
}

/// A distinct kernel site and how often it fired.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct KernelSiteCount {
    /// The site (block and thread of its first record).
    pub site: KernelSite,
    /// Records printed for it.
    pub count: u64,
    /// Where it was first printed.
    pub first: Location,
    /// The rule that explains it, if any.
    pub rule: Option<String>,
    /// That rule's category.
    pub category: Option<Category>,
}

/// A frame of a Python traceback.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Frame {
    /// The file or cell (`<ipython-input-4-...>`, `Cell In[11]`, `/tmp/ipykernel_.../x.py`).
    pub file: String,
    /// The line in that file, when printed.
    pub line: Option<u32>,
    /// The function (`<module>`, `<cell line: 3>`, `forward`, ...).
    pub function: String,
    /// The source line the frame points at, when printed.
    pub code: Option<String>,
    /// True for the user's own code (a notebook cell, a script), false for an installed library.
    pub user: bool,
    /// The installed package the frame belongs to (`torch`, `transformers`, ...).
    pub library: Option<String>,
    /// For the user's frame (the blamed line): where its line is when it is a line of a
    /// notebook cell's code (`cell [4], code line 9`), in the report's language; empty otherwise
    /// (the file and line say it) and in every other frame.
    #[serde(rename = "where", default)]
    pub place: String,
}

/// Where Python raised the device-side assert.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct RaisedAt {
    /// The error line.
    pub text: String,
    /// Where it is.
    #[serde(flatten)]
    pub at: Location,
    /// Where it is, in the report's language (`line 12`, `cell [3], line 12`): what the page
    /// and the Markdown show beside it.
    #[serde(rename = "where", default)]
    pub place: String,
    /// The exception class (`RuntimeError`, `torch.AcceleratorError`, ...).
    pub exception: Option<String>,
    /// The deepest frame of the user's own code: the line the user sees blamed.
    pub user_frame: Option<Frame>,
    /// The deepest frame overall: the op that reported the error.
    pub op_frame: Option<Frame>,
    /// Frames of the traceback, outermost first (at most 64).
    pub frames: Vec<Frame>,
}

/// One piece of evidence for a cause.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Evidence {
    /// Where the evidence came from: `site` (a known kernel site), `kernel` (a kernel line),
    /// `frame` (a traceback frame), `code` (a source line in a traceback or cell), `message`
    /// (a log line), `raised` (the op that raised the error), `check` (what the engine
    /// worked out: printed labels against the class count).
    pub scope: String,
    /// The line (or site) that matched.
    pub text: String,
    /// The part of `text` the rule's pattern matched, for highlighting.
    pub matched: Option<String>,
    /// Where it is.
    #[serde(flatten)]
    pub at: Location,
    /// Where it is, in the report's language (`line 12`, `cell [3], line 12`): what the page
    /// and the Markdown show beside it.
    #[serde(rename = "where", default)]
    pub place: String,
}

/// The most likely cause.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Cause {
    /// The category id.
    pub category: Category,
    /// The id of the rule that concluded it (a file in `rules/`).
    pub rule: String,
    /// 0..1: how sure the engine is: the share of this category in what the evidence and the
    /// prior together say (right about that often over labelled outputs).
    pub confidence: f64,
    /// What the cause stands on: `stated` (a kernel record names the op), `evidence` (lines
    /// that point at it), `prior` (only what usually causes the error in code like this),
    /// `none` (nothing: the category is `unknown` and the candidates are the usual causes).
    #[serde(default)]
    pub basis: Basis,
    /// A short name for the cause.
    pub title: String,
    /// One sentence: what went wrong.
    pub summary: String,
    /// Why it happens and the usual situations.
    pub why: String,
    /// How to fix it.
    pub fix: String,
    /// What to print to confirm it.
    pub check: String,
    /// Code to print the suspect values.
    pub snippet: Option<String>,
    /// The Python ops that reach the assert.
    pub ops: Vec<String>,
    /// What led here.
    pub evidence: Vec<Evidence>,
    /// Causes of other categories the evidence or the prior leaves open, the most likely first
    /// (at most three, one per category, each at least 10%).
    pub candidates: Vec<Candidate>,
}

/// The error that confirms a cause: the probe cell's `FirstAssertError`, or the CPU's own error
/// for the bug that on a GPU fires a device-side assert.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Confirmation {
    /// `probe` or `cpu`.
    pub source: String,
    /// The op (`F.cross_entropy`; for the CPU, the function of the traceback's innermost frame).
    pub op: String,
    /// The first bad value, as printed (`10`), when printed.
    pub value: Option<String>,
    /// What it had to be (`0 <= target < 10`), when known.
    pub allowed: Option<String>,
    /// The user's line that ran the op (`train.py:41  loss = F.cross_entropy(out, y)`), when
    /// printed.
    pub line: Option<String>,
    /// The probe's look at the values (`min 1, max 10; 1 of 4 bad; first bad value 10 at
    /// position [2]`), when printed.
    #[serde(default)]
    pub values: Option<String>,
    /// The probe's usual cause for this bound (`labels numbered from 1 instead of 0, …`), in the
    /// language it printed, when printed.
    #[serde(default)]
    pub clue: Option<String>,
    /// The user's line as a place of the notebook (`cell [5], line 4`) when it ran in a kernel
    /// cell (its file a kernel's temporary one), in the report's language; else empty.
    #[serde(rename = "where", default)]
    pub place: String,
    /// The error line.
    pub text: String,
    /// Where the error line is (also the cause's evidence, scope `confirmation`).
    pub at: Location,
}

/// What a cause stands on (see [`Cause::basis`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// A kernel record (or an old build's host message naming the kernel's file) names the op.
    Stated,
    /// Lines of the output point at it: frames, source lines, log lines, checks.
    Evidence,
    /// Only what usually causes the error in code like the code shown.
    Prior,
    /// Nothing can be read: no cause, the usual ones as candidates.
    #[default]
    None,
    /// The probe's error or the CPU's own error shows the bad value ([`Confirmation`]).
    Confirmed,
}

impl Basis {
    /// The basis's id as it appears in the JSON report.
    pub fn id(self) -> &'static str {
        match self {
            Basis::Stated => "stated",
            Basis::Evidence => "evidence",
            Basis::Prior => "prior",
            Basis::None => "none",
            Basis::Confirmed => "confirmed",
        }
    }
}

/// Another cause the evidence points at.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Candidate {
    /// The category id; never the cause's own.
    pub category: Category,
    /// The id of the rule that points here.
    pub rule: String,
    /// 0..1, as the cause's.
    pub confidence: f64,
    /// The rule's short name.
    pub title: String,
    /// What points here.
    pub evidence: Vec<Evidence>,
}

/// A later CUDA error that is a consequence of the first assert.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Echo {
    /// The error line.
    pub text: String,
    /// Where it is.
    #[serde(flatten)]
    pub at: Location,
    /// Where it is, in the report's language (`line 12`, `cell [3], line 12`): what the page
    /// and the Markdown show beside it.
    #[serde(rename = "where", default)]
    pub place: String,
    /// `device_assert` or the kind of the other CUDA error (`cublas`, `cudnn`, ...).
    pub kind: String,
    /// The exception class, when printed.
    pub exception: Option<String>,
}

/// What the engine knows about `CUDA_LAUNCH_BLOCKING`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum LaunchBlocking {
    /// No sign that it was set.
    NotSet,
    /// Set to 1 before PyTorch read it.
    Set,
    /// Set in a notebook cell that ran after `import torch`: possibly too late.
    SetAfterImport,
    /// Set in a notebook cell that ran after CUDA was already used: too late.
    SetAfterCuda,
    /// Set, but the error still carries the "asynchronously reported" note, so PyTorch did
    /// not see it.
    Ignored,
}

impl LaunchBlocking {
    /// The state's id as it appears in the JSON report.
    pub fn id(self) -> &'static str {
        match self {
            LaunchBlocking::NotSet => "not_set",
            LaunchBlocking::Set => "set",
            LaunchBlocking::SetAfterImport => "set_after_import",
            LaunchBlocking::SetAfterCuda => "set_after_cuda",
            LaunchBlocking::Ignored => "ignored",
        }
    }
}

/// Whether the traceback can be trusted.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Stack {
    /// True when the traceback very probably points at the op that asserted.
    pub trustworthy: bool,
    /// True when PyTorch printed "CUDA kernel errors might be asynchronously reported".
    pub async_note: bool,
    /// What is known about `CUDA_LAUNCH_BLOCKING`.
    pub launch_blocking: LaunchBlocking,
    /// Where it was set, when it was.
    pub launch_blocking_at: Option<Location>,
    /// True when the kernel saw CUDA start (`input.kernel`): `launch_blocking` is what it saw,
    /// a fact, not read from the output.
    #[serde(default)]
    pub launch_blocking_known: bool,
    /// The blamed code when it cannot assert by itself (`loss.item()`, `.cpu()`, ...).
    pub innocent_op: Option<String>,
    /// The explanation, in the report's language.
    pub explanation: String,
}

/// A CUDA error that is not a device-side assert.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct OtherError {
    /// `out_of_memory`, `illegal_address`, `no_kernel_image`, `misaligned_address`,
    /// `launch_failure`, `illegal_instruction`, `invalid_device_ordinal`, `cublas`, `cudnn`,
    /// `nccl`, `runtime_error`, ...
    pub kind: String,
    /// The error line.
    pub text: String,
    /// Where it is.
    #[serde(flatten)]
    pub at: Location,
    /// Where it is, in the report's language (`line 12`, `cell [3], line 12`): what the page
    /// and the Markdown show beside it.
    #[serde(rename = "where", default)]
    pub place: String,
    /// The exception class, when printed.
    pub exception: Option<String>,
    /// What this kind of error usually means, in the report's language.
    pub explanation: String,
}

/// One step of the checklist.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Step {
    /// A stable id (`restart`, `launch_blocking`, `rerun`, ...).
    pub id: String,
    /// What to do.
    pub title: String,
    /// Why and how.
    pub body: String,
    /// Code to copy, when there is some.
    pub code: Option<String>,
    /// True when the input shows the step is already done.
    pub done: bool,
}

/// The probe cell (`src/probe.rs`): Python that checks the inputs of every op that can fire a
/// device-side assert before the op runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Probe {
    /// The cell, in the report's language.
    pub code: String,
    /// The ops the probe names as the suspects (the cause's), none when the cause is unknown.
    pub ops: Vec<String>,
}

/// Something worth knowing about this input.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Note {
    /// A stable id.
    pub id: String,
    /// The note, in the report's language.
    pub text: String,
}
