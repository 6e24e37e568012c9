//! What the scan found: the events of the input, in the order they ran, with bounded memory.
//!
//! Facts are raw observations (this line is a kernel assertion, that one a CUDA error, these
//! lines form a traceback). Conclusions (which is first, which are echoes, what caused it) are
//! drawn from them by `diagnose`.

use crate::report::{KernelSite, Location};

// The probe's exception name (`PROBE_ERROR`) and its banner (`BANNER`), generated from
// probe/probe.py and probe/texts.toml by build.rs: the scanner keeps the error's lines, the
// notebook's rerun and the confirmation read them.
include!(concat!(env!("OUT_DIR"), "/probe_error.rs"));

/// A set of (x, y, z) block or thread ids, for counting the distinct ones of a site (up to
/// [`MAX_DISTINCT`], hashed once per kernel record of a flood). Open addressing with linear
/// probing over a power-of-two table, kept at most half full: a std `HashSet` would cost the
/// WebAssembly package ~2 KB gzipped for this one use. Ids come from the input; none can make
/// it worse than a slow flood, which the cap bounds. The ids most launches use, `[x, 0, 0]`
/// with x below [`SMALL`], are bits of a bitmap instead: a flood's two lookups a line cost a
/// tenth of the hashing.
#[derive(Clone, Debug, Default)]
pub struct IdSet {
    slots: Vec<[u32; 3]>,
    /// Bit x of `[x, 0, 0]` (made at the first such id).
    small: Vec<u64>,
    len: usize,
    /// Whether [`EMPTY`], the marker of a free slot, is in the set itself.
    has_marker: bool,
}

/// A free slot.
const EMPTY: [u32; 3] = [u32::MAX; 3];
/// One-dimensional ids below this go in the bitmap (8 KB).
const SMALL: u32 = 1 << 16;

impl IdSet {
    /// Adds `id`; true when it was not there.
    pub fn insert(&mut self, id: [u32; 3]) -> bool {
        if let [x @ 0..SMALL, 0, 0] = id {
            if self.small.is_empty() {
                self.small = vec![0; SMALL as usize / 64];
            }
            let (word, bit) = ((x / 64) as usize, 1u64 << (x % 64));
            let new = self.small[word] & bit == 0;
            self.small[word] |= bit;
            self.len += usize::from(new);
            return new;
        }
        if id == EMPTY {
            let new = !self.has_marker;
            self.has_marker = true;
            self.len += usize::from(new);
            return new;
        }
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = slot_of(id) & mask;
        loop {
            if self.slots[i] == EMPTY {
                self.slots[i] = id;
                self.len += 1;
                return true;
            }
            if self.slots[i] == id {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// How many distinct ids it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
        let mask = self.slots.len() - 1;
        for id in old.into_iter().filter(|&id| id != EMPTY) {
            let mut i = slot_of(id) & mask;
            while self.slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = id;
        }
    }
}

/// Where an id's probe starts: FxHash's multiply-rotate over its three words.
fn slot_of(id: [u32; 3]) -> usize {
    let mut h = 0u64;
    for w in id {
        h = (h.rotate_left(5) ^ u64::from(w)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    (h >> 32) as usize
}

/// Stored host errors beyond this are only counted.
pub const MAX_HOST: usize = 2000;
/// Distinct kernel sites kept.
pub const MAX_SITES: usize = 256;
/// Tracebacks kept.
pub const MAX_TRACEBACKS: usize = 64;
/// Frames kept per traceback (the outermost few and the innermost rest).
pub const MAX_FRAMES: usize = 96;
/// Rule message matches kept.
pub const MAX_MESSAGES: usize = 256;
/// Distinct blocks or threads counted per site.
pub const MAX_DISTINCT: usize = 100_000;
/// Lines of context kept on each side of a first finding.
pub const CONTEXT: usize = 2;

/// Lines kept after a `FirstAssertError` line: the probe prints at most six.
pub const EXCEPTION_LINES: usize = 6;
/// A quoted line is cut to a window of this many bytes around the finding.
pub const MAX_TEXT: usize = 2000;

/// Where an event is: its place in run order and its place in the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loc {
    /// Run order: lines in the order the engine read them (cells in execution order).
    pub order: u64,
    /// The public location.
    pub at: Location,
    /// The time at the start of the line, when it has one (`scan::time`).
    pub time: Option<u64>,
}

/// A text quoted from the input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Quote {
    /// The text (a window when the line is long).
    pub text: String,
    /// True when `text` is a window of a longer line.
    pub truncated: bool,
}

/// One kernel assertion record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelHit {
    pub loc: Loc,
    /// Set when the record was wrapped over several lines.
    pub end_line: Option<u64>,
    pub quote: Quote,
    /// `aten`, `thc`, `windows`, `triton`, `sycl`, `rocm`, `dsa`, `translated`.
    pub dialect: &'static str,
    pub site: KernelSite,
}

/// A kernel site and how often it was printed.
#[derive(Clone, Debug)]
pub struct SiteAgg {
    pub first: KernelHit,
    pub count: u64,
    pub blocks: IdSet,
    pub threads: IdSet,
    pub block_range: Option<[[u32; 3]; 2]>,
    pub thread_range: Option<[[u32; 3]; 2]>,
    pub last_line: u64,
    /// The record earliest in time, when the lines carry times and it is not `first`.
    pub earliest: Option<KernelHit>,
    /// Records in a build's verbose form (`[CUDA_KERNEL_ASSERT] …: Assertion failed: …`), each
    /// printed beside a standard record of the same thread.
    pub verbose: u64,
    /// The value and bound the first verbose record printed.
    pub offending: Option<crate::report::Offending>,
}

/// The identity of a site: file name, line, function and condition.
pub type SiteKey = (String, Option<u32>, Option<String>, Option<String>);

impl SiteAgg {
    pub fn new(hit: KernelHit) -> SiteAgg {
        let mut s = SiteAgg {
            last_line: hit.loc.at.line,
            first: hit,
            count: 0,
            blocks: IdSet::default(),
            threads: IdSet::default(),
            block_range: None,
            thread_range: None,
            earliest: None,
            verbose: 0,
            offending: None,
        };
        let (b, t, line) = (s.first.site.block, s.first.site.thread, s.last_line);
        s.add(b, t, line);
        s
    }

