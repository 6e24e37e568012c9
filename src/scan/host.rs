//! Host-side CUDA errors: the lines Python, C++ and the CUDA runtime print when a CUDA call
//! fails, told apart into device-side asserts and everything else.
//!
//! An error is found by its core (`CUDA error: …`, `cuda runtime error (59)`, `cudaErrorAssert`,
//! NCCL's `Cuda failure 710 '…'`, a bare `device-side assert triggered`) wherever it sits in the
//! line; [`super::context::judge`] decides from the text around it whether it was printed or quoted.

use super::context::{Context, Judge};
use super::patterns::patterns;
use crate::facts::HostKind;
use crate::find::keywords::Keywords;
use crate::re::Regex;
use crate::report::{KernelSite, Offending};
use std::sync::OnceLock;

/// Every literal a branch of [`classify`] needs (a test keeps the list complete): a line with
/// none of them is no host error, and one search for all of them spares the branches their
/// searches on the many lines that hold none (warnings, frames, progress).
const BRANCH_NEEDLES: &[&str] = &[
    "THCudaCheck",
    "untime error (",
    "Triton Error",
    "Cuda failure",
    "rror:",
    "AcceleratorError",
    "failed to synchronize",
    " warning:",
    "CUDA warning",
    "HIP warning",
    "cudaError",
    "hipError",
    "CUDA_ERROR_",
    "out of memory",
    "NCCL",
    "nccl",
    "Watchdog caught",
    "HSA_STATUS_ERROR",
    "device-side assert",
    "设备",
];

/// Errors of the CUDA setup that Python raises itself, with no CUDA error code.
const PYTHON_ERRORS: &[(&str, &str)] = &[
    ("Cannot re-initialize CUDA in forked subprocess", "cuda_fork"),
    ("Torch not compiled with CUDA enabled", "no_cuda_build"),
    ("Expected all tensors to be on the same device", "device_mismatch"),
];

/// All of them, as one set.
fn needles() -> &'static Keywords {
    static K: OnceLock<Keywords> = OnceLock::new();
    K.get_or_init(|| {
        let all: Vec<&str> = BRANCH_NEEDLES.iter().copied().chain(PYTHON_ERRORS.iter().map(|(n, _)| *n)).collect();
        Keywords::new(&all)
    })
}

/// A host error found in a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// Byte offset of the error phrase in the line.
    pub start: usize,
    pub kind: HostKind,
    pub dialect: &'static str,
    pub exception: Option<String>,
    /// The source file (and line) the message names, as a kernel site without a condition.
    pub site: Option<KernelSite>,
    /// The value the device refused and its bound, when the message says (Apple GPUs).
    pub offending: Option<Offending>,
}

/// What stands in front of a printed error: the exception class, and whether it is a C++
/// `what():` line.
struct Lead {
    exception: Option<String>,
    what: bool,
}

/// The lead of the error at `[start, end)` of `s`, when the error was printed (not quoted).
fn printed(s: &str, start: usize, end: usize, j: Judge) -> Option<Lead> {
    let before = &s[..start];
    if j.judge(before, &s[end..]) == Context::Quoted {
        return None;
    }
    let exception = patterns().exception_lead.captures(before).map(|c| c["exc"].to_string());
    Some(Lead { exception, what: before.contains("what():") })
}

/// The first match of `re` in `s` that was printed: its captures and lead. The words after
/// the error count from its message on (a form's `msg` group runs to the end of the line).
fn first_printed<'s>(re: &Regex, s: &'s str, j: Judge) -> Option<(crate::re::Captures<'s>, Lead)> {
    re.captures_iter(s).find_map(|c| {
        let m = c.get(0)?;
        let after = c.name("msg").map_or(m.end(), |g| g.start());
        printed(s, m.start(), after, j).map(|lead| (c, lead))
    })
}

