//! The formats PyTorch, Python, IPython and the CUDA runtime print, as regular expressions.
//!
//! These describe *how things are printed* (a kernel assertion line, a traceback frame, a CUDA
//! error). *What they mean* (which cause, which fix) is data in `rules/`. Every pattern here is
//! compiled once; both engines of [`crate::re`] keep all of them linear-time in the input.

use crate::find::keywords::Keywords;
use crate::re::LazyRegex;
use std::sync::OnceLock;

/// The literals of generation's sampling settings ([`Patterns::sampling`]).
pub const SAMPLING: &[&str] = &["do_sample", "top_p", "top_k", "SamplingParams("];

/// Of [`SAMPLING`], the literals that open the scanner's gate (`scan::KEYWORDS`) by themselves:
/// `top_p` and `top_k` there cost the SIMD prefilter a fifth of its speed on a 10 MB line of
/// training dicts (15 -> 19 ms); a line of settings without `do_sample` or `SamplingParams(` is
/// read only when it passes the gate for another word.
pub const SAMPLING_GATE: &[&str] = &["do_sample", "SamplingParams("];

/// The compiled formats.
pub struct Patterns {
    /// A kernel assertion line: `file:line: func: block: [..], thread: [..] Assertion `cond` failed.`
    /// (also the Windows form without a function, the SYCL form with global/local ids, the
    /// `[CUDA_KERNEL_ASSERT]` form and the machine-translated form once normalised).
    pub kernel: LazyRegex,
    /// A HIP/ROCm kernel assertion: `file:line: func: Device-side assertion `cond' failed.`
    pub kernel_hip: LazyRegex,
    /// The middle of a kernel line whose start or end was wrapped away.
    pub kernel_partial: LazyRegex,
    /// The core of a kernel record: ``Assertion `COND` failed`` or ``Assertion failed: `COND` ``.
    pub kernel_core: LazyRegex,
    /// The block and thread ids that end a record's head (what survived of them).
    pub head_ids: LazyRegex,
    /// The file, line and function that end the text before a head's ids.
    pub head_function: LazyRegex,
    /// A CUDA source file named anywhere (for torn records).
    pub any_file: LazyRegex,
    /// `N CUDA device-side assertion failures were found on GPU #d!`
    pub dsa_found: LazyRegex,
    /// A `key = value` line of a `TORCH_USE_CUDA_DSA` report record.
    pub dsa_field: LazyRegex,
    /// `CUDA error: ...`, `HIP error: ...`, `cuDNN error: ...` and the other API error forms.
    pub api_error: LazyRegex,
    /// `cuda runtime error (59) : device-side assert triggered at file:line`
    pub runtime_code: LazyRegex,
    /// `THCudaCheck FAIL file=... line=... error=59 : ...`
    pub thcudacheck: LazyRegex,
    /// Apple GPUs' device check, raised at the next sync:
    /// `AcceleratorError: index 1 is out of bounds for dimension 0 with size 1`.
    pub mps_index: LazyRegex,
    /// Triton's launcher: `Triton Error [CUDA]: device-side assert triggered`.
    pub triton_error: LazyRegex,
    /// NCCL's `Cuda failure 710 'device-side assert triggered'` (older: no code).
    pub cuda_failure: LazyRegex,
    /// A CUDA error's name: `cudaErrorAssert`, `hipErrorAssert`, `CUDA_ERROR_ASSERT`.
    pub error_name: LazyRegex,
    /// The core of a device-side assert in any shape: `device-side assert` not followed by
    /// `ion` or `s` (`device-side assertions` is PyTorch's advice, not an error).
    pub assert_core: LazyRegex,
    /// The same, machine-translated into Chinese (`设备端断言`, once normalised).
    pub assert_core_zh: LazyRegex,
    /// `copy_if failed to synchronize: device-side assert triggered`
    pub sync_failed: LazyRegex,
    /// `CUDA warning: ...` (teardown warnings after an assert).
    pub api_warning: LazyRegex,
    /// `CUDA out of memory.` from the caching allocator.
    pub oom: LazyRegex,
    /// NCCL failures.
    pub nccl: LazyRegex,
    /// ROCm's runtime abort after a kernel fault.
    pub hsa: LazyRegex,
    /// The exception class at the end of the text before an error (`[rank0]: RuntimeError: `,
    /// `RuntimeError('`, `x.py:3: UserWarning: `).
    pub exception_lead: LazyRegex,
    /// Prefixes that loggers and launchers put before each line.
    pub prefix: LazyRegex,
    /// The separators between chained exceptions.
    pub tb_chain: LazyRegex,
    /// `File "path", line N, in func`.
    pub frame_std: LazyRegex,
    /// IPython 8: `File path:N, in func(args)`.
    pub frame_ipy8: LazyRegex,
    /// IPython 8 cells: `Cell In[11], line 13` and `Input In [5], in <cell line: 3>()`.
    pub frame_cell: LazyRegex,
    /// IPython 5-7 and Colab: `<ipython-input-4-abc> in f(args)`, `/path/x.py in f(args)`.
    pub frame_ipy5: LazyRegex,
    /// `rich`: `/path/x.py:162 in forward`.
    pub frame_rich: LazyRegex,
    /// Colab's collapsed frames: `4 frames`, `[... skipping hidden 12 frame]`.
    pub folded: LazyRegex,
    /// `CUDA_LAUNCH_BLOCKING` set to 1 (shell, Python, IPython magic).
    pub launch_blocking: LazyRegex,
    pub launcher: LazyRegex,
    /// The level names a logger prefix may hold past its first character, and Docker Compose's
    /// column (`trainer-1  | `).
    pub levels: Keywords,
    /// What shows where a traceback line's prefix ends: its header, a frame's `File "`.
    pub tb_anchors: Keywords,
    /// The literals of the notes a line may give (`Scanner::notes`): most lines hold none.
    pub notes: Keywords,
    /// The literals of generation's sampling settings (`do_sample`, `top_p`, `top_k`, vLLM's
    /// `SamplingParams(`; a temperature alone is as likely a GPU's).
    pub sampling: Keywords,
    /// A source line that imports torch (directly or through a library built on it).
    pub imports_torch: LazyRegex,
    /// A source line that uses CUDA (and so initialises it).
    pub uses_cuda: LazyRegex,
    /// A call in a source line: `name(` or a call through a subscript, `layers[i](`.
    pub call: LazyRegex,
    /// A subscript in a source line: `x[...]`.
    pub subscript: LazyRegex,
}