    /// The records printed, a verbose record and its standard twin counted once.
    pub fn records(&self) -> u64 {
        self.count - self.verbose.min(self.count - self.verbose)
    }

    pub fn add(&mut self, block: Option<[u32; 3]>, thread: Option<[u32; 3]>, line: u64) {
        self.count += 1;
        self.last_line = line;
        if let Some(b) = block {
            if self.blocks.len() < MAX_DISTINCT {
                self.blocks.insert(b);
            }
            widen(&mut self.block_range, b);
        }
        if let Some(t) = thread {
            if self.threads.len() < MAX_DISTINCT {
                self.threads.insert(t);
            }
            widen(&mut self.thread_range, t);
        }
    }
}

fn widen(range: &mut Option<[[u32; 3]; 2]>, v: [u32; 3]) {
    // (Spelled out: twice a line in a flood, and the size-built package makes loops and
    // `min`/`max` calls.)
    match range {
        None => *range = Some([v, v]),
        Some([lo, hi]) => {
            let [x, y, z] = v;
            if x < lo[0] {
                lo[0] = x;
            }
            if y < lo[1] {
                lo[1] = y;
            }
            if z < lo[2] {
                lo[2] = z;
            }
            if x > hi[0] {
                hi[0] = x;
            }
            if y > hi[1] {
                hi[1] = y;
            }
            if z > hi[2] {
                hi[2] = z;
            }
        }
    }
}

/// What a host-side CUDA error line reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostKind {
    /// A device-side assert (`cudaErrorAssert`, error 59 or 710).
    DeviceAssert,
    /// Another CUDA error; the string is its kind id.
    Other(&'static str),
}

/// A host-side line that reports a CUDA error.
#[derive(Clone, Debug)]
pub struct HostHit {
    pub loc: Loc,
    pub quote: Quote,
    pub kind: HostKind,
    /// How it was printed: `cuda_error`, `accelerator_error`, `cuda_runtime_error`, ...
    pub dialect: &'static str,
    /// The exception class, when the line names one.
    pub exception: Option<String>,
    /// The traceback that ends in this line.
    pub traceback: Option<usize>,
    /// The kernel source file the message names, when an old build names one
    /// (`… at …/THCUNN/generic/ClassNLLCriterion.cu:115`, `THCudaCheck FAIL file=…`).
    pub site: Option<KernelSite>,
    /// The value the device refused and its bound, when the message says (Apple GPUs).
    pub offending: Option<crate::report::Offending>,
    /// The form of a mention (`heading`, `comment`, `diff`, `key`, `list`, `definition`,
    /// `title`) when the line names the error without looking like output of it
    /// (`scan::mention`); the diagnosis decides whether the text around agrees.
    pub mention: Option<&'static str>,
    /// A person's own report of the error in prose, the phrase in their sentence and no output
    /// of it around (`scan::shape`).
    pub described: bool,
}

/// A frame of a traceback as read.
#[derive(Clone, Debug, Default)]
pub struct TbFrame {
    pub path: String,
    pub line: Option<u32>,
    pub func: String,
    /// The line the frame points at, and where that line is.
    pub code: Option<(String, Loc)>,
    /// Other source lines shown around it (IPython shows a few).
    pub context: Vec<(String, Loc)>,
    /// Where the frame line is.
    pub loc: Loc,
}

/// A traceback as read: frames outermost first, then the exception.
#[derive(Clone, Debug, Default)]
pub struct Traceback {
    pub start: Loc,
    pub frames: Vec<TbFrame>,
    /// Frames Colab or IPython folded away.
    pub folded: u32,
    /// Frames dropped to keep memory bounded.
    pub dropped: u32,
    /// The exception line: class, message and where.
    pub exception: Option<(String, String, Loc)>,
    /// True when the traceback was pieced together from the lines above an error (a paste
    /// that starts mid-traceback).
    pub partial: bool,
}

/// A line that matched a rule's message pattern.
#[derive(Clone, Debug)]
pub struct MessageHit {
    /// Index of the pattern in the rule set.
    pub pattern: usize,
    pub loc: Loc,
    pub quote: Quote,
}

/// The most lines of sampling settings kept ([`Facts::sampling`]).
pub const MAX_SAMPLING: usize = 8;

/// The most of torchrun's summary blocks kept.
pub const MAX_ELASTIC: usize = 8;

/// A block of torchrun's summary: where its heading is, whether it is the root cause's (else the
/// other failures'), and the lines after the heading.
#[derive(Clone, Debug, Default)]
pub struct Elastic {
    pub at: Loc,
    pub root: bool,
    pub lines: Vec<String>,
}

/// A line quoted with where it is (notes, mentions).
#[derive(Clone, Debug)]
pub struct Mention {
    pub loc: Loc,
    pub text: String,
}

/// A notebook cell's source, kept to tell whether `CUDA_LAUNCH_BLOCKING` was set in time.
#[derive(Clone, Debug, Default)]
pub struct CellSource {
    pub index: u32,
    pub execution_count: Option<i64>,
    /// Run order of the cell among the cells that ran.
    pub order: u64,
    pub source: String,
}

/// The runtime log read beside the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogInfo {
    /// `csv`, `rows` (see `runtime_log`) or `lines` (a text in no runtime-log form, read as
    /// it is).
    pub form: &'static str,
    /// Rows read (those of the session that matters).
    pub rows: u64,
    /// Rows in the log.
    pub total: u64,
    /// The log listed the newest row first.
    pub newest_first: bool,
}