/// Finds the host error in a line (logger and launcher prefixes may still be on it).
pub fn classify(s: &str, j: Judge) -> Option<Parsed> {
    needles().find(s.as_bytes())?;
    if let Some(found) = coded_form(s, j).or_else(|| api_form(s, j)) {
        return Some(found);
    }
    for &(needle, kind) in PYTHON_ERRORS {
        if let Some(i) = s.find(needle) {
            let lead = printed(s, i, i + needle.len(), j)?;
            return Some(Parsed {
                start: i,
                kind: HostKind::Other(kind),
                dialect: "python",
                exception: lead.exception,
                site: None,
                offending: None,
            });
        }
    }
    core_form(s, j)
}

/// A form read with its class: the exception and where the error starts.
fn found(c: &crate::re::Captures<'_>, lead: Lead, kind: HostKind, dialect: &'static str) -> Parsed {
    Parsed {
        start: c.get(0).map_or(0, |m| m.start()),
        kind,
        dialect,
        exception: lead.exception,
        site: None,
        offending: None,
    }
}

/// The forms that carry an error code or a launcher's name: `THCudaCheck FAIL`, `cuda runtime
/// error (59)`, `Triton Error [CUDA]`, NCCL's `Cuda failure 710`.
fn coded_form(s: &str, j: Judge) -> Option<Parsed> {
    let p = patterns();
    if s.contains("THCudaCheck") {
        if let Some((c, lead)) = first_printed(&p.thcudacheck, s, j) {
            let kind = by_code(c["code"].parse().unwrap_or(0), &c["msg"]);
            let site =
                KernelSite { file: c["file"].to_string(), line: c["line"].parse().ok(), ..KernelSite::default() };
            return Some(Parsed { site: Some(site), ..found(&c, lead, kind, "thcudacheck") });
        }
    }
    if s.contains("untime error (") {
        if let Some((c, lead)) = first_printed(&p.runtime_code, s, j) {
            let kind = by_code(c["code"].parse().unwrap_or(0), &c["msg"]);
            // `… device-side assert triggered at /x/THCUNN/generic/ClassNLLCriterion.cu:115`
            let site = c.name("file").map(|f| KernelSite {
                file: f.as_str().to_string(),
                line: c.name("line").and_then(|l| l.as_str().parse().ok()),
                ..KernelSite::default()
            });
            return Some(Parsed { site, ..found(&c, lead, kind, "cuda_runtime_error") });
        }
    }
    if s.contains("Triton Error") {
        if let Some((c, lead)) = first_printed(&p.triton_error, s, j) {
            let kind = by_message(&c["msg"]);
            return Some(found(&c, lead, kind, "triton_error"));
        }
    }
    if s.contains("Cuda failure") {
        if let Some((c, lead)) = first_printed(&p.cuda_failure, s, j) {
            let kind = match c.name("code").and_then(|m| m.as_str().parse().ok()) {
                Some(code) => by_code(code, &c["msg"]),
                None => by_message(&c["msg"]),
            };
            return Some(found(&c, lead, kind, "nccl_cuda_failure"));
        }
    }
    None
}

