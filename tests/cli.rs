//! The `first-assert` command: usage, exit codes, output forms, terminal safety and bad input.
#![cfg(not(target_arch = "wasm32"))]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const KERNEL: &str = "../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_first-assert"));
    c.env_remove("LANG").env_remove("LC_ALL").env_remove("LC_MESSAGES").env_remove("NO_COLOR");
    c
}

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases").join(name)
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child =
        bin().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().unwrap();
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("first-assert-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn help_and_version() {
    let out = bin().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s = text(&out.stdout);
    assert!(
        s.contains("Usage: first-assert [--format text|json|markdown|html] [--no-redact]") && s.contains("Exit status"),
        "{s}"
    );
    let out = bin().arg("-V").output().unwrap();
    assert_eq!(text(&out.stdout).trim(), format!("first-assert {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn first_assert_index_gives_a_notebook_the_extensions_lines() {
    let nb = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/colab-echoes.ipynb");
    let out = bin().env("FIRST_ASSERT_INDEX", "https://example.org/fa/simple").arg(&nb).output().unwrap();
    let s = text(&out.stdout);
    assert!(s.contains("%pip install first-assert --index-url https://example.org/fa/simple/\n"), "{s}");
    assert!(!s.contains("Paste the probe cell first"), "{s}");
    let md = bin().env("FIRST_ASSERT_INDEX", "https://example.org/fa/simple/").args(["--format", "markdown"]).arg(&nb).output().unwrap();
    assert!(text(&md.stdout).contains("%pip install first-assert --index-url https://example.org/fa/simple/"));
    let plain = bin().env_remove("FIRST_ASSERT_INDEX").arg(&nb).output().unwrap();
    assert!(text(&plain.stdout).contains("Paste the probe cell first") && !text(&plain.stdout).contains("%pip"));
    let bad = bin().env("FIRST_ASSERT_INDEX", "first-assert.github.io").arg(&nb).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("FIRST_ASSERT_INDEX"), "{}", text(&bad.stderr));
}

#[test]
fn format_html_is_the_kernels_card() {
    let log = tmp("card.log", b"Assertion `t >= 0 && t < n_classes` failed.\nRuntimeError: CUDA error: device-side assert triggered <script>\n");
    let out = bin().args(["--format", "html"]).arg(&log).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = text(&out.stdout);
    assert!(s.starts_with("<div ") && s.contains("data-first-assert-card=\"device_assert\""), "{s}");
    assert!(s.contains("%load_ext first_assert") && !s.contains("<script"), "{s}");
}

#[test]
fn probe_prints_the_cell_alone_with_the_causes_suspects() {
    let log = tmp(
        "probe.log",
        b"Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [2,0,0] Assertion `t >= 0 && t < n_classes` failed.\n",
    );
    let out = bin().args(["--probe", "--lang", "zh"]).arg(&log).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "the exit status still says an assert was found");
    let code = text(&out.stdout);
    assert!(code.starts_with("# first-assert 探针单元格"), "{code}");
    assert!(code.contains("\n_SUSPECTS = (\"loss\",)\n") && code.trim_end().ends_with("first_assert_probe.on()"));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    // The text report names the command instead of printing a page of Python.
    let out = bin().args(["--lang", "en", "--color", "never"]).arg(&log).output().unwrap();
    let report = text(&out.stdout);
    assert!(report.contains("Put the probe at the top of the script") && report.contains("first-assert --probe "), "{report}");
    assert!(!report.contains("TorchFunctionMode"));
    // With no assert: the probe without suspects, and a word on stderr.
    let clean = tmp("clean.log", b"epoch 1 loss 0.3\n");
    let out = bin().args(["--probe", "--lang", "en"]).arg(&clean).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("\n_SUSPECTS = ()\n"));
    assert!(text(&out.stderr).contains("no device-side assert"), "{}", text(&out.stderr));
}

