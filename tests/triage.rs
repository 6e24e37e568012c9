//! `first-assert triage` on a generated fleet (tests/fleet): a row per file, nothing lost, the
//! same bug one group whatever the rank, prefix, path, PyTorch version or gzip, two bugs two
//! groups; torchrun's error files tell which rank failed first, ties as ties; bad files are
//! rows with their error; the exit status says whether any assert was found.
#![cfg(not(target_arch = "wasm32"))]

mod fleet;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_first-assert"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("first-assert-triage-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn triage(args: &[&str], paths: &[&Path]) -> (i32, String, String) {
    let out = bin().arg("triage").args(args).args(paths).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn rows(jsonl: &str) -> Vec<Value> {
    jsonl.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

#[test]
fn a_fleet_is_one_row_per_file_and_one_group_per_bug() {
    let dir = tmp("fleet");
    let truth = fleet::write(&dir, 40, 6, 8, 7).unwrap();
    let (code, out, err) = triage(&["--format", "jsonl", "--jobs", "2"], &[&dir]);
    assert_eq!(code, 1, "asserts found: {err}");
    let rows = rows(&out);
    assert_eq!(rows.len(), truth.logs.len() + truth.error_files.len(), "every file a row");
    let by_path: BTreeMap<String, &Value> = rows.iter().map(|r| (r["path"].as_str().unwrap().to_string(), r)).collect();
    assert!(rows.iter().all(|r| r["error"].is_null()), "no file unreadable");
    // Every log where its rank fired: a device-side assert, at its first record.
    let mut groups: BTreeMap<String, BTreeSet<String>> = BTreeMap::new(); // bug -> its groups
    let mut gz = 0;
    for (path, bug, fires) in &truth.logs {
        let r = by_path[&path.to_string_lossy().to_string()];
        gz += usize::from(path.extension().is_some_and(|e| e == "gz"));
        let want = match bug {
            _ if *fires => "device_assert",
            fleet::Bug::Clean => "clean",
            _ => "other_cuda_error",
        };
        assert_eq!(r["verdict"], want, "{}: {r}", path.display());
        groups.entry(format!("{bug:?}/{}", r["verdict"])).or_default().insert(r["group"].as_str().unwrap().to_string());
        if *fires {
            assert!(r["first_assert"]["text"].as_str().unwrap().contains("Assertion `"), "{r}");
            let rank: u32 = path.file_name().unwrap().to_string_lossy().trim_start_matches("rank_").split('.').next().unwrap().parse().unwrap();
            assert_eq!(r["rank"], rank, "the rank from the prefix or the file's name: {r}");
        }
    }
    assert!(gz >= truth.logs.len() / 12, "{gz} gzipped logs");
    // The same bug is one group, whatever the job, rank, prefix, version and compression; the
    // asserting bugs are as many groups as bugs.
    for (bug, g) in &groups {
        assert_eq!(g.len(), 1, "{bug} split into {g:?}");
    }
    let asserting: BTreeSet<&String> = groups.iter().filter(|(k, _)| k.ends_with("\"device_assert\"")).flat_map(|(_, g)| g).collect();
    let distinct: BTreeSet<String> = truth.logs.iter().filter(|l| l.2).map(|l| format!("{:?}", l.1)).collect();
    assert_eq!(asserting.len(), distinct.len(), "one group per bug: {distinct:?}");
    eprintln!("{} files ({} gzipped, {} error files), {} bugs that fired: {} groups of first asserts", rows.len(), gz, truth.error_files.len(), distinct.len(), asserting.len());
    // torchrun's error files: their rows, and the first failure of each job, ties as ties.
    for (f, t) in &truth.error_files {
        let r = by_path[&f.to_string_lossy().to_string()];
        assert_eq!(r["elastic"]["error_time"], *t, "{r}");
    }
    let (_, table, _) = triage(&["--format", "table"], &[&dir]);
    assert!(table.contains("First failures by torchrun's error files"), "{table}");
    let tied = truth.error_files.iter().filter(|(f, _)| f.to_string_lossy().contains("/attempt_0/")).count();
    assert!(tied > 0);
    let mut by_job: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for (f, t) in &truth.error_files {
        by_job.entry(f.parent().unwrap().parent().unwrap().parent().unwrap().to_string_lossy().into_owned()).or_default().push(*t);
    }
    let ties = by_job.values().filter(|ts| ts.iter().filter(|&&t| t == *ts.iter().min().unwrap()).count() > 1).count();
    assert_eq!(table.matches("in the same second").count(), ties, "{table}");
    eprintln!("{table}");
}

#[test]
fn bad_files_are_rows_with_their_error_and_the_exit_status_says_what_was_found() {
    let dir = tmp("bad");
    std::fs::write(dir.join("binary.bin"), [0u8, 159, 146, 150, 0, 1, 2, 3].repeat(1000)).unwrap();
    std::fs::write(dir.join("cut.log.gz"), [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xfe]).unwrap();
    std::fs::write(dir.join("broken.ipynb"), b"{\"cells\": [").unwrap();
    std::fs::write(dir.join("clean.log"), b"epoch 1 loss 0.5\nepoch 2 loss 0.4\n").unwrap();
    let missing = dir.join("no-such-folder");
    let (code, out, _) = triage(&["--format", "jsonl"], &[&dir, &missing]);
    assert_eq!(code, 0, "no assert anywhere: {out}");
    let rows = rows(&out);
    assert_eq!(rows.len(), 5, "{out}");
    let err = |name: &str| rows.iter().find(|r| r["path"].as_str().unwrap().ends_with(name)).unwrap()["error"].as_str().map(str::to_string);
    for name in ["binary.bin", "cut.log.gz", "broken.ipynb", "no-such-folder"] {
        assert!(err(name).is_some_and(|e| !e.is_empty()), "{name}: {out}");
    }
    assert!(err("cut.log.gz").unwrap().contains("gzip"), "{out}");
    assert!(err("clean.log").is_none());
    // One assert somewhere: exit 1.
    std::fs::write(dir.join("assert.log"), b"[rank0]: RuntimeError: CUDA error: device-side assert triggered\n").unwrap();
    let (code, csv, _) = triage(&["--format", "csv"], &[&dir]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "path,verdict,line,first_assert,site,category,cause,confidence,rank,group,error");
    assert_eq!(lines.len(), 1 + 5);
    assert!(csv.contains(",device_assert,1,[rank0]: RuntimeError: CUDA error: device-side assert triggered,CUDA error: device-side assert triggered (cuda_error),"), "{csv}");
    // Usage errors: exit 2.
    assert_eq!(triage(&[], &[]).0, 2);
    assert_eq!(triage(&["--jobs", "0"], &[&dir]).0, 2);
    assert_eq!(triage(&["--format", "xml"], &[&dir]).0, 2);
}

#[test]
fn a_single_logs_report_names_torchruns_root_cause_and_its_ties() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/torchrun-root-cause.log");
    let out = bin().arg("--json").arg(&case).output().unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["root_cause"]["rank"], 2);
    assert_eq!(r["root_cause"]["ties"], serde_json::json!([6]));
    let (_, jsonl, _) = triage(&["--format", "jsonl"], &[&case]);
    let row = &rows(&jsonl)[0];
    assert_eq!(row["elastic"]["first_rank"], 2);
    assert_eq!(row["rank"], 2, "the rank that printed the first record");
}
