//! The table of bad inputs (README, "Bad input") and the behaviour each must get from the
//! command line: a report (exit 0 or 1) or a clear message and exit 2 — never a panic or a
//! hang. The largest rows (a 50 MB line, 1 GiB of text) are in tests/cli.rs; the browser's
//! side (a thrown Error, a visible message) is in tests/web.rs and tests/e2e.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;
use std::process::{Command, Stdio};

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(name: &str, bytes: &[u8]) -> Outcome {
    let dir = std::env::temp_dir().join(format!("fa-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_first-assert")).arg("--json").arg(&path).output().expect("runs");
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn stdin(bytes: &[u8]) -> Outcome {
    let mut child = Command::new(env!("CARGO_BIN_EXE_first-assert"))
        .arg("--json")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = bytes.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A report: exit 0 (clean) or 1 (found something), JSON on stdout.
fn report(o: &Outcome, what: &str) -> serde_json::Value {
    assert!(o.code == 0 || o.code == 1, "{what}: exit {} ({})", o.code, o.stderr);
    serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{what}: no report: {e}"))
}

/// Refused: exit 2, one line that says why, nothing on stdout, no panic text.
fn refused(o: &Outcome, what: &str, says: &str) {
    assert_eq!(o.code, 2, "{what}: exit {} ({})", o.code, o.stderr);
    assert!(o.stdout.is_empty(), "{what}: printed a report");
    assert!(o.stderr.contains(says), "{what}: says {:?}", o.stderr);
    assert!(!o.stderr.contains("panicked"), "{what}: panicked");
}

const ASSERT: &str = "RuntimeError: CUDA error: device-side assert triggered\n";

#[test]
fn empty_and_whitespace_are_clean() {
    for (what, bytes) in [("empty", &b""[..]), ("whitespace", b" \n\t\r\n   \n"), ("newlines", &[b'\n'; 100_000][..])] {
        let r = report(&stdin(bytes), what);
        assert_eq!(r["verdict"], "clean", "{what}");
    }
}

#[test]
fn binary_files_are_refused() {
    for (what, bytes) in [
        ("zip", &b"PK\x03\x04\x14\x00\x00\x00\x08\x00rest"[..]),
        ("png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
        ("elf", b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"),
        ("gzip", b"\x1f\x8b\x08\x00\x00\x00\x00\x00"),
        ("zeros", &[0u8; 4096][..]),
    ] {
        refused(&stdin(bytes), what, "first-assert: error:");
    }
}

#[test]
fn invalid_utf8_and_nul_are_read() {
    let mut bytes = b"epoch 1 \xff\xfe\xc3\x28 loss\n".to_vec();
    bytes.extend_from_slice(b"x\0y\0\n");
    bytes.extend_from_slice(ASSERT.as_bytes());
    let r = report(&stdin(&bytes), "invalid utf-8");
    assert_eq!(r["verdict"], "device_assert");
    assert_eq!(r["input"]["lossy_utf8"], true);
    assert_eq!(r["input"]["nul_bytes"], 2);
}

#[test]
fn broken_notebooks_are_refused_with_the_reason() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_obj = format!("{{\"cells\": {}{}}}", "[".repeat(10_000), "]".repeat(10_000));
    for (what, json, says) in [
        ("truncated", r#"{"cells": [{"cell_type": "code", "outputs": [{"output_type": "stream", "text": "RuntimeError: CUDA er"#.to_string(), "cannot read the notebook"),
        ("not json", "this is not json {".to_string(), "cannot read the notebook"),
        ("wrong shape", r#"{"notebook": true}"#.to_string(), "cannot read the notebook"),
        ("cells not a list", r#"{"cells": 3}"#.to_string(), "cannot read the notebook"),
        ("outputs not a list", r#"{"cells": [{"cell_type": "code", "outputs": "x"}]}"#.to_string(), "outputs"),
        ("text of a wrong type", r#"{"cells": [{"cell_type": "code", "outputs": [{"output_type": "stream", "name": "stderr", "text": 5}]}]}"#.to_string(), "text"),
        ("traceback of a wrong type", r#"{"cells": [{"cell_type": "code", "outputs": [{"output_type": "error", "traceback": {"a": 1}}]}]}"#.to_string(), "traceback"),
        ("nested 10 000 deep", deep, "cannot read the notebook"),
        ("cells nested 10 000 deep", deep_obj, "cannot read the notebook"),
    ] {
        refused(&run("bad.ipynb", json.as_bytes()), what, says);
    }
}

#[test]
fn a_million_cells_are_read() {
    let mut nb = String::from("{\"nbformat\": 4, \"cells\": [");
    for i in 0..1_000_000 {
        if i > 0 {
            nb.push(',');
        }
        if i == 999_990 {
            nb.push_str(r#"{"cell_type":"code","execution_count":999991,"source":"y = f(x)","outputs":[{"output_type":"error","ename":"RuntimeError","evalue":"CUDA error: device-side assert triggered","traceback":["RuntimeError: CUDA error: device-side assert triggered"]}]}"#);
        } else {
            nb.push_str(r#"{"cell_type":"code","execution_count":null,"source":"","outputs":[]}"#);
        }
    }
    nb.push_str("]}");
    let r = report(&run("huge.ipynb", nb.as_bytes()), "a million cells");
    assert_eq!(r["verdict"], "device_assert");
    assert_eq!(r["input"]["cells"], 1_000_000);
    assert_eq!(r["first_assert"]["cell"], 999_990);
}

#[test]
fn inputs_built_to_slow_patterns_down_are_read() {
    let mut log = Vec::new();
    for line in [
        "`".repeat(200_000),
        "[".repeat(200_000),
        "]".repeat(200_000),
        "1234567890".repeat(20_000),
        format!("/x/Loss.cu:1: f: block: [{}], thread: [0,0,0] Assertion `{}", "0,".repeat(50_000), "`".repeat(50_000)),
        format!("{}Assertion `t >= 0` failed.", "block: [".repeat(20_000)),
        format!("File \"{}\", line 1, in f", "/a".repeat(50_000)),
        format!("RuntimeError: {}", "CUDA error: ".repeat(20_000)),
        "\u{1b}[".repeat(100_000),
        "&lt;".repeat(100_000),
    ] {
        log.extend_from_slice(line.as_bytes());
        log.push(b'\n');
    }
    log.extend_from_slice(ASSERT.as_bytes());
    let r = report(&stdin(&log), "pathological lines");
    assert_eq!(r["verdict"], "device_assert");
}
