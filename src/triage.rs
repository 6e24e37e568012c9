//! Fleet triage: a row per log of a fleet's failed runs, and the rows grouped by where and why.
//!
//! A row says what one log's report says, flat: its verdict, the first assert's line, the site
//! (the kernel's file, function and condition; a host error's form; another CUDA error's kind),
//! the cause, the rank that printed it, and a group key. The key is the site with what changes
//! from run to run taken out (paths, line numbers, block and thread ids, ranks, pids, times,
//! other numbers) and the cause's rule: the same bug on 64 ranks and 40 jobs is one group, two
//! bugs are two. PyTorch CI's log classifier keeps the *last* matching line of a log and groups
//! equal captures; here the *first* device-side assert is what counts, the later ones being its
//! echoes.
//!
//! torchrun's error files (`TORCHELASTIC_ERROR_FILE`, JSON) are rows too: the error they hold,
//! and the time it was written (whole seconds), from which [`first_failures`] tells, per job
//! folder, which rank failed first, ties said as ties.
//!
//! No I/O: the command line and the Python package read the files and hand reports here.

use crate::report::{AssertKind, Report, Verdict};
use serde::{Deserialize, Serialize};

/// One log's row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub path: String,
    /// `device_assert`, `other_cuda_error`, `clean`, `unreadable`, `confirmed`; `error` when
    /// the file could not be read.
    pub verdict: String,
    pub first_assert: Option<RowAssert>,
    /// Where it fired, with nothing of the run in it (see the module's note).
    pub site: Option<String>,
    pub cause: Option<RowCause>,
    /// The rank that printed the first assert (a launcher's prefix, torchrun's word, the file's
    /// name), when one says.
    pub rank: Option<u32>,
    /// The group key: 16 hex digits of a hash of the site and the cause's rule.
    pub group: String,
    /// Why the file could not be read, when it could not.
    pub error: Option<String>,
    /// torchrun's own: the rank its summary names as the first observed failure, or the time
    /// a rank's error file was written (unix seconds).
    pub elastic: Option<RowElastic>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowAssert {
    pub text: String,
    pub line: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowCause {
    pub category: String,
    /// The rule's id.
    pub id: String,
    pub confidence: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowElastic {
    /// The rank torchrun's summary names as the first observed failure (a log's), or the rank
    /// an error file is for.
    pub first_rank: Option<u32>,
    /// The ranks failed in the same second as it (a log's summary).
    pub ties: Vec<u32>,
    /// When an error file was written (unix seconds, as torchrun writes it).
    pub error_time: Option<u64>,
}

/// A log's row, from its report.
pub fn row(path: &str, r: &Report) -> Row {
    let (site, kind) = site(r);
    let cause = r.cause.as_ref().filter(|_| r.verdict != Verdict::Clean).map(|c| RowCause {
        category: c.category.id().to_string(),
        id: c.rule.clone(),
        confidence: c.confidence,
    });
    let first_assert = r.first_assert.as_ref().map(|f| RowAssert { text: f.text.clone(), line: f.at.line });
    let rank = first_assert.as_ref().and_then(|f| rank_in_line(&f.text)).or_else(|| rank_in_path(path));
    let group = group_key(r.verdict.id(), kind, site.as_deref(), cause.as_ref().map(|c| c.id.as_str()));
    let elastic = r.root_cause.as_ref().map(|rc| RowElastic { first_rank: rc.rank, ties: rc.ties.clone(), error_time: None });
    Row { path: path.to_string(), verdict: r.verdict.id().to_string(), first_assert, site, cause, rank, group, error: None, elastic }
}

/// The row of a file that could not be read or decoded: it is counted, never lost.
pub fn error_row(path: &str, error: &str) -> Row {
    Row {
        path: path.to_string(),
        verdict: "error".into(),
        first_assert: None,
        site: None,
        cause: None,
        rank: rank_in_path(path),
        group: group_key("error", "error", None, None),
        error: Some(error.to_string()),
        elastic: None,
    }
}

/// The site of a report, with the run taken out, and its kind (`kernel`, `host`, `other`,
/// `none`).
fn site(r: &Report) -> (Option<String>, &'static str) {
    if let Some(fa) = &r.first_assert {
        if let (Some(s), AssertKind::KernelAssert | AssertKind::DsaReport) = (&fa.site, fa.kind) {
            let file = s.file.rsplit(['/', '\\']).next().unwrap_or(&s.file);
            let mut out = file.to_string();
            for part in [s.function.as_deref(), s.condition.as_deref().map(|c| c.trim())].into_iter().flatten() {
                out.push_str(": ");
                out.push_str(part);
            }
            return (Some(out), "kernel");
        }
        // A host error: its message's form, from the error's name on, numbers taken out.
        let text = crate::scan::prefix::strip_known(fa.text.trim());
        return (Some(format!("{} ({})", without_numbers(host_form(text)), fa.dialect)), "host");
    }
    if let Some(o) = r.other_errors.first() {
        return (Some(o.kind.clone()), "other");
    }
    (None, "none")
}

/// A host error line from its error's words on (`CUDA error: device-side assert triggered`):
/// the launcher's prefix and the exception's name before them (`RuntimeError`, PyTorch 2.8's
/// `torch.AcceleratorError`: the same error in two versions) left out.
fn host_form(text: &str) -> &str {
    let at = ["CUDA error", "HIP error", "CUDA Error", "device-side assert", "Device-side assert"]
        .iter()
        .filter_map(|k| text.find(k))
        .min()
        .unwrap_or(0);
    text[at..].trim()
}

/// Digit runs as `#`: what differs between runs of the same bug in a host line (ranks, pids,
/// device ordinals, times) is not part of its form.
fn without_numbers(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !digits {
                out.push('#');
            }
            digits = true;
        } else {
            out.push(c);
            digits = false;
        }
    }
    out
}

