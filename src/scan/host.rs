//! Host-side CUDA errors: the lines Python, C++ and the CUDA runtime print when a CUDA call
//! fails, told apart into device-side asserts and everything else.
//!
//! A line only counts when the error stands where an error stands: at the start of the line
//! (after logger prefixes), after an exception class, in a C++ `what():`, or after a logger's
//! separator. The same words quoted in prose, in a print statement or in documentation do not.

use super::facts::HostKind;
use super::keywords::Keywords;
use super::patterns::patterns;

/// Every literal a branch of [`classify`] needs (a test keeps the list complete): a line with
/// none of them is no host error, and one search for all of them spares the branches their
/// searches on the many lines that hold none (warnings, frames, progress).
const BRANCH_NEEDLES: &[&str] = &[
    "THCudaCheck",
    "untime error (",
    "rror:",
    "failed to synchronize",
    " warning:",
    "CUDA warning",
    "HIP warning",
    "out of memory",
    "NCCL",
    "nccl",
    "Watchdog caught",
    "HSA_STATUS_ERROR",
];

/// Errors of the CUDA setup that Python raises itself, with no CUDA error code.
const PYTHON_ERRORS: &[(&str, &str)] = &[
    ("Cannot re-initialize CUDA in forked subprocess", "cuda_fork"),
    ("Torch not compiled with CUDA enabled", "no_cuda_build"),
    ("Expected all tensors to be on the same device", "device_mismatch"),
];

/// All of them, as one set (kept with the other formats, in [`patterns`]).
pub(super) fn needles() -> Keywords {
    let all: Vec<&str> = BRANCH_NEEDLES.iter().copied().chain(PYTHON_ERRORS.iter().map(|(n, _)| *n)).collect();
    Keywords::new(&all)
}

/// A host error found in a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// Byte offset of the error phrase in the stripped line.
    pub start: usize,
    pub kind: HostKind,
    pub dialect: &'static str,
    pub exception: Option<String>,
}

/// Classifies a line with logger prefixes already stripped. `had_log_prefix` relaxes the
/// lead-in rules for lines that a logger wrapped (`[ERROR] trainer - ... - CUDA error: ...`).
pub fn classify(s: &str, had_log_prefix: bool) -> Option<Parsed> {
    let p = patterns();
    p.host_needles.find(s.as_bytes())?;
    if s.contains("THCudaCheck") {
        if let Some(c) = p.thcudacheck.captures(s) {
            let code: u32 = c["code"].parse().unwrap_or(0);
            let lead = lead_in(&s[..c.get(0)?.start()], had_log_prefix)?;
            return Some(Parsed {
                start: c.get(0)?.start(),
                kind: by_code(code, &c["msg"]),
                dialect: "thcudacheck",
                exception: lead.exception,
            });
        }
    }
    if s.contains("untime error (") {
        if let Some(c) = p.runtime_code.captures(s) {
            let m = c.get(0)?;
            let lead = lead_in(&s[..m.start()], had_log_prefix)?;
            let code: u32 = c["code"].parse().unwrap_or(0);
            return Some(Parsed {
                start: m.start(),
                kind: by_code(code, &c["msg"]),
                dialect: "cuda_runtime_error",
                exception: lead.exception,
            });
        }
    }
    if s.contains("rror:") {
        if let Some(c) = p.api_error.captures(s) {
            let m = c.get(0)?;
            if let Some(lead) = lead_in(&s[..m.start()], had_log_prefix) {
                let api = &c["api"];
                let msg = &c["msg"];
                let kind = if api.eq_ignore_ascii_case("cudnn") || api.starts_with("cuDNN") || api == "CuDNN" {
                    HostKind::Other("cudnn")
                } else if api.eq_ignore_ascii_case("cublas") {
                    HostKind::Other("cublas")
                } else if api.eq_ignore_ascii_case("cusolver") {
                    HostKind::Other("cusolver")
                } else if api.eq_ignore_ascii_case("cusparse") {
                    HostKind::Other("cusparse")
                } else if api == "CUDA NVRTC" {
                    HostKind::Other("nvrtc")
                } else {
                    by_message(msg)
                };
                let dialect = if lead.what {
                    "cpp_what"
                } else if lead.exception.as_deref().is_some_and(|e| e.ends_with("AcceleratorError")) {
                    "accelerator_error"
                } else if api == "HIP" {
                    "hip_error"
                } else {
                    "cuda_error"
                };
                return Some(Parsed { start: m.start(), kind, dialect, exception: lead.exception });
            }
        }
    }
    if s.contains("failed to synchronize") {
        if let Some(c) = p.sync_failed.captures(s) {
            let m = c.get(0)?;
            let lead = lead_in(&s[..m.start()], had_log_prefix)?;
            return Some(Parsed {
                start: m.start(),
                kind: by_message(&c["msg"]),
                dialect: "sync_failed",
                exception: lead.exception,
            });
        }
    }
    if s.contains(" warning:") || s.starts_with("CUDA warning") || s.starts_with("HIP warning") {
        if let Some(c) = p.api_warning.captures(s) {
            let m = c.get(0)?;
            let lead = lead_in(&s[..m.start()], had_log_prefix)?;
            return Some(Parsed {
                start: m.start(),
                kind: by_message(&c["msg"]),
                dialect: "cuda_warning",
                exception: lead.exception,
            });
        }
    }
    if s.contains("out of memory") {
        if let Some(m) = p.oom.find(s) {
            let lead = lead_in(&s[..m.start()], true)?;
            return Some(Parsed {
                start: m.start(),
                kind: HostKind::Other("out_of_memory"),
                dialect: "cuda_error",
                exception: lead.exception,
            });
        }
    }
    if s.contains("NCCL") || s.contains("nccl") || s.contains("Watchdog caught") {
        if let Some(m) = p.nccl.find(s) {
            let lead = lead_in(&s[..m.start()], true);
            let exception = lead.and_then(|l| l.exception);
            return Some(Parsed { start: m.start(), kind: HostKind::Other("nccl"), dialect: "nccl", exception });
        }
    }
    for &(needle, kind) in PYTHON_ERRORS {
        if let Some(i) = s.find(needle) {
            let lead = lead_in(&s[..i], had_log_prefix)?;
            return Some(Parsed {
                start: i,
                kind: HostKind::Other(kind),
                dialect: "python",
                exception: lead.exception,
            });
        }
    }
    if s.contains("HSA_STATUS_ERROR") {
        if let Some(m) = p.hsa.find(s) {
            return Some(Parsed {
                start: m.start(),
                kind: HostKind::Other("hsa_exception"),
                dialect: "rocm",
                exception: None,
            });
        }
    }
    None
}