#[test]
fn bad_usage_exits_2_with_a_message() {
    for (args, needle) in [
        (vec!["--bogus"], "unknown option `--bogus`"),
        (vec!["--lang", "fr", "x.log"], "--lang takes en or zh"),
        (vec!["--lang"], "--lang needs a value"),
        (vec!["--color", "sometimes", "x"], "--color takes auto, always or never"),
        (vec!["a.log", "b.log"], "give one FILE at most"),
        (vec!["/definitely/not/here.log"], "no such file"),
        (vec![env!("CARGO_MANIFEST_DIR")], "is a directory"),
    ] {
        let out = bin().args(&args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!err.contains("\\u{"), "{args:?}: newlines printed as escapes: {err}");
    }
    // The usage after an error reads as the help does: line by line.
    let out = bin().arg("--bogus").stdin(Stdio::null()).output().unwrap();
    let err = text(&out.stderr);
    assert!(err.lines().any(|l| l.starts_with("Usage: first-assert")), "{err}");
    assert!(err.lines().count() > 15, "{err}");
    // A control character in what the user typed still shows as an escape.
    let out = bin().arg("--bo\x1b[31mgus").stdin(Stdio::null()).output().unwrap();
    assert!(!text(&out.stderr).contains('\x1b'));
}

#[test]
fn chinese_punctuation_and_no_rule_ids_unless_verbose() {
    let host = b"RuntimeError: CUDA error: device-side assert triggered\n";
    let zh = text(&run_stdin(&["--lang", "zh", "--color", "never"], host).stdout);
    // A full-width colon or parenthesis takes no space around it.
    assert!(!zh.contains("： ") && !zh.contains(" ("), "{zh}");
    assert!(zh.contains("从这段输出看不出原因——最常见的是：类别标签越界（这类错误的 42%）"), "{zh}");
    assert!(zh.contains("traceback：没有 traceback"), "{zh}");
    let en = text(&run_stdin(&["--color", "never"], host).stdout);
    assert!(en.contains("Cause unknown from this output — most often: A class label is out of range ("), "{en}");
    assert!(en.contains("(42% of these errors)"), "shares, not certainty: {en}");
    assert!(!en.contains("no-evidence") && !en.contains("rule:"), "{en}");
    let verbose = text(&run_stdin(&["--color", "never", "--verbose"], host).stdout);
    assert!(verbose.contains("rule: no-evidence"), "{verbose}");
}

#[test]
fn exit_status_follows_the_verdict() {
    assert_eq!(run_stdin(&["-"], KERNEL.as_bytes()).status.code(), Some(1));
    assert_eq!(run_stdin(&[], b"epoch 1 loss 0.3\n").status.code(), Some(0));
    let oom = b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n";
    let out = run_stdin(&["--json"], oom);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "other_cuda_error");
}

#[test]
fn no_colour_in_a_pipe_and_colour_when_asked() {
    let plain = run_stdin(&[], KERNEL.as_bytes());
    assert!(!plain.stdout.contains(&0x1b), "colour escapes in a pipe");
    let forced = run_stdin(&["--color", "always"], KERNEL.as_bytes());
    assert!(forced.stdout.contains(&0x1b));
    let mut c = bin();
    c.env("NO_COLOR", "1");
    let out = c.arg("--color=never").arg(case("windows-indexkernel.log")).output().unwrap();
    assert!(!out.stdout.contains(&0x1b));
}

#[test]
fn language_from_flag_and_from_the_environment() {
    let out = run_stdin(&["--lang", "zh"], KERNEL.as_bytes());
    assert!(text(&out.stdout).contains("怎么办"), "{}", text(&out.stdout));
    let mut c = bin();
    c.env("LANG", "zh_CN.UTF-8");
    let out = c.arg(case("windows-indexkernel.log")).output().unwrap();
    assert!(text(&out.stdout).contains("怎么办"));
    let out = run_stdin(&["--json", "--lang", "en"], KERNEL.as_bytes());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["lang"], "en");
}

#[test]
fn escape_sequences_from_the_input_never_reach_the_terminal() {
    let hostile = format!(
        "\x1b]0;owned\x07\x1b[2Jepoch 1\nRuntimeError: CUDA error: device-side assert triggered \x1b]8;;http://evil\x07click\x1b]8;;\x07 \u{202e}gnp.exe\u{9b}31m\n{KERNEL}\x1b[?1049h\n"
    );
    for args in [&["--color", "never"][..], &["--color", "always"][..]] {
        let out = run_stdin(args, hostile.as_bytes());
        let s = text(&out.stdout);
        // Every escape in the output is one of ours: a colour code.
        let mut rest = s.as_str();
        while let Some(i) = rest.find('\x1b') {
            let tail = &rest[i + 1..];
            let ok = tail.starts_with('[')
                && tail[1..].find('m').is_some_and(|m| tail[1..1 + m].chars().all(|c| c.is_ascii_digit() || c == ';'));
            assert!(ok, "a raw escape reached the output: {:?}", &tail[..tail.len().min(20)]);
            rest = tail;
        }
        assert!(!s.contains('\u{202e}') && !s.contains('\u{9b}') && !s.contains('\u{7}'), "{s}");
    }
}