/// The group key: 16 hex digits of FNV-1a over the verdict, the site's kind, the site and the
/// cause's rule.
fn group_key(verdict: &str, kind: &str, site: Option<&str>, cause: Option<&str>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in [verdict, kind, site.unwrap_or(""), cause.unwrap_or("")] {
        for b in part.bytes().chain([0]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The rank a launcher's prefix names at the start of a line: `[rank3]:`, `[default3]:`,
/// `rank 3:`, `[RANK 3]`, `(… rank=3 …)`.
pub fn rank_in_line(line: &str) -> Option<u32> {
    let t = line.trim_start();
    for (open, close) in [("[rank", ']'), ("[default", ']'), ("[RANK", ']'), ("[Rank", ']'), ("rank", ':'), ("RANK", ':')] {
        if let Some(rest) = t.strip_prefix(open) {
            let rest = rest.trim_start();
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if !digits.is_empty() && rest[digits.len()..].trim_start().starts_with(close) {
                return digits.parse().ok();
            }
        }
    }
    let paren = t.strip_prefix('(')?.split(')').next()?;
    let rest = paren.split_once("rank=")?.1;
    rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
}

/// The rank a file's path names: a part `rank3`, `rank_3`, `rank-3`, `rank=3` (a name, or a
/// folder), or torchrun's error-file folder (`attempt_0/3/error.json`: its local rank).
pub fn rank_in_path(path: &str) -> Option<u32> {
    let parts: Vec<&str> = path.split(['/', '\\']).collect();
    for part in parts.iter().rev() {
        let lower = part.to_ascii_lowercase();
        let mut rest = lower.as_str();
        while let Some(i) = rest.find("rank") {
            let after = rest[i + 4..].trim_start_matches(['_', '-', '=']);
            let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
            // Not a word that goes on (`ranking`) nor `local_rank` of a non-number.
            if !digits.is_empty() && (i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphabetic()) {
                return digits.parse().ok();
            }
            rest = &rest[i + 4..];
        }
    }
    match parts.as_slice() {
        [.., attempt, n, file] if attempt.starts_with("attempt_") && file.ends_with(".json") => n.parse().ok(),
        _ => None,
    }
}

/// A torchrun error file (`TORCHELASTIC_ERROR_FILE`): the error it holds (its message and the
/// traceback, as a log to analyse) and when it was written (unix seconds).
pub struct ErrorFile {
    pub text: String,
    pub time: Option<u64>,
}

/// `{"message": {"message": "<Type>: <str>", "extraInfo": {"py_callstack": "…", "timestamp": "…"}}}`
/// (torch.distributed.elastic's error handler), or `None` for any other JSON.
pub fn error_file(json: &str) -> Option<ErrorFile> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let m = v.get("message")?;
    // Older error files hold the message as a string.
    let (message, extra) = match m {
        serde_json::Value::String(s) => (s.as_str(), None),
        _ => (m.get("message")?.as_str()?, m.get("extraInfo")),
    };
    let stack = extra.and_then(|e| e.get("py_callstack")).and_then(|s| s.as_str()).unwrap_or("");
    let time = extra.and_then(|e| e.get("timestamp")).and_then(|t| t.as_str().and_then(|s| s.parse().ok()).or_else(|| t.as_u64()));
    let text = if stack.is_empty() { format!("{message}\n") } else { format!("{stack}\n{message}\n") };
    Some(ErrorFile { text, time })
}

/// The row of an error file: the error's report's row, with its time.
pub fn error_file_row(path: &str, r: &Report, time: Option<u64>) -> Row {
    let mut row = row(path, r);
    row.elastic = Some(RowElastic { first_rank: row.rank, ties: Vec::new(), error_time: time });
    row
}

/// Per job (the folder an error file is in, up to torchrun's `attempt_N` folder), the ranks
/// whose error files were written first: one rank, or several written in the same second
/// (torchrun keeps whole seconds, so which of them failed first is not known).
pub fn first_failures(rows: &[Row]) -> Vec<JobFirst> {
    let mut jobs: Vec<JobFirst> = Vec::new();
    for r in rows {
        let (Some(e), Some(rank)) = (&r.elastic, r.rank) else { continue };
        let Some(t) = e.error_time else { continue };
        let job = job_of(&r.path);
        match jobs.iter_mut().find(|j| j.job == job) {
            Some(j) if t < j.time => (j.time, j.ranks) = (t, vec![rank]),
            Some(j) if t == j.time && !j.ranks.contains(&rank) => j.ranks.push(rank),
            Some(_) => {}
            None => jobs.push(JobFirst { job, time: t, ranks: vec![rank] }),
        }
    }
    for j in &mut jobs {
        j.ranks.sort_unstable();
    }
    jobs.sort_by(|a, b| a.job.cmp(&b.job));
    jobs
}

/// A job's first failure by torchrun's error files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JobFirst {
    pub job: String,
    /// Unix seconds.
    pub time: u64,
    /// One rank, or the ranks tied in that second.
    pub ranks: Vec<u32>,
}

/// The job an error file belongs to: its path up to the `attempt_N` folder (or its folder).
fn job_of(path: &str) -> String {
    let parts: Vec<&str> = path.split(['/', '\\']).collect();
    let end = parts.iter().rposition(|p| p.starts_with("attempt_")).unwrap_or(parts.len().saturating_sub(1));
    parts[..end].join("/")
}

/// A group of rows: the same site and cause.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    pub group: String,
    pub count: u64,
    pub verdict: String,
    pub site: Option<String>,
    pub cause: Option<String>,
    /// The first path (in path order) of the group.
    pub example: String,
    /// How many ranks, of those named, printed it.
    pub ranks: u64,
}