struct Lead {
    exception: Option<String>,
    what: bool,
}

/// Decides whether the text in front of an error phrase lets it count as an error line.
fn lead_in(prefix: &str, had_log_prefix: bool) -> Option<Lead> {
    let p = prefix.trim();
    if p.is_empty() {
        return Some(Lead { exception: None, what: false });
    }
    let pat = patterns();
    if let Some(c) = pat.exception_lead.captures(p) {
        return Some(Lead { exception: Some(c["exc"].to_string()), what: false });
    }
    if let Some(c) = pat.warning_lead.captures(p) {
        return Some(Lead { exception: Some(c["exc"].to_string()), what: false });
    }
    if p.contains("what():") {
        return Some(Lead { exception: None, what: true });
    }
    // Quoted or code: `print("CUDA error: ...")`, "the message `CUDA error: ...`".
    if p.ends_with(['"', '\'', '`', '(', '[', '=', ',']) {
        return None;
    }
    let lower = p.to_ascii_lowercase();
    let error_like = lower.ends_with("exception:")
        || lower.ends_with("!!!")
        || (had_log_prefix
            && (p.ends_with(" -") || p.ends_with(':') || lower.contains("error") || lower.contains("exception")));
    error_like.then_some(Lead { exception: None, what: false })
}

fn by_code(code: u32, msg: &str) -> HostKind {
    match code {
        59 | 710 => HostKind::DeviceAssert,
        _ => match by_message(msg) {
            HostKind::Other("cuda_error") => HostKind::Other("runtime_error"),
            k => k,
        },
    }
}