/// Counts about the input itself.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub bytes: u64,
    pub lines: u64,
    pub lossy_utf8: bool,
    pub nul_bytes: u64,
    pub long_lines: u64,
}

/// Everything the scan found.
#[derive(Debug, Default)]
pub struct Facts {
    pub sites: Vec<SiteAgg>,
    /// Each site's key, in the order of `sites` (a list: there are at most [`MAX_SITES`], and
    /// most inputs have one).
    pub site_keys: Vec<SiteKey>,
    /// Kernel assertion records in all.
    pub kernel_records: u64,
    /// Every kernel record of the text reads as a mention (a code block of a documentation
    /// page, a test's `CHECK` line): `scan::shape` says so of short texts.
    pub kernel_quoted: bool,
    /// Every kernel record of the text is quoted inside a person's own report of their run, in
    /// a sentence (`scan::shape` says so of short texts): the text describes the assert.
    pub kernel_described: bool,
    pub host: Vec<HostHit>,
    pub host_total: u64,
    pub tracebacks: Vec<Traceback>,
    pub messages: Vec<MessageHit>,
    /// "might be asynchronously reported" notes.
    pub async_notes: Vec<Loc>,
    /// "Compile with `TORCH_USE_CUDA_DSA`" lines.
    pub dsa_hint: bool,
    /// A `TORCH_USE_CUDA_DSA` report was printed.
    pub dsa_report: bool,
    /// Lines that set `CUDA_LAUNCH_BLOCKING=1`.
    pub launch_blocking: Vec<Mention>,
    /// Lines that print generation's sampling settings (`do_sample=True, top_p=0.9`, vLLM's
    /// `SamplingParams(…)`), at most [`MAX_SAMPLING`]: context the priors read, as they read code.
    pub sampling: Vec<Mention>,
    /// A multi-process launch or server printed this (`[rank0]:`, `(VllmWorker …)`, torchrun's
    /// or DeepSpeed's, vLLM's or SGLang's frames).
    pub launcher: bool,
    /// torchrun's summary blocks (`Root Cause (first observed failure):`, `Failures:`), the
    /// lines after each heading, at most [`MAX_ELASTIC`] blocks (`scan::elastic` reads them).
    pub elastic: Vec<Elastic>,
    /// Lines around the first kernel record and around the first host device assert.
    pub kernel_context: Vec<(u64, String)>,
    pub host_context: Vec<(u64, String)>,
    /// The lines with text around the first person's own report of the error (`described`):
    /// the task, the names and what they changed, which the priors read as context.
    pub report_context: Vec<(u64, String)>,
    /// The last Python exception line that is not a CUDA error (for clean inputs).
    pub last_exception: Option<(String, String, Loc)>,
    /// The last `FirstAssertError` of the probe cell (kept when later cells raise other
    /// errors), and the lines after it (its values, bound and line: at most
    /// [`EXCEPTION_LINES`]).
    pub probe_error: Option<(String, String, Loc)>,
    pub exception_context: Vec<(u64, String)>,
    pub stats: Stats,
    /// Steps from one timed line to the next that went back and forward in time.
    pub time_steps: (u32, u32),
    /// The lines' times run backwards (newest first): run order is time order, and
    /// [`Facts::reverse_time`] has been applied.
    pub time_reversed: bool,
    /// The runtime log read beside the input, if one was given.
    pub runtime_log: Option<LogInfo>,
}