/// Every escape in `s` is one of ours (a colour code), and no bidi or C1 control is raw.
fn only_our_escapes(s: &str, what: &str) {
    let mut rest = s;
    while let Some(i) = rest.find('\x1b') {
        let tail = &rest[i + 1..];
        let ok = tail.starts_with('[')
            && tail[1..].find('m').is_some_and(|m| tail[1..1 + m].chars().all(|c| c.is_ascii_digit() || c == ';'));
        assert!(ok, "{what}: a raw escape reached the output: {:?}", &tail[..tail.len().min(20)]);
        rest = tail;
    }
    for c in ['\u{202e}', '\u{2066}', '\u{2069}', '\u{200f}', '\u{9b}', '\u{7}', '\u{8}', '\u{90}'] {
        assert!(!s.contains(c), "{what}: {c:?} reached the output");
    }
}

#[test]
fn the_payload_corpus_reaches_the_terminal_as_text() {
    let corpus: serde_json::Value = serde_json::from_str(include_str!("payloads.json")).unwrap();
    for p in corpus["payloads"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()) {
        // In the kernel line's condition, the traceback's code, the error and an echo.
        let log = format!(
            "/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && {p}` failed.\n\
             Traceback (most recent call last):\n  File \"/content/{p}.py\", line 3, in <module>\n    loss = criterion(out, {p})\n\
             RuntimeError: CUDA error: device-side assert triggered {p}\nRuntimeError: CUDA error: device-side assert triggered {p}\n"
        );
        for args in [&["--color", "never"][..], &["--color", "always"][..], &["--lang", "zh"][..]] {
            let out = run_stdin(args, log.as_bytes());
            assert_eq!(out.status.code(), Some(1), "{p:?}");
            only_our_escapes(&text(&out.stdout), p);
        }
        // JSON keeps the text (escaped by JSON, inert in any consumer that parses it).
        let out = run_stdin(&["--json"], log.as_bytes());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["verdict"], "device_assert", "{p:?}");
    }
}

#[test]
fn errors_and_help_speak_the_chosen_language() {
    let out = bin().args(["--lang", "zh", "/definitely/not/here.log"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("文件不存在"), "{}", text(&out.stderr));
    let mut c = bin();
    c.env("LANG", "zh_CN.UTF-8");
    let out = c.arg("--help").output().unwrap();
    assert!(text(&out.stdout).contains("用法"), "{}", text(&out.stdout));
    let gz = tmp("zh.gz", b"\x1f\x8b\x08\x00\x00\x00");
    let out = bin().args(["--lang=zh"]).arg(gz).output().unwrap();
    assert!(text(&out.stderr).contains("压缩文件"), "{}", text(&out.stderr));
}

#[test]
fn empty_input_is_clean_with_a_note() {
    let out = run_stdin(&["--json"], b"");
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "clean");
    assert!(v["notes"].as_array().unwrap().iter().any(|n| n["id"] == "empty_input"));
}

#[test]
fn binary_files_are_refused_clearly() {
    let gz = tmp("log.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcb\x48\xcd\xc9\xc9\x07\x00");
    let out = bin().arg(&gz).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("compressed file (gzip)"), "{}", text(&out.stderr));
    let junk: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 32) as u8).collect();
    let out = run_stdin(&[], &junk);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("binary"));
}

#[test]
fn invalid_utf8_and_nul_bytes_are_read_and_reported() {
    let mut data = b"noise \xc3\x28 \xff\x00\x00 more\n".to_vec();
    data.extend_from_slice(KERNEL.as_bytes());
    let out = run_stdin(&["--json"], &data);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["input"]["lossy_utf8"], true);
    assert_eq!(v["input"]["nul_bytes"], 2);
    assert_eq!(v["first_assert"]["line"], 2);
}

