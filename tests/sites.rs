//! Every kernel assertion site the rules know (`[[site]]` in `rules/*.toml`, which list the
//! device-side asserts of PyTorch's CUDA kernels) printed the ways PyTorch prints it: the
//! engine must name the site's rule, its category and its op. The same records quoted in
//! code or prose must not count as output.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::rules::{RuleDef, SiteDef, RULES};
use first_assert::{analyze_text, Options, Report, Verdict};

const HOST: &str = "RuntimeError: CUDA error: device-side assert triggered\n\
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n";

/// Where a file lives in the source tree, as far as a printed path shows it.
fn tree(file: &str) -> &'static str {
    if file == "safe_conv.h" {
        "c10/util/"
    } else if file == "NanCheck.cu" || file == "Utils.cu" {
        "torch/csrc/distributed/c10d/"
    } else if file == "CUDAGraph.cu" {
        "aten/src/ATen/cuda/"
    } else if file.starts_with("THC") {
        "aten/src/THC/"
    } else if file.starts_with("THCUNN")
        || file.contains("Criterion")
        || file.starts_with("Spatial")
        || file.starts_with("Volumetric")
    {
        "aten/src/THCUNN/"
    } else {
        "aten/src/ATen/native/cuda/"
    }
}

/// The ways a site's record is printed: (name, line).
fn printed(s: &SiteDef, n: usize) -> Vec<(&'static str, String)> {
    let cond = s.condition.unwrap_or("false");
    let dir = tree(s.file);
    let func = s.function.unwrap_or("operator()");
    let ids = format!("block: [{},0,0], thread: [{},0,0]", n % 97, (n * 7) % 128);
    let mut v = vec![
        ("pip", format!("/pytorch/{dir}{}:{}: {func}: {ids} Assertion `{cond}` failed.", s.file, 100 + n)),
        ("relative", format!("../{dir}{}:{}: {func}: {ids} Assertion `{cond}` failed.", s.file, 40 + n)),
        ("conda", format!("/opt/conda/conda-bld/pytorch_1678402412426/work/{dir}{}:{}: {func}: {ids} Assertion `{cond}` failed.", s.file, 7 + n)),
        ("windows", format!("C:\\actions-runner\\_work\\pytorch\\pytorch\\builder\\windows\\pytorch\\{}{}:{}: {ids} Assertion `{cond}` failed.", dir.replace('/', "\\"), s.file, 90 + n)),
        ("torchrun", format!("[rank3]: ../{dir}{}:{}: {func}: {ids} Assertion `{cond}` failed.", s.file, 60 + n)),
        ("markdown", format!("> `/pytorch/{dir}{}:{}: {func}: {ids} Assertion `{cond}` failed.`", s.file, 12 + n)),
        // The build prefixes of PyTorch's CI (GitHub Actions) and of NGC containers.
        ("actions", format!("/__w/pytorch/pytorch/{dir}{}:{}: {func}: {ids} Assertion `{cond}` failed.", s.file, 111 + n)),
        ("ngc", format!("/opt/pytorch/pytorch/{dir}{}:{}: {func}: {ids} Assertion `{cond}` failed.", s.file, 93 + n)),
    ];
    // Shapes real output gives records: cut at the start by a paste or a terminal's scroll,
    // split over two lines, glued to a progress bar and to the host line, Triton's heads.
    let pip = format!("/pytorch/{dir}{}:{}: {func}: {ids} Assertion `{cond}` failed.", s.file, 100 + n);
    let cut_at = if n.is_multiple_of(2) { pip.find("ad: [").unwrap_or(0) } else { pip.find(": block").unwrap_or(0) };
    v.push(("cut", pip[cut_at..].to_string()));
    v.push(("split", pip.replacen(" Assertion", "\nAssertion", 1)));
    v.push(("progress", format!(" 37%|███▋      | 37/100 [00:04<00:07,  8.41it/s]{pip}")));
    v.push(("host-glued", format!("{pip}RuntimeError: CUDA error: device-side assert triggered")));
    v.push(("triton-unknown", format!("unknown:0: unknown: {ids} Assertion `{cond}` failed.")));
    v.push((
        "triton-frozen",
        format!(
            "<frozen importlib._bootstrap_external>:843: _call_with_frames_removed: {ids} Assertion `{cond}` failed."
        ),
    ));
    if dir.contains("THC") {
        v.push(("thc", format!("/pytorch/{dir}{}:{}: void {func}(T *, T *, long *, int, int) [with T = float, AccumT = float, IndexType = unsigned int]: {ids} Assertion `{cond}` failed.", s.file, 30 + n)));
    }
    v
}