/// The files a Jupyter kernel runs a cell from, as a traceback names them: IPython 7's
/// `<ipython-input-3-5d1c2a7b9e01>` (and its `/tmp` form), ipykernel 6's `/tmp/ipykernel_77/2214561066.py`.
pub const KERNEL_CELL_FILES: &[&str] = &["<ipython-input-", "/tmp/ipython-input-", "/tmp/ipykernel_"];

/// Whether a traceback's path is a kernel's cell file ([`KERNEL_CELL_FILES`]); `headers` also
/// takes IPython 8's frame headers (`Cell In[3], line 4`, `Input In [3]`), which name a cell but no file.
pub fn is_cell_file(path: &str, headers: bool) -> bool {
    let path = path.trim_start();
    KERNEL_CELL_FILES.iter().any(|c| path.starts_with(c)) || (headers && ["Cell In", "Input In"].iter().any(|c| path.starts_with(c)))
}

/// What the input says beside its text, which the scan does not read: a notebook's cells'
/// source, its checks, the cells the page could not read, and where it ran. The pipeline
/// gathers it and hands it to the diagnosis with the facts.
#[derive(Clone, Debug, Default)]
pub struct InputContext {
    /// The code cells' source, in run order.
    pub cells: Vec<CellSource>,
    /// How many cells the notebook has (`None` for a log).
    pub cell_count: Option<u32>,
    /// Where the input comes from, when the caller or the notebook says (`colab`).
    pub host: Option<&'static str>,
    /// The checks that hold on a notebook's cells (`crate::notebook::checks`).
    pub checks: Vec<CheckFinding>,
    /// Cells (their notebook index) with an output the page could not read: it sits in a frame
    /// the reader cannot reach, or the cell was virtualised out of the page.
    pub unreadable: Vec<u32>,
    /// After a rerun with the probe: the probe's cell and execution count, and the cells whose
    /// outputs are from before the restart (not read).
    pub probe_cell: Option<(u32, i64)>,
    pub superseded: Vec<u32>,
    /// What the kernel itself saw, when the notebook extension wrote the input.
    pub kernel: Option<crate::report::KernelFacts>,
    /// The package index the notebook extension installs from (`https://…/simple/`), when the
    /// caller offers one: a notebook's steps then load it instead of pasting the probe cell.
    pub index: Option<String>,
}

