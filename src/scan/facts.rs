//! What the scan found: the events of the input, in the order they ran, with bounded memory.
//!
//! Facts are raw observations (this line is a kernel assertion, that one a CUDA error, these
//! lines form a traceback). Conclusions (which is first, which are echoes, what caused it) are
//! drawn from them by `diagnose`.

use crate::report::{KernelSite, Location};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A small fast hasher (the multiply-rotate of rustc's FxHash) for the scanner's own keys:
/// they come from the input, but nothing an attacker picks can do worse than a slow flood,
/// which the per-site caps already bound; SipHash cost a tenth of a record flood's time.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Whole words, then the rest as one zero-padded word: `[u32; 3]` ids (12 bytes) are
        // hashed once per kernel record, so this is on the hot path of an assert flood.
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().unwrap_or_default()));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Fx = BuildHasherDefault<FxHasher>;

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
/// A quoted line is cut to a window of this many bytes around the finding.
pub const MAX_TEXT: usize = 2000;

/// Where an event is: its place in run order and its place in the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loc {
    /// Run order: lines in the order the engine read them (cells in execution order).
    pub order: u64,
    /// The public location.
    pub at: Location,
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
    pub blocks: HashSet<[u32; 3], Fx>,
    pub threads: HashSet<[u32; 3], Fx>,
    pub block_range: Option<[[u32; 3]; 2]>,
    pub thread_range: Option<[[u32; 3]; 2]>,
    pub last_line: u64,
}

/// The identity of a site: file name, line, function and condition.
pub type SiteKey = (String, Option<u32>, Option<String>, Option<String>);

impl SiteAgg {
    pub fn new(hit: KernelHit) -> SiteAgg {
        let mut s = SiteAgg {
            last_line: hit.loc.at.line,
            first: hit,
            count: 0,
            blocks: HashSet::default(),
            threads: HashSet::default(),
            block_range: None,
            thread_range: None,
        };
        let (b, t, line) = (s.first.site.block, s.first.site.thread, s.last_line);
        s.add(b, t, line);
        s
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
    match range {
        None => *range = Some([v, v]),
        Some([lo, hi]) => {
            for i in 0..3 {
                lo[i] = lo[i].min(v[i]);
                hi[i] = hi[i].max(v[i]);
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
    pub site_index: HashMap<SiteKey, usize, Fx>,
    /// Kernel assertion records in all.
    pub kernel_records: u64,
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
    /// Lines around the first kernel record and around the first host device assert.
    pub kernel_context: Vec<(u64, String)>,
    pub host_context: Vec<(u64, String)>,
    /// The last Python exception line that is not a CUDA error (for clean inputs).
    pub last_exception: Option<(String, String, Loc)>,
    pub cells: Vec<CellSource>,
    pub cell_count: Option<u32>,
    pub stats: Stats,
}

impl Facts {
    /// The first kernel record in run order.
    pub fn first_kernel(&self) -> Option<&KernelHit> {
        self.sites.iter().map(|s| &s.first).min_by_key(|h| h.loc.order)
    }
}