#[test]
fn a_50_mb_single_line_is_read_without_trouble() {
    let mut line = Vec::with_capacity(50 << 20);
    while line.len() < 50 << 20 {
        line.extend_from_slice(b"0.123 loss 4.56 |#####| it/s ");
    }
    line.extend_from_slice(KERNEL.as_bytes());
    let started = std::time::Instant::now();
    let out = run_stdin(&["--json"], &line);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["first_assert"]["line"], 1);
    assert_eq!(v["first_assert"]["text_truncated"], true);
    assert!(v["first_assert"]["text"].as_str().unwrap().len() <= 2100);
    assert!(v["first_assert"]["text"].as_str().unwrap().contains("Assertion `t >= 0"));
    assert!(v["input"]["long_lines"].as_u64().unwrap() >= 1);
    // Not a benchmark: a generous bound that only a hang or a quadratic blow-up would break.
    assert!(started.elapsed().as_secs() < 120);
}

/// The same line ending in a record that lost its head: read by its core.
#[test]
fn a_50_mb_single_line_ending_in_a_bare_record_is_reported() {
    let mut line = Vec::with_capacity(50 << 20);
    while line.len() < 50 << 20 {
        line.extend_from_slice(b"0.123 loss 4.56 |#####| it/s ");
    }
    line.extend_from_slice(b"Assertion `t >= 0 && t < n_classes` failed.\n");
    let out = run_stdin(&["--json"], &line);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["first_assert"]["kind"], "kernel_assert");
    assert_eq!(v["first_assert"]["site"]["condition"], "t >= 0 && t < n_classes");
    assert_eq!(v["cause"]["category"], "invalid_label");
}

/// Waits for one child and returns its exit code and peak resident memory in KiB. (Other
/// tests spawn children in parallel, so process-wide `RUSAGE_CHILDREN` would mix them up.)
fn wait_with_rss(child: std::process::Child) -> (i32, i64) {
    let mut status = 0;
    // SAFETY: plain syscalls on structs we own; the child is ours and not reaped elsewhere.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4 failed");
    std::mem::forget(child);
    (libc::WEXITSTATUS(status), ru.ru_maxrss)
}

#[test]
fn a_1_gib_log_streams_with_bounded_memory() {
    let mut child =
        bin().arg("--json").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut chunk = Vec::with_capacity(1 << 20);
        let mut i = 0u64;
        while chunk.len() < (1 << 20) - 100 {
            chunk.extend_from_slice(
                format!("epoch 3 step {i:>7} | loss 0.{:04} | lr 3.0e-4 | 12.5 it/s\n", i % 9973).as_bytes(),
            );
            i += 1;
        }
        let mut written = 0usize;
        while written < (1 << 30) {
            if stdin.write_all(&chunk).is_err() {
                return;
            }
            written += chunk.len();
        }
        let _ =
            stdin.write_all(format!("{KERNEL}\nRuntimeError: CUDA error: device-side assert triggered\n").as_bytes());
    });
    let mut stdout = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut stdout).unwrap();
    let (code, rss) = wait_with_rss(child);
    writer.join().unwrap();
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    assert!(v["input"]["bytes"].as_u64().unwrap() > 1 << 30);
    assert!(v["first_assert"]["text"].as_str().unwrap().starts_with("../aten"));
    // The host line is the assert's report (raised_at), not an echo of it.
    assert_eq!(v["echo_count"], 0);
    assert!(v["raised_at"]["text"].as_str().unwrap().starts_with("RuntimeError"));
    eprintln!("peak memory for a 1 GiB log: {rss} KiB");
    assert!(rss < 64 * 1024, "peak memory {rss} KiB for a 1 GiB log");
}