/// Sorts a CUDA error message (`cudaGetErrorString` text) into a kind.
pub fn by_message(msg: &str) -> HostKind {
    let m = msg.trim_start().to_ascii_lowercase();
    if m.starts_with("device-side assert")
        || m.contains("cudaerrorassert")
        || m.contains("device-side assert triggered")
    {
        return HostKind::DeviceAssert;
    }
    const KINDS: &[(&str, &str)] = &[
        ("out of memory", "out_of_memory"),
        ("illegal memory access", "illegal_address"),
        ("no kernel image", "no_kernel_image"),
        ("misaligned address", "misaligned_address"),
        ("unspecified launch failure", "launch_failure"),
        ("illegal instruction", "illegal_instruction"),
        ("invalid device ordinal", "invalid_device_ordinal"),
        ("invalid device function", "invalid_device_function"),
        ("cublas_status", "cublas"),
        ("cusparse_status", "cusparse"),
        ("cusolver", "cusolver"),
        ("cudnn_status", "cudnn"),
        ("launch timed out", "launch_timeout"),
        ("ecc error", "ecc_error"),
        ("busy or unavailable", "device_busy"),
        ("no cuda-capable device", "no_device"),
        ("driver version is insufficient", "driver_too_old"),
        ("too many resources requested", "too_many_resources"),
        ("invalid configuration argument", "invalid_configuration"),
        ("operation not permitted when stream is capturing", "stream_capture"),
        ("invalid argument", "invalid_argument"),
        ("initialization error", "initialization_error"),
    ];
    KINDS
        .iter()
        .find(|(needle, _)| m.contains(needle))
        .map(|(_, k)| HostKind::Other(k))
        .unwrap_or(HostKind::Other("cuda_error"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every literal `classify` looks for is in `BRANCH_NEEDLES` (or `PYTHON_ERRORS`): a
    /// branch whose literal were missing would never run.
    #[test]
    fn the_needles_cover_every_branch() {
        let src = include_str!("host.rs");
        let body = &src[src.find("pub fn classify").unwrap()..src.find("struct Lead").unwrap()];
        let mut seen = 0;
        for call in ["s.contains(\"", "s.starts_with(\"", "s.find(\""] {
            for (i, _) in body.match_indices(call) {
                let lit = &body[i + call.len()..];
                let lit = &lit[..lit.find('"').unwrap()];
                assert!(BRANCH_NEEDLES.contains(&lit), "`{lit}` is not in BRANCH_NEEDLES");
                seen += 1;
            }
        }
        assert!(seen >= 11, "{seen}");
        // And the gate lets each through.
        for n in BRANCH_NEEDLES.iter().chain(PYTHON_ERRORS.iter().map(|(n, _)| n)) {
            assert!(patterns().host_needles.find(format!("x {n} y").as_bytes()).is_some(), "{n}");
        }
        assert!(classify("/usr/lib/python3/dist-packages/x.py:3: UserWarning: step", false).is_none());
    }

    fn kind(s: &str) -> Option<HostKind> {
        classify(s, false).map(|p| p.kind)
    }

    #[test]
    fn device_assert_forms() {
        for s in [
            "RuntimeError: CUDA error: device-side assert triggered",
            "torch.AcceleratorError: CUDA error: device-side assert triggered",
            "AcceleratorError: CUDA error: device-side assert triggered",
            "CUDA error: device-side assert triggered",
            "RuntimeError: cuda runtime error (59) : device-side assert triggered at /x/THCTensorCopy.c:18",
            "cuda runtime error (710) : device-side assert triggered at /x/THCReduceAll.cuh:327",
            "THCudaCheck FAIL file=/x/THCCachingHostAllocator.cpp line=296 error=59 : device-side assert triggered",
            "RuntimeError('CUDA error: device-side assert triggered",
            "  what():  CUDA error: device-side assert triggered (insert_events at /x/CUDACachingAllocator.cpp:569)",
            "  what():  [PG 1 Rank 1] Process group watchdog thread terminated with exception: CUDA error: device-side assert triggered",
            "RuntimeError: copy_if failed to synchronize: device-side assert triggered",
            "Warning: CUDA warning: device-side assert triggered (function destroyEvent)",
            "RuntimeError: HIP error: device-side assert triggered",
        ] {
            assert_eq!(kind(s), Some(HostKind::DeviceAssert), "{s}");
        }
    }

    #[test]
    fn other_cuda_errors() {
        for (s, k) in [
            ("RuntimeError: CUDA error: an illegal memory access was encountered", "illegal_address"),
            ("CUDA error: no kernel image is available for execution on the device", "no_kernel_image"),
            ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle)`", "cublas"),
            ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED", "cudnn"),
            (
                "RuntimeError: cuda runtime error (77) : an illegal memory access was encountered at /x.c:20",
                "illegal_address",
            ),
            ("RuntimeError: cuda runtime error (11) : invalid argument at /x/THCGeneral.cpp:663", "invalid_argument"),
            ("OutOfMemoryError: CUDA out of memory. Tried to allocate 50.00 MiB", "out_of_memory"),
            ("torch.distributed.DistBackendError: NCCL error in: ../x.cpp:1333, unhandled system error", "nccl"),
        ] {
            assert_eq!(kind(s), Some(HostKind::Other(k)), "{s}");
        }
    }

    #[test]
    fn quoted_and_prose_mentions_do_not_count() {
        for s in [
            r#"print("CUDA error: device-side assert triggered")"#,
            "If you see `RuntimeError: CUDA error: device-side assert triggered`, restart the runtime.",
            "I think the CUDA error: device-side assert triggered comes from my labels",
            r#"logger.warning('retrying after "CUDA error: device-side assert triggered"')"#,
            "Search for device-side assert triggered in the docs",
        ] {
            assert_eq!(kind(s), None, "{s}");
        }
    }

    #[test]
    fn logger_wrapped_errors_count() {
        let p = classify(
            "trainer - <class 'RuntimeError'> at trainer.py:101 - CUDA error: an illegal memory access was encountered",
            true,
        );
        assert_eq!(p.map(|p| p.kind), Some(HostKind::Other("illegal_address")));
        assert!(classify("trainer - <class 'RuntimeError'> at trainer.py:101 - CUDA error: x", false).is_none());
    }

    #[test]
    fn dialects() {
        assert_eq!(
            classify("AcceleratorError: CUDA error: device-side assert triggered", false).unwrap().dialect,
            "accelerator_error"
        );
        assert_eq!(classify("  what():  CUDA error: device-side assert triggered", false).unwrap().dialect, "cpp_what");
        assert_eq!(
            classify("RuntimeError: CUDA error: device-side assert triggered", false).unwrap().exception.as_deref(),
            Some("RuntimeError")
        );
    }
}