impl Patterns {
    /// True when a line of code imports PyTorch or a library built on it (`imports_torch`,
    /// behind the words every match starts with: most lines have neither).
    pub fn imports_torch_in(&self, code: &str) -> bool {
        let t = code.trim_start();
        (t.starts_with("import") || t.starts_with("from")) && self.imports_torch.is_match(code)
    }

    /// True when a line of code puts something on the GPU (`uses_cuda`, behind the literals
    /// every match holds).
    pub fn uses_cuda_in(&self, code: &str) -> bool {
        (code.contains("cuda") || code.contains(".to(")) && self.uses_cuda.is_match(code)
    }

    /// True when `line` was printed by a multi-process launch or a server: a rank's prefix, a
    /// vLLM worker's, torchrun's, DeepSpeed's, accelerate's, vLLM's or SGLang's frames.
    pub fn launcher_in(&self, line: &str) -> bool {
        const HINTS: [&str; 8] = ["rank", "Vllm", "EngineCore", "vllm", "sglang", "distributed", "deepspeed", "accelerate"];
        HINTS.iter().any(|h| line.contains(h)) && self.launcher.is_match(line)
    }

    /// True when `line` sets `CUDA_LAUNCH_BLOCKING=1` (not PyTorch's hint to do so).
    pub fn sets_launch_blocking(&self, line: &str) -> bool {
        line.contains("CUDA_LAUNCH_BLOCKING")
            && !line.contains("consider passing")
            && self.launch_blocking.is_match(line)
    }
}

/// Returns the compiled formats.
pub fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns::build(&mut LazyRegex::new))
}

/// The source of every format, for the tests that check both regex engines agree on them.
#[doc(hidden)]
pub fn sources() -> Vec<String> {
    let mut v = Vec::new();
    Patterns::build(&mut |src| {
        v.push(src.to_string());
        LazyRegex::new(src)
    });
    v
}

