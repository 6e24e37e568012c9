//! Properties of the analysis over generated logs (proptest): it never panics; unrelated lines
//! around the output never change the first assert; CRLF, ANSI colour and per-process prefixes
//! never change the result; and the same text split into notebook cells gives the same result.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::rules::RULES;
use first_assert::{analyze_bytes, analyze_cells, analyze_text, Cell, CellType, Options, Output, OutputKind, Report};
use proptest::prelude::*;

/// A kernel record of one of the rules' sites.
fn record() -> impl Strategy<Value = String> {
    let sites: Vec<(&str, &str, &str)> = RULES
        .iter()
        .flat_map(|r| r.sites.iter())
        .filter_map(|s| s.condition.map(|c| (s.file, s.function.unwrap_or("operator()"), c)))
        .collect();
    (0..sites.len(), 0u32..200, 0u32..128).prop_map(move |(i, b, t)| {
        let (file, func, cond) = sites[i];
        format!("../aten/src/ATen/native/cuda/{file}:{}: {func}: block: [{b},0,0], thread: [{t},0,0] Assertion `{cond}` failed.", 40 + i)
    })
}

/// Lines of an ordinary training run: nothing an error reader looks for.
fn noise() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..100, 0u32..1000)
            .prop_map(|(p, s)| format!("{p:3}%|#####     | {s}/1000 [00:12<00:40, 8.31it/s, loss=0.{s:03}]")),
        (1u32..50).prop_map(|e| format!("Epoch {e}: train loss 0.{e:02}1 val acc 0.8{e}")),
        "[a-z ]{0,40}".prop_map(|s| s.trim().to_string()),
        Just(String::new()),
    ]
}

const TRACEBACK: &str = "Traceback (most recent call last):\n  File \"/content/train.py\", line 57, in <module>\n    loss = criterion(model(x), y)\n";
const ERROR: &str = "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1";

/// A failing run: some records of one site, a traceback, the error, maybe echoes.
fn failing_log() -> impl Strategy<Value = Vec<String>> {
    (record(), 1usize..5, any::<bool>(), 0usize..3).prop_map(|(rec, n, tb, echoes)| {
        let mut lines: Vec<String> = std::iter::repeat_n(rec, n).collect();
        if tb {
            lines.extend(TRACEBACK.lines().map(str::to_string));
        }
        lines.extend(ERROR.lines().map(str::to_string));
        for _ in 0..echoes {
            lines.push("RuntimeError: CUDA error: device-side assert triggered".into());
        }
        lines
    })
}

/// What must not change: the first assert (its site and kind; the quoted text keeps a
/// prefix such as `[rank0]: `, as the log shows it), the cause, the echo count.
fn gist(r: &Report) -> (Option<String>, Option<String>, u64) {
    (
        r.first_assert.as_ref().map(|f| match &f.site {
            Some(s) => {
                format!("{:?} {} {:?} {:?} {:?} {:?}", f.kind, s.file, s.line, s.function, s.condition, s.thread)
            }
            None => format!("{:?} {}", f.kind, f.text),
        }),
        r.cause.as_ref().map(|c| format!("{}/{:?}", c.rule, c.category)),
        r.echo_count,
    )
}

fn analyze(lines: &[String]) -> Report {
    analyze_text(&(lines.join("\n") + "\n"), &Options::default())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let _ = analyze_bytes(&bytes, None, &Options::default());
        let _ = analyze_bytes(&bytes, Some("x.ipynb"), &Options::default());
    }

    #[test]
    fn never_panics_on_mixed_log_text(parts in proptest::collection::vec(prop_oneof![record(), noise(), Just(ERROR.to_string()), Just(TRACEBACK.to_string()), "\\PC{0,80}"], 0..40)) {
        let _ = analyze(&parts);
    }

    #[test]
    fn unrelated_lines_around_change_nothing(log in failing_log(), before in proptest::collection::vec(noise(), 0..30), after in proptest::collection::vec(noise(), 0..30)) {
        let plain = analyze(&log);
        let padded = analyze(&[before.clone(), log, after].concat());
        prop_assert_eq!(gist(&plain), gist(&padded));
        let (a, b) = (plain.first_assert.unwrap(), padded.first_assert.unwrap());
        prop_assert_eq!(a.at.line + before.len() as u64, b.at.line, "the line moves by exactly the lines added");
    }

    #[test]
    fn crlf_colour_and_rank_prefixes_change_nothing(log in failing_log(), rank in 0u32..8) {
        let plain = gist(&analyze(&log));
        let crlf = gist(&analyze_text(&(log.join("\r\n") + "\r\n"), &Options::default()));
        let colour: Vec<String> = log.iter().map(|l| if l.contains("Error") { format!("\x1b[0;31m{l}\x1b[0m") } else { format!("\x1b[1m{l}\x1b[22m") }).collect();
        let ranked: Vec<String> = log.iter().map(|l| format!("[rank{rank}]: {l}")).collect();
        prop_assert_eq!(&plain, &crlf);
        prop_assert_eq!(&plain, &gist(&analyze(&colour)));
        prop_assert_eq!(&plain, &gist(&analyze(&ranked)));
    }

    #[test]
    fn splitting_into_cells_changes_nothing(log in failing_log(), cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..4)) {
        let whole = analyze(&log);
        // Cut the lines into consecutive cells (one stream output each), in run order.
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(log.len() + 1)).collect();
        at.extend([0, log.len()]);
        at.sort_unstable();
        at.dedup();
        let cells: Vec<Cell> = at.windows(2).enumerate().map(|(i, w)| Cell {
            index: i as u32,
            execution_count: Some(i as i64 + 1),
            cell_type: CellType::Code,
            outputs: vec![Output { kind: OutputKind::Stream, name: Some("stderr".into()), text: log[w[0]..w[1]].join("\n") + "\n" }],
            ..Default::default()
        }).collect();
        let split = analyze_cells(&cells, &Options::default());
        let (w, s) = (gist(&whole), gist(&split));
        prop_assert_eq!(w.0, s.0);
        prop_assert_eq!(w.1, s.1);
    }
}