/// The API forms: `CUDA error: …` (and cuDNN, cuBLAS, HIP …), Apple GPUs' `AcceleratorError`,
/// `failed to synchronize`, warnings, error names, out of memory, NCCL.
fn api_form(s: &str, j: Judge) -> Option<Parsed> {
    let p = patterns();
    if s.contains("rror:") {
        if let Some((c, lead)) = first_printed(&p.api_error, s, j) {
            let api = &c["api"];
            let kind = match api.to_ascii_lowercase().as_str() {
                "cudnn" | "cudnn frontend" => HostKind::Other("cudnn"),
                "cublas" => HostKind::Other("cublas"),
                "cusolver" => HostKind::Other("cusolver"),
                "cusparse" => HostKind::Other("cusparse"),
                "cuda nvrtc" => HostKind::Other("nvrtc"),
                _ => by_message(&c["msg"]),
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
            return Some(found(&c, lead, kind, dialect));
        }
    }
    // Apple GPUs (PyTorch 2.10 and later): a Metal kernel's check is raised at the next sync as
    // an `AcceleratorError` with the message alone, no "CUDA error".
    if s.contains("AcceleratorError") {
        if let Some((c, lead)) = first_printed(&p.mps_index, s, j) {
            let (value, size) = (&c["value"], &c["size"]);
            let offending = Offending { value: value.to_string(), allowed: format!("-{size} <= index < {size}") };
            return Some(Parsed { offending: Some(offending), ..found(&c, lead, HostKind::DeviceAssert, "mps") });
        }
    }
    if s.contains("failed to synchronize") {
        if let Some((c, lead)) = first_printed(&p.sync_failed, s, j) {
            let kind = by_message(&c["msg"]);
            return Some(found(&c, lead, kind, "sync_failed"));
        }
    }
    if s.contains(" warning:") || s.contains("CUDA warning") || s.contains("HIP warning") {
        if let Some((c, lead)) = first_printed(&p.api_warning, s, j) {
            let kind = by_message(&c["msg"]);
            return Some(found(&c, lead, kind, "cuda_warning"));
        }
    }
    if s.contains("cudaError") || s.contains("hipError") || s.contains("CUDA_ERROR_") {
        if let Some((c, lead)) = first_printed(&p.error_name, s, j) {
            let kind = by_name(&c["name"]);
            return Some(found(&c, lead, kind, "error_name"));
        }
    }
    if s.contains("out of memory") {
        if let Some((c, lead)) = first_printed(&p.oom, s, j) {
            return Some(found(&c, lead, HostKind::Other("out_of_memory"), "cuda_error"));
        }
    }
    if s.contains("NCCL") || s.contains("nccl") || s.contains("Watchdog caught") {
        if let Some((c, lead)) = first_printed(&p.nccl, s, j) {
            return Some(found(&c, lead, HostKind::Other("nccl"), "nccl"));
        }
    }
    None
}

/// ROCm's abort, and the core of a device-side assert in a shape no form above reads.
fn core_form(s: &str, j: Judge) -> Option<Parsed> {
    let p = patterns();
    if s.contains("HSA_STATUS_ERROR") {
        if let Some((c, lead)) = first_printed(&p.hsa, s, j) {
            return Some(found(&c, lead, HostKind::Other("hsa_exception"), "rocm"));
        }
    }
    // The core of a device-side assert in a shape none of the forms above reads: it counts
    // (the report says it could not place it), unless it is quoted.
    if s.contains("device-side assert") {
        if let Some((c, lead)) = first_printed(&p.assert_core, s, j) {
            return Some(found(&c, lead, HostKind::DeviceAssert, UNPARSED));
        }
    }
    // A browser's machine translation of the host line (`CUDA 错误：触发了设备端断言`); the
    // translated words for "assert" reach here as ` Assertion` (`normalize`).
    if s.contains("设备") {
        if let Some((c, lead)) = first_printed(&p.assert_core_zh, s, j) {
            return Some(found(&c, lead, HostKind::DeviceAssert, "translated"));
        }
    }
    None
}

/// The dialect of a device-side assert phrase in a form no reader knows.
pub const UNPARSED: &str = "unparsed";

/// Sorts a CUDA error name (`cudaErrorAssert`, `CUDA_ERROR_ILLEGAL_ADDRESS`) into a kind.
fn by_name(name: &str) -> HostKind {
    let n = name.to_ascii_lowercase().replace('_', "");
    const NAMES: &[(&str, &str)] = &[
        ("illegaladdress", "illegal_address"),
        ("memoryallocation", "out_of_memory"),
        ("outofmemory", "out_of_memory"),
        ("nokernelimage", "no_kernel_image"),
        ("launchfailure", "launch_failure"),
        ("misalignedaddress", "misaligned_address"),
        ("illegalinstruction", "illegal_instruction"),
        ("invaliddevice", "invalid_device_ordinal"),
        ("launchtimeout", "launch_timeout"),
        ("eccuncorrectable", "ecc_error"),
        ("nodevice", "no_device"),
        ("insufficientdriver", "driver_too_old"),
    ];
    if n.ends_with("errorassert") {
        return HostKind::DeviceAssert;
    }
    NAMES.iter().find(|(k, _)| n.contains(k)).map_or(HostKind::Other("cuda_error"), |(_, v)| HostKind::Other(v))
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

    /// Lines judged by their context (no "treat it as the error").
    fn classify(s: &str) -> Option<Parsed> {
        super::classify(s, Judge::default())
    }

    /// Every literal `classify` looks for is in `BRANCH_NEEDLES` (or `PYTHON_ERRORS`): a
    /// branch whose literal were missing would never run.
    #[test]
    fn the_needles_cover_every_branch() {
        let src = include_str!("host.rs");
        let body = &src[src.find("pub fn classify").unwrap()..src.find("pub const UNPARSED").unwrap()];
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
            assert!(needles().find(format!("x {n} y").as_bytes()).is_some(), "{n}");
        }
        assert!(classify("/usr/lib/python3/dist-packages/x.py:3: UserWarning: step").is_none());
    }

    fn kind(s: &str) -> Option<HostKind> {
        classify(s).map(|p| p.kind)
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
            r#"logger.warning('retrying after "CUDA error: device-side assert triggered"')"#,
            "Search for device-side assert triggered in the docs",
        ] {
            assert_eq!(kind(s), None, "{s}");
        }
    }

    #[test]
    fn errors_count_behind_any_prefix() {
        for s in [
            "trainer - <class 'RuntimeError'> at trainer.py:101 - CUDA error: device-side assert triggered",
            "worker-3: RuntimeError: CUDA error: device-side assert triggered",
            "(RayTrainWorker pid=4411, ip=10.0.3.7) RuntimeError: CUDA error: device-side assert triggered",
            "[1,0]<stderr>:RuntimeError: CUDA error: device-side assert triggered",
            "Mar 01 10:00:01 gpu-box python3[2211]: RuntimeError: CUDA error: device-side assert triggered",
            "ab12cd34ef56:26024:27098 [1] include/alloc.h:125 NCCL WARN Cuda failure 710 'device-side assert triggered'",
            "NCCL WARN Cuda failure 'device-side assert triggered'",
            "RuntimeError: Triton Error [CUDA]: device-side assert triggered",
            "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorAssert: device-side assert triggered",
            "numba.cuda.cudadrv.driver.CudaAPIError: [710] Call to cuMemcpyDtoH results in CUDA_ERROR_ASSERT",
            "RuntimeError: hipErrorAssert",
            "│   <repr-error 'CUDA error: device-side assert            │ │",
            "训练到一半报错：RuntimeError: CUDA error: device-side assert triggered",
            "运行时错误：CUDA 错误：触发了设备端 Assertion",
            "I think the CUDA error: device-side assert triggered comes from my labels",
        ] {
            assert_eq!(kind(s), Some(HostKind::DeviceAssert), "{s}");
        }
        let p = classify("(pid=91) torch.AcceleratorError: CUDA error: device-side assert triggered").unwrap();
        assert_eq!((p.exception.as_deref(), p.dialect), (Some("torch.AcceleratorError"), "accelerator_error"));
        assert_eq!(classify("Error 710: device-side assert triggered").unwrap().dialect, UNPARSED);
        // The hint PyTorch prints after the error is advice, not another error.
        assert_eq!(kind("Search for `cudaErrorAssert' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information."), None);
        assert_eq!(kind("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."), None);
    }

    #[test]
    fn dialects() {
        assert_eq!(
            classify("AcceleratorError: CUDA error: device-side assert triggered").unwrap().dialect,
            "accelerator_error"
        );
        assert_eq!(classify("  what():  CUDA error: device-side assert triggered").unwrap().dialect, "cpp_what");
        assert_eq!(
            classify("RuntimeError: CUDA error: device-side assert triggered").unwrap().exception.as_deref(),
            Some("RuntimeError")
        );
    }
}