/// A notebook is read whole, but one cell at a time: its peak memory is the file and its
/// cells, not a JSON tree of it (which took 90 MB for a notebook like this one). The file is
/// written in pieces so that this process stays small (a spawned child's peak RSS can count
/// the parent's pages until the exec).
#[test]
fn a_22_mb_notebook_stays_under_64_mb() {
    let path = tmp("big.ipynb", b"");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let line = "  7%|#         | 1510/21800 [02:14<30:07, 11.22it/s, loss=0.6931, lr=3.00e-04]\\n";
    let lines: Vec<String> = (0..500).map(|i| format!("\"{i:>5}{line}\"")).collect();
    let output = format!("{{\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [{}]}}", lines.join(", "));
    let kernel = format!("{{\"output_type\": \"stream\", \"name\": \"stderr\", \"text\": [\"{KERNEL}\\n\"]}}");
    write!(w, "{{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {{}}, \"cells\": [").unwrap();
    for i in 0..500 {
        let outputs = if i == 300 { &kernel } else { &output };
        let sep = if i > 0 { ",\n" } else { "" };
        write!(w, "{sep}{{\"cell_type\": \"code\", \"execution_count\": {i}, \"metadata\": {{}}, \"source\": [\"train()\"], \"outputs\": [{outputs}]}}").unwrap();
    }
    write!(w, "]}}").unwrap();
    drop(w);
    let mb = std::fs::metadata(&path).unwrap().len() >> 20;
    assert!(mb >= 20, "{mb} MB");
    let mut child = bin().arg("--json").arg(&path).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdout = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut stdout).unwrap();
    let (code, rss) = wait_with_rss(child);
    assert_eq!(code, 1, "{}", String::from_utf8_lossy(&stdout));
    let v: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(v["first_assert"]["cell"], 300);
    eprintln!("peak memory for a {mb} MB notebook: {rss} KiB");
    assert!(rss < 64 * 1024, "peak memory {rss} KiB for a {mb} MB notebook");
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let mut big = String::new();
    for _ in 0..2000 {
        big.push_str(KERNEL);
        big.push('\n');
        big.push_str("RuntimeError: CUDA error: device-side assert triggered\n");
    }
    let mut child = bin().stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let w = std::thread::spawn(move || {
        let _ = stdin.write_all(big.as_bytes());
    });
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // stdout is dropped here: the reader went away after a few bytes.
    let out = child.wait_with_output().unwrap();
    w.join().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!text(&out.stderr).contains("error"), "{}", text(&out.stderr));
}

#[test]
fn notebooks_by_extension_and_by_content() {
    let out = bin().arg("--json").arg(case("colab-echoes.ipynb")).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["input"]["format"], "notebook");
    // The same notebook piped in without a name is recognised by its content.
    let bytes = std::fs::read(case("colab-echoes.ipynb")).unwrap();
    let out = run_stdin(&["--json"], &bytes);
    let w: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(w["first_assert"], v["first_assert"]);
    // A log that happens to start with `{` is still a log.
    let out = run_stdin(&["--json"], format!("{{'epoch': 1}}\n{KERNEL}\n").as_bytes());
    let x: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(x["input"]["format"], "text");
    assert_eq!(x["first_assert"]["line"], 2);
}

