//! Sharing: the redaction table (every row's examples changed, every near miss left alone),
//! the versions table, no generated secret surviving, and snapshots of the Markdown report in
//! English and Chinese (review with `cargo insta review`; never edit the `.snap` files).
#![cfg(not(target_arch = "wasm32"))]

use first_assert::share::{markdown, redact::redact, table, versions};
use first_assert::{analyze_bytes_keeping, Decoded, Lang, Options};
use proptest::prelude::*;
use std::path::Path;

/// The Markdown report of a test input, as `first-assert --format markdown` writes it.
fn shared(dir: &str, case: &str, lang: Lang, hide: bool) -> markdown::Shared {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(case);
    let (r, decoded) = analyze_bytes_keeping(std::fs::read(&p).unwrap(), Some(case), &Options::lang(lang)).unwrap();
    let seen = match &decoded {
        Decoded::Text(t) => versions::seen(t),
        Decoded::Notebook(nb) => versions::seen(&versions::cells_text(&nb.cells)),
    };
    markdown::markdown(&r, &seen, hide)
}

#[test]
fn every_row_changes_its_examples_and_leaves_its_near_misses() {
    for row in &table().redact {
        for ex in &row.examples {
            let (out, counts) = redact(ex);
            assert_ne!(&out, ex, "row `{}` left its example alone", row.pattern);
            assert!(counts.of(&row.kind) > 0, "row `{}`: `{ex}` is not counted as {}", row.pattern, row.kind);
            for w in &row.with {
                assert!(out.contains(w.as_str()), "row `{}`: `{out}` lacks `{w}`", row.pattern);
            }
        }
        for keep in &row.keeps {
            let (out, counts) = redact(keep);
            assert_eq!(&out, keep, "the table changed a near miss of row `{}`", row.pattern);
            assert!(counts.is_empty());
        }
    }
}

#[test]
fn evidence_paths_stay() {
    for p in [
        "  File \"/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py\", line 3029, in cross_entropy",
        "  File \"/opt/conda/lib/python3.11/site-packages/transformers/trainer.py\", line 1555, in train",
        "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: [0,0,0], thread: [0,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
        "C:\\actions-runner\\_work\\pytorch\\pytorch\\aten\\src\\ATen\\native\\cuda\\Loss.cu:250",
        "tensor([[0.2500, 0.1250], [0.0625, 0.5000]], device='cuda:0')",
        "RuntimeError: CUDA error: device-side assert triggered at 0x7f3a2c000000",
    ] {
        assert_eq!(redact(p).0, p);
    }
}

#[test]
fn every_version_row_reads_its_examples() {
    for row in &table().version {
        for ex in &row.examples {
            let seen = versions::seen(ex);
            assert!(
                seen.iter().any(|(w, v)| *w == row.what && !v.is_empty()),
                "`{}` does not read `{ex}`",
                row.pattern
            );
        }
    }
    let seen = versions::seen(
        "torch                    2.1.2+cu121\nTesla T4, 535.104.05\n  File \"/usr/lib/python3.10/x.py\"\n",
    );
    assert_eq!(versions::line(&seen), "PyTorch 2.1.2+cu121 · Python 3.10 · GPU Tesla T4");
    assert!(versions::seen("RuntimeError: CUDA error: device-side assert triggered").is_empty());
}