/// The groups of `rows`, largest first (then by key, so the order is stable).
pub fn groups(rows: &[Row]) -> Vec<Group> {
    let mut out: Vec<(Group, Vec<u32>)> = Vec::new();
    for r in rows {
        let i = match out.iter().position(|(g, _)| g.group == r.group) {
            Some(i) => i,
            None => {
                let g = Group {
                    group: r.group.clone(),
                    count: 0,
                    verdict: r.verdict.clone(),
                    site: r.site.clone(),
                    cause: r.cause.as_ref().map(|c| c.id.clone()),
                    example: r.path.clone(),
                    ranks: 0,
                };
                out.push((g, Vec::new()));
                out.len() - 1
            }
        };
        let (g, ranks) = &mut out[i];
        g.count += 1;
        if r.path < g.example {
            g.example = r.path.clone();
        }
        if let Some(rank) = r.rank.filter(|rank| !ranks.contains(rank)) {
            ranks.push(rank);
        }
    }
    let mut groups: Vec<Group> = out
        .into_iter()
        .map(|(mut g, ranks)| {
            g.ranks = ranks.len() as u64;
            g
        })
        .collect();
    groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.group.cmp(&b.group)));
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_from_prefixes_and_paths() {
        for (line, rank) in [
            ("[rank3]: RuntimeError: x", Some(3)),
            ("[default12]:Assertion", Some(12)),
            ("rank 5: x", Some(5)),
            ("(RayWorkerWrapper pid=4242, ip=10.0.0.1) x", None),
            ("(VllmWorker rank=2 pid=77) x", Some(2)),
            ("RuntimeError: CUDA error", None),
        ] {
            assert_eq!(rank_in_line(line), rank, "{line}");
        }
        for (path, rank) in [
            ("jobs/41/rank_7.log.gz", Some(7)),
            ("jobs/41/rank-12/stderr.log", Some(12)),
            ("node3/logs/train-rank3.txt", Some(3)),
            ("ranking/results.log", None),
            ("/tmp/torchelastic_x/none_y/attempt_0/5/error.json", Some(5)),
            ("plain.log", None),
        ] {
            assert_eq!(rank_in_path(path), rank, "{path}");
        }
    }

    #[test]
    fn host_forms_lose_their_launchers_and_numbers() {
        let a = host_form("[rank3]: RuntimeError: CUDA error: device-side assert triggered");
        assert_eq!(a, "CUDA error: device-side assert triggered");
        assert_eq!(host_form("torch.AcceleratorError: CUDA error: device-side assert triggered"), a);
        assert_eq!(without_numbers("pid 7720 on cuda:3"), "pid # on cuda:#");
    }

    #[test]
    fn error_files_as_torchrun_writes_them() {
        let j = r#"{"message": {"message": "RuntimeError: CUDA error: device-side assert triggered", "extraInfo": {"py_callstack": "Traceback (most recent call last):\n  File \"t.py\", line 3, in f\n    x = y[i]\n", "timestamp": "1764749710"}}}"#;
        let e = error_file(j).unwrap();
        assert_eq!(e.time, Some(1_764_749_710));
        assert!(e.text.ends_with("RuntimeError: CUDA error: device-side assert triggered\n") && e.text.starts_with("Traceback"));
        assert!(error_file(r#"{"other": 1}"#).is_none() && error_file("not json").is_none());
    }

    #[test]
    fn first_failures_by_job_with_ties() {
        let r = |path: &str, rank: u32, t: u64| Row {
            rank: Some(rank),
            elastic: Some(RowElastic { first_rank: Some(rank), ties: vec![], error_time: Some(t) }),
            ..error_row(path, "")
        };
        let rows = [
            r("a/attempt_0/0/error.json", 0, 12),
            r("a/attempt_0/1/error.json", 1, 10),
            r("a/attempt_0/2/error.json", 2, 10),
            r("b/attempt_0/3/error.json", 3, 7),
        ];
        let f = first_failures(&rows);
        assert_eq!(f, [JobFirst { job: "a".into(), time: 10, ranks: vec![1, 2] }, JobFirst { job: "b".into(), time: 7, ranks: vec![3] }]);
    }
}