impl Facts {
    /// True when the lines' times mostly run backwards: a log listed newest first.
    pub fn runs_backwards(&self) -> bool {
        let (back, forward) = self.time_steps;
        back >= 2 && back > 2 * forward
    }

    /// Makes run order time order in a log listed newest first: every place's order is turned
    /// around, the host errors listed earliest first, each site's first record is its earliest.
    /// The context lines around the first findings were read around the wrong ones: dropped.
    pub fn reverse_time(&mut self, lines: u64) {
        let flip = |l: &mut Loc| l.order = lines.saturating_sub(l.order);
        for s in &mut self.sites {
            if let Some(e) = s.earliest.take() {
                s.first = e;
            }
            flip(&mut s.first.loc);
        }
        self.host.iter_mut().for_each(|h| flip(&mut h.loc));
        self.host.reverse();
        for tb in &mut self.tracebacks {
            flip(&mut tb.start);
            if let Some((_, _, l)) = &mut tb.exception {
                flip(l);
            }
            for f in &mut tb.frames {
                flip(&mut f.loc);
                if let Some((_, l)) = &mut f.code {
                    flip(l);
                }
                f.context.iter_mut().for_each(|(_, l)| flip(l));
            }
        }
        self.messages.iter_mut().for_each(|m| flip(&mut m.loc));
        self.async_notes.iter_mut().for_each(flip);
        self.launch_blocking.iter_mut().for_each(|m| flip(&mut m.loc));
        for (_, _, l) in self.last_exception.iter_mut().chain(&mut self.probe_error) {
            flip(l);
        }
        self.kernel_context.clear();
        self.host_context.clear();
        self.exception_context.clear();
        self.time_reversed = true;
    }

    /// The first kernel record in run order.
    pub fn first_kernel(&self) -> Option<&KernelHit> {
        self.sites.iter().map(|s| &s.first).min_by_key(|h| h.loc.order)
    }
}

/// A check that holds (`crate::notebook::checks`), with the printed line that shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckFinding {
    pub id: &'static str,
    /// The printed line, trimmed.
    pub text: String,
    /// What the comparison found, in numbers: the largest label and the class count.
    pub labels_max: i64,
    pub class_count: i64,
    pub at: Location,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The id set counts what a std `HashSet` counts, the free-slot marker included.
    #[test]
    fn the_id_set_counts_as_a_hash_set() {
        let mut seed = 0x2545_f491_u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let mut ours = IdSet::default();
        let mut std_set = std::collections::HashSet::new();
        assert!(ours.is_empty());
        for i in 0..50_000 {
            let id = match i % 6 {
                0 => [u32::MAX; 3],
                5 => [next() % 128, next() % 2, 0],
                1 => [next() % 70_000, 0, 0],
                2 => [next() % 8, next() % 8, next() % 8],
                _ => [next(), next() % 3, u32::MAX],
            };
            assert_eq!(ours.insert(id), std_set.insert(id), "{id:?}");
            assert_eq!(ours.len(), std_set.len());
        }
        assert!(ours.len() > 10_000);
    }
}