/// Secrets of every kind the table names, as they are minted.
fn secret() -> impl Strategy<Value = String> {
    prop_oneof![
        "hf_[A-Za-z0-9]{34}",
        "sk-proj-[A-Za-z0-9]{40}",
        "ghp_[A-Za-z0-9]{36}",
        "github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}",
        "AKIA[A-Z0-9]{16}",
        "[a-z]{3,8}\\.[a-z]{2,8}@[a-z]{3,9}\\.(com|org|edu\\.cn|io)",
        "(10|172|192)\\.(0|[1-9][0-9]?)\\.(0|[1-9][0-9]?)\\.[1-9][0-9]?",
        "eyJ[A-Za-z0-9_-]{20}\\.eyJ[A-Za-z0-9_-]{30}\\.[A-Za-z0-9_-]{43}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_generated_secret_survives(s in secret(), before in "[ -~]{0,40}", after in "[ -~]{0,40}", sep in "[ =:\"'(]") {
        let text = format!("{before}{sep}{s} {after}");
        let (out, counts) = redact(&text);
        prop_assert!(!out.contains(&s), "`{}` survived in `{}`", s, out);
        prop_assert!(!counts.is_empty());
    }

    #[test]
    fn no_home_user_survives(user in "[a-z][a-z0-9._-]{1,15}", rest in "[a-z]{1,8}/[a-z]{1,8}\\.py") {
        for home in ["/home/", "/Users/"] {
            let text = format!("  File \"{home}{user}/{rest}\", line 3");
            let (out, _) = redact(&text);
            prop_assert!(!out.contains(&format!("{home}{user}/")), "`{}`", out);
        }
        let (out, _) = redact(&format!("C:\\Users\\{user}\\{rest}"));
        prop_assert!(!out.contains(&format!("Users\\{user}\\")), "`{}`", out);
    }
}

#[test]
fn the_personal_case_before_and_after() {
    let open = shared("tests/share", "personal.log", Lang::En, false).markdown;
    let hidden = shared("tests/share", "personal.log", Lang::En, true);
    for private in ["mlin", "m.lin@example.org", "10.42.7.19", "clients/acme"] {
        assert!(open.contains(private), "the unredacted report shows `{private}`");
        assert!(!hidden.markdown.contains(private), "`{private}` survived redaction");
    }
    let c = hidden.hidden.unwrap();
    assert_eq!((c.of("user"), c.of("folder"), c.of("email"), c.of("ip")), (1, 1, 1, 1));
    assert!(hidden.markdown.contains("site-packages/torch/distributed/rendezvous.py:88"), "the evidence path stays");
}

#[test]
fn host_names_in_every_shape_are_hidden() {
    let open = shared("tests/share", "hosts.log", Lang::En, false).markdown;
    let hidden = shared("tests/share", "hosts.log", Lang::En, true);
    // A logger's key=value line, a Slurm node list, a pod, a cloud instance name, a prompt, a
    // pdsh prefix: each is in the report unredacted, and none survives redaction.
    for private in [
        "zhang.wei@example.com",
        "gpu-node-17",
        "internal.example.org",
        "10.42.7.19",
        "gpu[01-04]",
        "trainer-7d9f8c6b5d-x2kqp",
        "ip-10-0-0-7",
    ] {
        assert!(open.contains(private), "the unredacted report shows `{private}`:\n{open}");
        assert!(!hidden.markdown.contains(private), "`{private}` survived redaction:\n{}", hidden.markdown);
    }
    // A launcher's role stays, and so does the line it prefixes.
    assert!(hidden.markdown.contains("worker-3: step 10 loss 2.31"), "{}", hidden.markdown);
    assert!(hidden.markdown.contains("<host>: ../aten/src/ATen/native/cuda/Loss.cu:250"), "{}", hidden.markdown);
    assert!(hidden.hidden.unwrap().of("host") >= 5);
}

const CASES: &[(&str, &str)] = &[
    ("tests/share", "personal.log"),
    ("tests/cases", "colab-echoes.ipynb"),
    ("tests/cases", "dsa-report.log"),
    ("tests/cases", "out-of-memory.log"),
    ("tests/cases", "empty.log"),
];

#[test]
fn markdown_english() {
    for (dir, case) in CASES {
        insta::assert_snapshot!(format!("{}.en", case.replace('.', "_")), shared(dir, case, Lang::En, true).markdown);
    }
}

#[test]
fn markdown_chinese() {
    for (dir, case) in CASES {
        insta::assert_snapshot!(format!("{}.zh", case.replace('.', "_")), shared(dir, case, Lang::Zh, true).markdown);
    }
}

#[test]
fn code_in_the_input_cannot_break_out_of_its_block() {
    let log = "x = '```'\n../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [0,0,0] Assertion `t >= 0 && t < n_classes` failed.\n````` end\n";
    let (r, _) = analyze_bytes_keeping(log.as_bytes().to_vec(), None, &Options::default()).unwrap();
    let md = markdown::markdown(&r, &[], true).markdown;
    let block = md.split("\n\n").find(|p| p.contains("Assertion") && p.starts_with('`')).unwrap();
    let fence: String = block.chars().take_while(|c| *c == '`').collect();
    assert!(fence.len() > 5, "the fence `{fence}` is not longer than the input's run of backticks");
    assert!(block.trim_end().ends_with(&fence));
}