// A source path as printed by a kernel: Windows drive letters, both separators, build
// prefixes such as `../aten`, `/opt/conda/conda-bld/pytorch_123/work`, `C:/cb/...\work\c10`.
// Triton prints `unknown` for a kernel it cannot name, and Inductor's asserts may carry a
// Python frame's name such as `<frozen importlib._bootstrap_external>`.
const KFILE: &str =
    r"(?P<file>(?:[A-Za-z]:)?[\w.\-+~@\\/]*?[\w\-+~@]\.(?:cuh|cu|hip|hpp|h|cpp|cc|cxx|c|py|cl)|unknown|<[^<>\n]+>)";

// A printed condition up to the backtick before `failed`: it may hold backticks of its own,
// in pairs (`_assert_async`'s messages: ``Assertion `probability tensor contains either `inf`,
// `nan` or element < 0` failed.``), and may be empty (``Assertion `` failed.``).
const NESTED: &str = r"(?:[^`\n]|`[^`\n]*`)*?";

impl Patterns {
    fn build(re: &mut dyn FnMut(&str) -> LazyRegex) -> Patterns {
        Patterns {
            kernel: re(&format!(
                r"{KFILE}:(?P<lno>\d+):\s*(?:(?P<func>(?:[^:\n]|::)*?):\s*)?(?:block:\s*\[(?P<block>[^\]\n]*)\],?\s*thread:\s*\[(?P<thread>[^\]\n]*)\]|global\s+id:\s*\[(?P<gid>[^\]\n]*)\],?\s*local\s+id:\s*\[(?P<lid>[^\]\n]*)\])\s*:?\s*Assertion\s*(?:failed:\s*)?(?:`(?P<cond>{NESTED})`(?P<failed>\s*failed)|`(?P<condo>[^`\n]*)`)?"
            )),
            kernel_hip: re(&format!(
                r"{KFILE}:(?P<lno>\d+):\s*(?P<func>[^\n]*?):\s*Device-side assertion\s*`(?P<cond>[^'`\n]*)['`]\s*failed"
            )),
            kernel_partial: re(
                r"(?:block|global\s+id):\s*\[[^\]\n]*\],?\s*(?:thread|local\s+id):\s*\[[^\]\n]*\]\s*:?\s*Assertion",
            ),
            kernel_core: re(&format!(r"Assertion\s*(?:failed:\s*`(?P<cond2>[^`\n]*)`|`(?P<cond>{NESTED})`\s*failed)")),
            head_ids: re(
                r"(?:(?:block|global\s+id):\s*\[(?P<block>[\d,: ]*)\],?\s*)?(?:(?:thread|local\s+id):\s*)?\[(?P<thread>[\d,: ]*\d\s*,\s*\d[\d,: ]*)\]\s*:?\s*$",
            ),
            head_function: re(&format!(r"(?:{KFILE}:(?P<lno>\d+):\s*)?(?P<func>(?:[^:\n]|::)*?)\s*:\s*$")),
            any_file: re(r"[\w.\-+~@/\\]*[\w\-+~@]\.(?:cuh|cu|hip)\b"),
            dsa_found: re(r"(?P<n>\d+) CUDA device-side assertion failures? (?:were|was) found on GPU #(?P<gpu>\d+)"),
            dsa_field: re(
                r"(?P<key>GPU assertion failure message|File containing assertion|Device function containing assertion|Thread ID that failed assertion|Block ID that failed assertion|File containing kernel launch|Function containing kernel launch|Name of kernel launched that led to failure|Device that launched kernel|Stream kernel was launched on|Backtrace of kernel launch site)\s*=\s*(?P<value>.*?)\s*$",
            ),
            api_error: re(
                r"(?P<api>CUDA driver|CUDA NVRTC|CUDA|Cuda|cuda|HIP|cuDNN Frontend|cuDNN|CuDNN|CUDNN|cuBLAS|CUBLAS|cuSOLVER|cusolver|cuSPARSE|cusparse) [Ee]rror:\s*(?P<msg>.*)",
            ),
            mps_index: re(
                r"AcceleratorError:\s*(?P<msg>index (?P<value>-?\d+) is out of bounds for dimension (?P<dim>\d+) with size (?P<size>\d+))",
            ),
            triton_error: re(r"Triton Error \[(?:CUDA|HIP)\]:\s*(?P<msg>.*)"),
            cuda_failure: re(r"Cuda failure (?:(?P<code>\d+) )?'(?P<msg>[^'\n]*)'?"),
            error_name: re(r"\b(?P<name>cudaError\w*|hipError\w*|CUDA_ERROR_[A-Z_]+)"),
            assert_core: re(r"[Dd]evice-side [Aa]ssert(?:[^a-zA-Z]|$)"),
            assert_core_zh: re(r"设备[端侧]的?\s*Assertion"),
            runtime_code: re(
                r"(?:cuda|CUDA|Cuda|hip|HIP) runtime error \((?P<code>\d+)\)\s*:\s*(?P<msg>.*?(?: at (?P<file>\S+):(?P<line>\d+))?)\s*$",
            ),
            thcudacheck: re(
                r"THCudaCheck(?:Warn)?\s+FAIL\s+file=(?P<file>\S+)\s+line=(?P<line>\d+)\s+error=(?P<code>\d+)\s*:\s*(?P<msg>.*)",
            ),
            sync_failed: re(r"(?P<what>[\w:]+) failed to synchronize:\s*(?:cudaErrorAssert:\s*)?(?P<msg>.*)"),
            api_warning: re(r"(?:CUDA|HIP) warning:\s*(?P<msg>.*)"),
            oom: re(r"(?:CUDA|HIP) out of memory\b"),
            nccl: re(
                r"NCCL error\b|ncclUnhandledCudaError|ncclSystemError|ncclInternalError|ncclInvalidUsage|ncclRemoteError|Watchdog caught collective operation timeout",
            ),
            hsa: re(r"HSA_STATUS_ERROR_\w+"),
            exception_lead: re(
                r"(?P<exc>(?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception|Warning|Failure|Interrupt))\s*(?::\s*|\(\s*['\x22]?)['\x22]?$",
            ),
            prefix: re(concat!(
                r"^(?:",
                // A rank: `[rank3]:`, Lightning's `[rank: 0]`, torchrun's `[default3]:`, `rank 3:`, `14: `.
                r"\s*\[(?:[Rr]ank|RANK|default):?\s*\d+\]\s*:?\s?|\s*(?:[Rr]ank|RANK)\s*\d+\s*:\s?|\s{0,3}\d{1,4}:\s",
                // A line number: `cat -n`'s `     1\t` (`less -N`'s `      1 ` is IPython's source
                // line too: it is learned, not known).
                r"|\s*\d{1,7}\t",
                // A process: Ray's and vLLM's `(pid=123)`, `(RayWorkerWrapper pid=4242, ip=10.0.0.1)`,
                // `(VllmWorker rank=0 pid=812)`, `(EngineCore_DP0 pid=77)`; Docker Compose's `trainer-1  | `.
                r"|\((?:[\w.-]+ )?(?:\w+=[\w.:-]+,? )*pid=\d+(?:,? \w+=[\w.:-]+)*\)\s?|[\w.-]*[-_]\d+\s+\|\s?",
                // A logger's time and level.
                r"|(?:",
                r"\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s?",
                r"|\d{2}/\d{2}(?:/\d{2,4})?\s+\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\s?",
                r"|\[\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]\s?",
                r"|\[\s*(?:INFO|WARN|WARNING|ERROR|DEBUG|CRITICAL|FATAL)\s*\]\s?:?\s?",
                r"|(?:INFO|WARNING|ERROR|DEBUG|CRITICAL):(?:[\w.]+:)?\s?",
                r"|[IWEF]\d{4}\s+\d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+\S+:\d+\]\s?",
                r"|\[[WEIF]\s+[^\]]*\]\s?",
                r"|\S+\s+MODEL_LOG\s+-\s+",
                r"|[\w.]+\s+-\s+(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+-\s+",
                r"))"
            )),
            tb_chain: re(
                r"^\s*(?:During handling of the above exception, another exception occurred|The above exception was the direct cause of the following exception)",
            ),
            frame_std: re(r#"^\s*File\s+"(?P<path>[^"]*)",\s+line\s+(?P<line>\d+)(?:,\s+in\s+(?P<func>.*?))?\s*$"#),
            frame_ipy8: re(r"^\s*File\s+(?P<path>\S.*?):(?P<line>\d+)(?:,\s+in\s+(?P<func>.*?))?\s*$"),
            frame_cell: re(
                r"^\s*(?P<path>(?:Cell|Input)\s+In\s*\[\s*\d*\s*\]),\s*(?:line\s+(?P<line>\d+)(?:,\s*in\s+(?P<func>.*?))?|in\s+(?P<func2>.*?))\s*$",
            ),
            frame_ipy5: re(
                r"^\s*(?P<path><ipython-input-\d+-[0-9a-f]+>|\S+\.py)\s+in\s+(?P<func><[^>]*>(?:\(\))?|[\w.]+(?:\(.*\))?)\s*$",
            ),
            frame_rich: re(r"^\s*(?P<path>\S+\.py|<[^>]+>):(?P<line>\d+)\s+in\s+(?P<func>\S+)\s*$"),
            folded: re(r"^\s*(?P<n>\d+)\s+frames?\s*$|\[\.\.\. skipping hidden (?P<n2>\d+) frames?\]"),
            launch_blocking: re(concat!(
                r#"environ\s*\[\s*['"]CUDA_LAUNCH_BLOCKING['"]\s*\]\s*=\s*['"]?1"#,
                r#"|environ\.setdefault\(\s*['"]CUDA_LAUNCH_BLOCKING['"]\s*,\s*['"]1"#,
                r#"|putenv\(\s*['"]CUDA_LAUNCH_BLOCKING['"]\s*,\s*['"]1"#,
                r#"|%env\s+CUDA_LAUNCH_BLOCKING\s*=?\s*['"]?1"#,
                r#"|(?:^|[\s;&(!])(?:export\s+|set\s+|\$env:)?CUDA_LAUNCH_BLOCKING\s*=\s*['"]?1['"]?(?:\s+\S|\s*$)"#
            )),
            launcher: re(concat!(
                r"\[rank\d+\]:|\((?:VllmWorker|EngineCore)[\w ]*(?:rank=\d+ )?pid=\d+\)",
                r"|[/\\](?:vllm|sglang|deepspeed)[/\\]|torch[/\\.]distributed[/\\.](?:elastic|run|launch)",
                r"|[/\\]accelerate[/\\]commands[/\\]launch"
            )),
            levels: Keywords::new(&["MODEL_LOG", "INFO", "WARNING", "ERROR", "DEBUG", "CRITICAL", " | "]),
            tb_anchors: Keywords::new(&["Traceback (most recent call last)", "File \""]),
            notes: Keywords::new(&[
                "asynchronously reported",
                "TORCH_USE_",
                "Device-side assertion tracking",
                "CUDA_LAUNCH_BLOCKING",
            ]),
            sampling: Keywords::new(SAMPLING),
            imports_torch: re(
                r"^\s*(?:import|from)\s+(?:torch|torchvision|torchaudio|torchtext|transformers|timm|ultralytics|lightning|pytorch_lightning|fastai|diffusers|peft|accelerate|torch_geometric|sentence_transformers|detectron2|mmdet|mmseg|trl|unsloth|monai|segmentation_models_pytorch)\b",
            ),
            uses_cuda: re(
                r#"\.cuda\(|\.to\(\s*['"]cuda|\bdevice\s*=\s*['"]cuda|torch\.device\(\s*['"]cuda|\.to\(\s*(?:self\.)?device\b|torch\.cuda\.(?:set_device|manual_seed(?:_all)?|synchronize|empty_cache|init|current_device|mem_get_info)\b"#,
            ),
            call: re(r"(?P<name>[A-Za-z_][\w.]*)\s*\(|(?P<sub>\])\s*\("),
            subscript: re(r"\w\s*\[(?P<inner>[^\]]*)\]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gates let through every literal behind them (`Scanner::notes`, `may_have_known`).
    #[test]
    fn the_gates_let_their_literals_through() {
        let p = patterns();
        for s in [
            "might be asynchronously reported at some other API call",
            "Compile with `TORCH_USE_CUDA_DSA` to enable",
            "TORCH_USE_HIP_DSA",
            "Device-side assertion tracking was not enabled by user.",
            "os.environ['CUDA_LAUNCH_BLOCKING'] = '1'",
        ] {
            assert!(p.notes.find(s.as_bytes()).is_some(), "{s}");
        }
        assert!(p.notes.find(b"/x/dist-packages/y.py:3: UserWarning: `a` before `b`").is_none());
        for level in ["MODEL_LOG", "INFO", "WARNING", "ERROR", "DEBUG", "CRITICAL"] {
            assert!(super::super::prefix::may_have_known(p, &format!("- {level} x")), "{level}");
        }
        assert!(!super::super::prefix::may_have_known(p, "/x/dist-packages/y.py:3: UserWarning: step"));
        // An error line is not taken for `rank`, `ERROR` or glog's `E0102` by its first letter.
        for l in ["RuntimeError: CUDA error: x", "Error: x", "EOFError", "IndexError: y", "FileNotFoundError: z"] {
            assert!(!super::super::prefix::may_have_known(p, l), "{l}");
        }
    }

    /// The code patterns' gates hide none of their matches: on every line of every test
    /// input and on lines made for them.
    #[test]
    fn the_code_gates_hide_no_match() {
        let p = patterns();
        let mut lines: Vec<String> = [
            "import torch",
            "  from transformers import AutoModel",
            "model.cuda()",
            "x = x.to( 'cuda:0')",
            "x.to(self.device)",
            "device = \"cuda\"",
            "torch.cuda.synchronize()",
            "import numpy as np",
        ]
        .map(String::from)
        .to_vec();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases");
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let text = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned();
            lines.extend(text.lines().flat_map(|l| l.split("\\n")).map(String::from));
        }
        let (mut imports, mut cuda) = (0, 0);
        for l in &lines {
            assert_eq!(p.imports_torch_in(l), p.imports_torch.is_match(l), "{l:?}");
            assert_eq!(p.uses_cuda_in(l), p.uses_cuda.is_match(l), "{l:?}");
            imports += usize::from(p.imports_torch.is_match(l));
            cuda += usize::from(p.uses_cuda.is_match(l));
        }
        assert!(imports >= 2 && cuda >= 5, "{imports} {cuda}");
    }

    #[test]
    fn the_prefix_gate_never_hides_a_prefix() {
        let p = patterns();
        let mut lines: Vec<String> = [
            "[rank0]: x",
            "  rank 3: x",
            "12: x",
            "[2024-01-02 10:11:12,345] x",
            "2024-01-02T10:11:12Z x",
            "01/02/2024 10:11:12 x",
            "[10:11:12] x",
            "[ INFO ] x",
            "INFO: x",
            "WARNING:root: x",
            "I0102 10:11:12.123 42 file.cc:12] x",
            "[W socket.cpp] x",
            "2024-01-02 10:11:12,345 MODEL_LOG - x",
            "ts MODEL_LOG - x",
            "trainer.py - INFO - x",
            "my.module\t-\tERROR\t-\tx",
            "RANK 1: x",
            "CRITICAL: x",
            "DEBUG: x",
            "Epoch 1",
            "/usr/lib/x.py:1: UserWarning: y",
            "(pid=123) x",
            "(RayWorkerWrapper pid=4242, ip=10.0.0.1) x",
            "trainer-1  | x",
            "web_1 | x",
            "[rank: 0] x",
        ]
        .iter()
        .map(|s| s.replace("\\t", "\t"))
        .collect();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases");
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if let Ok(t) = std::fs::read_to_string(e.path()) {
                lines.extend(t.lines().map(str::to_string));
            }
        }
        let mut matched = 0;
        for l in &lines {
            if p.prefix.find(l).is_some_and(|m| m.end() > 0) {
                matched += 1;
                assert!(super::super::prefix::may_have_known(p, l), "the gate hides the prefix of {l:?}");
            }
        }
        assert!(matched > 20, "{matched}");
    }

    #[test]
    fn kernel_dialects() {
        let p = patterns();
        let cases = [
            ("../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.",
             "../aten/src/ATen/native/cuda/Loss.cu", Some("nll_loss_forward_reduce_cuda_kernel_2d"), Some("t >= 0 && t < n_classes")),
            ("C:\\w\\pytorch\\aten\\src\\ATen\\native\\cuda\\IndexKernel.cu:91: block: [2,0,0], thread: [3,0,0] Assertion `x` failed.",
             "C:\\w\\pytorch\\aten\\src\\ATen\\native\\cuda\\IndexKernel.cu", None, Some("x")),
            ("/p/THCUNN/ClassNLLCriterion.cu:105: void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, long) [with Dtype = float, Acctype = float]: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.",
             "/p/THCUNN/ClassNLLCriterion.cu", Some("void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, long) [with Dtype = float, Acctype = float]"), Some("t >= 0 && t < n_classes")),
            ("/tmp/torchinductor_u/k4/ck4x.py:30: unknown: block: [24,0,0], thread: [48,0,0] Assertion `index out of bounds: 0 <= tmp4 < 1 + ks0` failed.",
             "/tmp/torchinductor_u/k4/ck4x.py", Some("unknown"), Some("index out of bounds: 0 <= tmp4 < 1 + ks0")),
            ("[CUDA_KERNEL_ASSERT] /a/Foo.cu:12: kern: block: [1,0,0], thread: [2,0,0]: Assertion failed: `x < n`: value 9",
             "/a/Foo.cu", Some("kern"), Some("x < n")),
            ("/x/Indexing.cpp:40: operator(): global id: [3,0,0], local id: [3,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
             "/x/Indexing.cpp", Some("operator()"), Some("srcIndex < srcSelectDimSize")),
            ("IndexKernel.cu:92:operator():block:[3356,0,0],thread:[86,0,0] Assertion failed.",
             "IndexKernel.cu", Some("operator()"), None),
            // `_assert_async`'s messages (PyTorch 2.5 and later): backticks inside, or none at all.
            ("/pytorch/aten/src/ATen/native/cuda/TensorCompare.cu:112: _assert_async_cuda_kernel: block: [0,0,0], thread: [0,0,0] Assertion `probability tensor contains either `inf`, `nan` or element < 0` failed.",
             "/pytorch/aten/src/ATen/native/cuda/TensorCompare.cu", Some("_assert_async_cuda_kernel"), Some("probability tensor contains either `inf`, `nan` or element < 0")),
            ("/pytorch/aten/src/ATen/native/cuda/TensorCompare.cu:112: _assert_async_cuda_kernel: block: [0,0,0], thread: [0,0,0] Assertion `` failed.",
             "/pytorch/aten/src/ATen/native/cuda/TensorCompare.cu", Some("_assert_async_cuda_kernel"), Some("")),
            // Two records glued: the first condition ends at its own `failed`.
            ("/x/Loss.cu:1: f: block: [0,0,0], thread: [1,0,0] Assertion `a` failed./x/Loss.cu:1: f: block: [0,0,0], thread: [2,0,0] Assertion `b` failed.",
             "/x/Loss.cu", Some("f"), Some("a")),
            // A condition cut before its end keeps what is there.
            ("/x/TensorCompare.cu:9: k: block: [0,0,0], thread: [0,0,0] Assertion `probability tensor contains either `inf`, `na",
             "/x/TensorCompare.cu", Some("k"), Some("probability tensor contains either ")),
        ];
        for (line, file, func, cond) in cases {
            let c = p.kernel.captures(line).unwrap_or_else(|| panic!("no match: {line}"));
            assert_eq!(c.name("file").map(|m| m.as_str()), Some(file), "{line}");
            assert_eq!(c.name("func").map(|m| m.as_str()), func, "{line}");
            assert_eq!(c.name("cond").or_else(|| c.name("condo")).map(|m| m.as_str()), cond, "{line}");
        }
    }

    #[test]
    fn an_unclosed_template_bracket_does_not_hide_the_record() {
        let line = "/p/THC/THCTensorIndex.cu:308: void indexSelectSmallIndex(TensorInfo<T, IndexType>, long) [with T = float, IdxDim = -2: block: [0,0,0], thread: [1,0,0] Assertion `srcIndex < srcSelectDimSize` failed.";
        let c = patterns().kernel.captures(line).expect("a match");
        assert_eq!(&c["cond"], "srcIndex < srcSelectDimSize");
        assert_eq!(&c["thread"], "1,0,0");
    }

    #[test]
    fn windows_records_on_one_line_stay_apart() {
        let line = "C:\\a\\X.cu:1: block: [0,0,0], thread: [0,0,0] Assertion `a` failed. C:\\a\\X.cu:1: block: [0,0,0], thread: [1,0,0] Assertion `a` failed.";
        let n = patterns().kernel.captures_iter(line).count();
        assert_eq!(n, 2);
        for c in patterns().kernel.captures_iter(line) {
            assert!(c.name("func").is_none());
        }
    }

    #[test]
    fn cpu_and_hip_asserts_are_told_apart() {
        let p = patterns();
        // glibc's host assert on CPU: no block or thread, so not a kernel line.
        assert!(!p.kernel.is_match(
            "RuntimeError: Assertion `cur_target >= 0 && cur_target < n_classes' failed.  at /x/ClassNLLCriterion.c:92"
        ));
        let c = p
            .kernel_hip
            .captures("/x/Loss.hip:242: void k(float *): Device-side assertion `t >= 0 && t < n_classes' failed.")
            .unwrap();
        assert_eq!(&c["cond"], "t >= 0 && t < n_classes");
    }

    #[test]
    fn prefixes() {
        let p = patterns();
        for (line, rest) in [
            ("[rank0]: RuntimeError: x", "RuntimeError: x"),
            ("14: RuntimeError: x", "RuntimeError: x"),
            ("2022-12-28 16:13:02 [ERROR]  RuntimeError: x", "[ERROR]  RuntimeError: x"),
            ("[W CUDAGuardImpl.h:115] Warning: CUDA warning: x", "Warning: CUDA warning: x"),
            ("W-9000-m_1.0-stderr MODEL_LOG - ../a/b.cu:1: x", "../a/b.cu:1: x"),
            ("[rank: 0] RuntimeError: x", "RuntimeError: x"),
            ("(pid=123) RuntimeError: x", "RuntimeError: x"),
            ("(RayWorkerWrapper pid=4242, ip=10.0.0.1) RuntimeError: x", "RuntimeError: x"),
            ("(VllmWorker rank=2 pid=77) RuntimeError: x", "RuntimeError: x"),
            ("(TaskRunner pid=1234) RuntimeError: x", "RuntimeError: x"),
            ("trainer-1  | RuntimeError: x", "RuntimeError: x"),
        ] {
            let m = p.prefix.find(line).unwrap();
            assert_eq!(&line[m.end()..], rest);
        }
        for line in ["RuntimeError: x", "(see pid=3 above) x", "loss | 0.3", "(a) pid=3 x"] {
            assert!(p.prefix.find(line).is_none(), "{line}");
        }
    }

    #[test]
    fn frames() {
        let p = patterns();
        let c = p.frame_std.captures(r#"  File "/a/b.py", line 12, in forward"#).unwrap();
        assert_eq!((&c["path"], &c["line"], &c["func"]), ("/a/b.py", "12", "forward"));
        let c = p.frame_ipy8.captures("File /x/functional.py:3029, in cross_entropy(input, target)").unwrap();
        assert_eq!(&c["func"], "cross_entropy(input, target)");
        let c = p.frame_cell.captures("Cell In[11], line 13").unwrap();
        assert_eq!(&c["line"], "13");
        let c = p.frame_ipy5.captures("<ipython-input-4-d566ddbd645c> in train(loader, model)").unwrap();
        assert_eq!(&c["func"], "train(loader, model)");
        let c = p.frame_ipy5.captures("/tmp/ipykernel_9488/783220733.py in <cell line: 0>()").unwrap();
        assert_eq!(&c["func"], "<cell line: 0>()");
    }

    #[test]
    fn launch_blocking_set_but_not_the_hint() {
        let p = patterns();
        assert!(p.sets_launch_blocking(r#"os.environ["CUDA_LAUNCH_BLOCKING"] = "1""#));
        assert!(p.sets_launch_blocking("$ CUDA_LAUNCH_BLOCKING=1 python train.py"));
        assert!(p.sets_launch_blocking("%env CUDA_LAUNCH_BLOCKING=1"));
        assert!(p.sets_launch_blocking("export CUDA_LAUNCH_BLOCKING=1"));
        assert!(!p.sets_launch_blocking("For debugging consider passing CUDA_LAUNCH_BLOCKING=1."));
        assert!(!p.sets_launch_blocking("For debugging consider passing CUDA_LAUNCH_BLOCKING=1"));
        assert!(!p.sets_launch_blocking(r#"os.environ["CUDA_LAUNCH_BLOCKING"] = "0""#));
    }
}