/// The shapes that lose the record's file: the rule comes from the condition.
fn by_condition(dialect: &str) -> bool {
    matches!(dialect, "cut" | "triton-unknown" | "triton-frozen")
}

fn key(c: &str) -> String {
    c.chars().filter(|c| !c.is_whitespace()).collect()
}

fn report(log: &str) -> Report {
    analyze_text(log, &Options::default())
}

fn sites() -> Vec<(&'static RuleDef, &'static SiteDef)> {
    RULES.iter().flat_map(|r| r.sites.iter().map(move |s| (r, s))).collect()
}

#[test]
fn every_site_names_its_rule_category_and_op() {
    let all = sites();
    assert!(all.len() >= 140, "the site table shrank to {}", all.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    for (n, (rule, site)) in all.iter().enumerate() {
        for (dialect, line) in printed(site, n) {
            if by_condition(dialect) && site.condition.is_none() {
                continue;
            }
            // Three threads' worth of the record, then the host error, as a run prints them.
            let log = format!("{line}\n{line}\n{line}\n{HOST}");
            let r = report(&log);
            checked += 1;
            let Some(f) = &r.first_assert else {
                failures.push(format!("{} [{dialect}]: no first assert in {line}", rule.id));
                continue;
            };
            if f.kind != first_assert::report::AssertKind::KernelAssert {
                failures.push(format!("{} [{dialect}]: first assert is not the kernel line", rule.id));
            }
            let Some(c) = &r.cause else {
                failures.push(format!("{} [{dialect}]: no cause", rule.id));
                continue;
            };
            if by_condition(dialect) && site.condition.is_some_and(|c| matches!(c.trim(), "0" | "false")) {
                // `false` (a switch's default, in several rules' files) without its file tells
                // nothing: no site-table rule is guessed (a Triton-shaped record is read as an
                // assert whose message stands for the condition).
                if !matches!(c.rule.as_str(), "no-evidence" | "assert-async-message") {
                    failures.push(format!("{} [{dialect}]: guessed rule {} for {line}", rule.id, c.rule));
                }
                continue;
            }
            if by_condition(dialect) {
                // Without its file the record names a rule by its condition: any rule whose
                // site has that condition will do.
                let fits = |r: &RuleDef| r.sites.iter().any(|t| t.condition.map(key) == site.condition.map(key));
                if !RULES.iter().any(|r| r.id == c.rule && fits(r)) {
                    failures
                        .push(format!("{} [{dialect}]: got rule {} ({:?}) for {line}", rule.id, c.rule, c.category));
                }
                continue;
            }
            if c.rule != rule.id || c.category != rule.category {
                failures.push(format!("{} [{dialect}]: got rule {} ({:?}) for {line}", rule.id, c.rule, c.category));
            }
            let want_op = site.op.map(str::to_string).unwrap_or_else(|| rule.ops.join(" | "));
            let got_op = c.ops.join(" | ");
            if site.op.is_some() && dialect != "windows" && got_op != want_op {
                failures.push(format!("{} [{dialect}]: op {got_op:?}, want {want_op:?}", rule.id));
            }
            if site.op.is_none() && !rule.ops.iter().any(|o| c.ops.iter().any(|g| g == o)) && c.ops.len() != 1 {
                failures.push(format!("{} [{dialect}]: ops {:?}", rule.id, c.ops));
            }
        }
    }
    assert!(checked >= 1500, "{checked}");
    assert!(failures.is_empty(), "{} of {checked} printed sites misread:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn quoted_records_are_not_output() {
    let mut failures = Vec::new();
    for (n, (rule, site)) in sites().iter().enumerate() {
        let (_, line) = &printed(site, n)[0];
        for quoted in [
            format!(">>> print(\"{line}\")"),
            format!("    msg = '{line}'"),
            format!("logger.warning('known issue, fixed in 2.1: {line}')"),
            format!("If you see `{line}`, your labels are out of range."),
            format!("assert ok, \"{line}\""),
            format!("    raise RuntimeError(\"{line}\")"),
            format!(">>> '{line}'"),
            format!("How do I fix `{line}`?"),
            format!("`{line}` usually means a class label is out of range."),
            format!("如果看到 `{line}`，说明标签越界。"),
        ] {
            let r = report(&format!("epoch 1: loss 0.31\n{quoted}\nepoch 2: loss 0.28\n"));
            if r.verdict != Verdict::Clean {
                failures.push(format!("{}: {:?} for {quoted}", rule.id, r.verdict));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Records whose file says nothing of the op: the condition names the rule (the TMA and
/// vectorized scatter kernels' messages, the Triton kernels Inductor generates), whatever head
/// they are printed with.
#[test]
fn kernels_without_a_file_classify() {
    let ids = "block: [7,0,0], thread: [33,0,0]";
    for cond in [
        r#"ind >= 0 && ind < self_dim_size && "tma scatter add index out of bounds""#,
        r#"ind >= 0 && ind < self_dim_size && "tma scatter reduce index out of bounds""#,
        r#"ind >= 0 && ind < self_dim_size && "tma scatter min/max index out of bounds""#,
        r#"ind >= 0 && ind < self_dim_size && "vectorized scatter add kernel index out of bounds""#,
        "index out of bounds: 0 <= tmp4 < ks0",
        "index out of bounds: 0 <= tmp84 < 120",
        "index out of bounds: 0 <= tmp12 < (-1) + ks0",
        "index out of bounds: 0 <= tmp3 < libdevice.trunc(0.120000000000000*(ks0.to(tl.float64))).to(tl.int32)",
    ] {
        for line in [
            format!("Assertion `{cond}` failed."),
            format!("unknown:0: unknown: {ids} Assertion `{cond}` failed."),
            format!("<frozen importlib._bootstrap_external>:843: _call_with_frames_removed: {ids} Assertion `{cond}` failed."),
            format!("/tmp/torchinductor_root/qx/cqxw7nd3kfa2.py:27: triton_poi_fused_index_0: {ids} Assertion `{cond}` failed."),
            // Triton took the Python caller's frame; vLLM's and AOTInductor's caches; Intel
            // GPUs' ids, which may stand on a line of their own.
            format!("<frozen runpy>:198: _run_code: {ids} Assertion `{cond}` failed."),
            format!("/root/.cache/vllm/torch_compile_cache/torch_aot_compile/5e1d/rank_0_0/inductor_cache/q7/cq7mx2.py:53: unknown: {ids} Assertion `{cond}` failed."),
            format!("/var/tmp/torchinductor_alice/kb/ckbz4r.py:31: unknown: {ids} Assertion `{cond}` failed."),
            format!("/usr/lib/python3/site-packages/torch/_inductor/runtime/triton_helpers.py:248: unknown: global id: [4,0,0], local id: [9,0,0] Assertion `{cond}` failed."),
            format!("/usr/lib/python3/site-packages/torch/_inductor/runtime/triton_helpers.py:248: unknown: global id: [4,0,0], local id: [9,0,0]\nAssertion `{cond}` failed."),
        ] {
            let r = report(&format!("{line}\n{HOST}"));
            let c = r.cause.as_ref().unwrap_or_else(|| panic!("no cause for {line}"));
            assert_eq!(c.category, first_assert::Category::IndexOutOfBounds, "{line}: {}", c.rule);
            assert_eq!(r.first_assert.unwrap().kind, first_assert::report::AssertKind::KernelAssert, "{line}");
        }
    }
}