#[test]
fn a_runtime_log_joins_a_notebook_or_a_log() {
    let notebook = case("colab-no-kernel-lines.ipynb");
    // Colab's download: newest row first.
    let log = tmp(
        "runtime-logs.csv",
        format!(
            "Timestamp,Level,Message\n\"Dec 1, 2026, 10:01:17 AM\",WARNING,\"{}\"\n\"Dec 1, 2026, 10:01:17 AM\",WARNING,\"{}\"\n",
            KERNEL.replace("[5,0,0]", "[6,0,0]"),
            KERNEL
        )
        .as_bytes(),
    );
    let log_path = log.to_str().unwrap();
    let out = bin().arg(&notebook).args(["--log", log_path, "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["first_assert"]["runtime_log"], true, "{r}");
    assert_eq!(r["first_assert"]["line"], 3, "the oldest row is the last line");
    assert_eq!(r["cause"]["rule"], "class-target-out-of-range");
    assert_eq!(r["input"]["runtime_log"]["form"], "csv");
    // The text report points into the log by its name.
    let out = bin().args(["--log", log_path]).arg(&notebook).output().unwrap();
    let s = text(&out.stdout);
    assert!(s.contains(&format!("--> {log_path}:3")), "{s}");
    assert!(s.contains("come from the runtime log you gave"), "{s}");
    // A piped log with the runtime log beside it.
    let out = run_stdin(&["--log", log_path, "--json"], b"RuntimeError: CUDA error: device-side assert triggered\n");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["first_assert"]["runtime_log"], true, "{r}");
    assert_eq!(r["echo_count"], 0, "the piped host line is where Python raised it: {r}");
    // The log alone is an input of its own.
    let out = bin().arg(&log).arg("--json").output().unwrap();
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["input"]["format"], "runtime_log");
    assert!(r["first_assert"].get("runtime_log").is_none(), "{r}");
    // Errors: a missing file, no value.
    let out = bin().arg(&notebook).args(["--log", "/nonexistent/runtime.csv"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/runtime.csv"), "{}", text(&out.stderr));
    let out = bin().arg(&notebook).arg("--log").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--log"), "{}", text(&out.stderr));
}

/// "训练开始：第 1 轮" in GB18030 (as a Chinese Windows console writes it) and in UTF-8.
const GB_LINE: &[u8] = b"# \xd1\xb5\xc1\xb7\xbf\xaa\xca\xbc\xa3\xba\xb5\xda 1 \xc2\xd6";
const GB_LINE_UTF8: &str = "# 训练开始：第 1 轮";

#[test]
fn gb18030_logs_are_decoded_streamed_and_mapped() {
    // Small (read as a stream), with 700 KB of ASCII before the first Chinese line (the choice is
    // made there, not in the first 64 KB), and over the size that is mapped into memory (1 MiB).
    for filler in [0usize, 40_000, 70_000] {
        let mut bytes = Vec::new();
        for i in 0..filler {
            bytes.extend_from_slice(format!("step {i} loss 0.5\n").as_bytes());
        }
        bytes.extend_from_slice(GB_LINE);
        bytes.extend_from_slice(b"\n");
        bytes.extend_from_slice(KERNEL.as_bytes());
        bytes.extend_from_slice(b"\n");
        bytes.extend_from_slice(GB_LINE);
        bytes.extend_from_slice(b"\nRuntimeError: CUDA error: device-side assert triggered\n");
        assert!(std::str::from_utf8(&bytes).is_err());
        let path = tmp(&format!("gbk-{filler}.log"), &bytes);
        let out = bin().args(["--json", "--lang", "zh"]).arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("GB18030"), "{}", text(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["input"]["lossy_utf8"], false);
        assert_eq!(report["first_assert"]["line"], filler + 2);
        let context: Vec<&str> =
            report["first_assert"]["context"].as_array().unwrap().iter().map(|c| c["text"].as_str().unwrap()).collect();
        assert!(context.contains(&GB_LINE_UTF8), "{context:?}");
    }
    // UTF-8 stays UTF-8 (no note), and so does a file that is neither (replacement characters, as before).
    let utf8 = tmp("utf8.log", format!("{GB_LINE_UTF8}\n{KERNEL}\n").as_bytes());
    let out = bin().arg("--json").arg(&utf8).output().unwrap();
    assert!(!text(&out.stderr).contains("GB18030"));
    // 0xFF is no lead byte in UTF-8 or GB18030.
    let neither = tmp("neither.log", &[KERNEL.as_bytes(), b"\n\xff\xff\n"].concat());
    let out = bin().arg("--json").arg(&neither).output().unwrap();
    assert!(!text(&out.stderr).contains("GB18030"), "{}", text(&out.stderr));
}

#[test]
fn markdown_is_redacted_unless_asked_and_a_bad_format_is_named() {
    let log = "  File \"/home/alice/train.py\", line 3, in <module>\n../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [0,0,0] Assertion `t >= 0 && t < n_classes` failed.\nRuntimeError: CUDA error: device-side assert triggered\n";
    let p = tmp("share.log", log.as_bytes());
    let out = bin().args(["--format", "markdown"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "an assert found, as for every format");
    let md = text(&out.stdout);
    assert!(
        md.starts_with("## CUDA device-side assert\n") && md.contains("/home/<user>/") && !md.contains("alice"),
        "{md}"
    );
    assert!(text(&out.stderr).contains("1 user name"), "stderr says what was hidden");
    let out = run_stdin(&["--format=markdown", "--no-redact", "-"], log.as_bytes());
    assert!(text(&out.stdout).contains("/home/alice/"));
    let out = bin().args(["--format", "yaml"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown format `yaml`"));
}

#[test]
fn the_json_holds_the_probes_code_once() {
    let log = b"Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n    loss.item()\nRuntimeError: CUDA error: device-side assert triggered\n";
    let json = text(&run_stdin(&["--json"], log).stdout);
    let r: serde_json::Value = serde_json::from_str(&json).unwrap();
    let code = r["probe"]["code"].as_str().expect("the probe's code");
    assert_eq!(json.matches(&serde_json::to_string(code).unwrap()[1..40]).count(), 1, "the probe's code once");
    let step = r["checklist"].as_array().unwrap().iter().find(|s| s["id"] == "probe").expect("the probe's step");
    assert!(step["code"].is_null(), "the step points at report.probe: {step}");
    assert!(json.len() < code.len() + 12_000, "{} bytes for a 4-line input, {} of them the probe", json.len(), code.len());
}
