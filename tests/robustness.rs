//! Hostile and broken input: the engine must never panic, never hang, and keep its bounds.
//! Mutations are seeded, so a failure reproduces.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_bytes, analyze_notebook, analyze_text, InputFormat, Options, TextAnalyzer, Verdict};
use std::path::Path;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const SPICE: &[&[u8]] = &[
    b"\x1b[31m",
    b"\r",
    b"\n",
    b"\x00",
    b"\xff\xfe",
    b"`",
    b"[",
    b"]",
    b"**",
    b"&lt;",
    b"\\n",
    b"\xe6\x96\xad\xe8\xa8\x80",
    b"Assertion `",
    b"block: [",
    b"thread: [",
    b"Traceback (most recent call last):\n",
    b"  File \"x.py\", line 1, in f\n",
    b"RuntimeError: CUDA error: device-side assert triggered\n",
    b"\xef\xbc\x9a",
    b"{\"cells\": [",
    b"\t",
    b"\xe2\x94\x82",
];

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(6) {
        let at = rng.below(v.len() + 1);
        match rng.below(5) {
            0 => v.truncate(at),
            1 => {
                let s = SPICE[rng.below(SPICE.len())];
                v.splice(at..at, s.iter().copied());
            }
            2 if !v.is_empty() => {
                let end = (at + rng.below(64)).min(v.len());
                v.drain(at.min(end)..end);
            }
            3 if !v.is_empty() => {
                let from = rng.below(v.len());
                let end = (from + rng.below(200)).min(v.len());
                let chunk = v[from..end].to_vec();
                v.splice(at..at, chunk);
            }
            _ => {
                if let Some(b) = v.get_mut(at) {
                    *b = rng.next() as u8;
                }
            }
        }
    }
    v
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().ends_with(".expect.json"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

#[test]
fn mutated_fixtures_never_panic() {
    let mut rng = Rng(0x05ee_df1a_57a5_5e47);
    let fx = fixtures();
    for round in 0..40 {
        for (name, bytes) in &fx {
            let m = mutate(&mut rng, bytes);
            let r = std::panic::catch_unwind(|| {
                let _ = analyze_bytes(&m, Some(name), &Options::default());
                // Fed in odd-sized chunks, too.
                let mut a = TextAnalyzer::new();
                for c in m.chunks(1 + (m.len() % 97)) {
                    a.feed(c);
                }
                a.finish(&Options::default())
            });
            assert!(r.is_ok(), "panic on round {round} of {name}; input: {:?}", String::from_utf8_lossy(&m));
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(42);
    for _ in 0..300 {
        let n = rng.below(4096);
        let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        let _ = analyze_bytes(&bytes, None, &Options::default());
        let _ = analyze_notebook(&String::from_utf8_lossy(&bytes), &Options::default());
    }
}

#[test]
fn a_stream_in_blocks_of_any_size_gives_the_whole_texts_report_byte_for_byte() {
    // As the page's worker reads a large file (and the CLI a mapped one): blocks of 1 byte,
    // 7 bytes, 64 KB and 4 MB, each report's JSON the same as the whole text's.
    let mut compared = 0;
    for (name, bytes) in fixtures() {
        let Ok(whole) = analyze_bytes(&bytes, None, &Options::default()) else { continue };
        if matches!(whole.input.format, InputFormat::Notebook | InputFormat::Cells) {
            continue;
        }
        let want = first_assert::report_json::json(&whole);
        for size in [1, 7, 64 << 10, 4 << 20] {
            let mut a = TextAnalyzer::new();
            bytes.chunks(size).for_each(|c| a.feed(c));
            let got = first_assert::report_json::json(&a.finish(&Options::default()));
            assert!(got == want, "{name} in blocks of {size} bytes: the report differs");
        }
        compared += 1;
    }
    assert!(compared >= 60, "only {compared} inputs compared");
}

#[test]
fn chunking_does_not_change_the_report() {
    // A streamed input split anywhere gives the same report as the whole text.
    let mut rng = Rng(7);
    for (name, bytes) in fixtures().iter().filter(|(n, _)| n.ends_with(".log")) {
        let whole = analyze_bytes(bytes, None, &Options::default());
        let Ok(whole) = whole else { continue };
        if whole.input.format != InputFormat::Text {
            continue;
        }
        for _ in 0..5 {
            let mut a = TextAnalyzer::new();
            let mut rest: &[u8] = bytes;
            while !rest.is_empty() {
                let n = 1 + rng.below(rest.len().min(300));
                a.feed(&rest[..n]);
                rest = &rest[n..];
            }
            let chunked = a.finish(&Options::default());
            assert_eq!(chunked, whole, "{name}: chunked reading changed the report");
        }
    }
}

/// A large input fed whole is read a megabyte block at a time, with lines across blocks; fed in
/// small pieces, across pieces. The reports must be the same: here on every test log in a row,
/// shuffled with training lines, keyword lines that are no finding, CRLF, multi-byte
/// characters, NUL bytes and lines longer than a block, over 12 MB, and on the same noise with
/// a 9 MB line and one assert at its very end.
#[test]
fn large_inputs_read_whole_or_in_pieces_give_the_same_report() {
    let mut rng = Rng(11);
    let logs: Vec<Vec<u8>> = fixtures().into_iter().filter(|(n, _)| n.ends_with(".log")).map(|(_, b)| b).collect();
    let noise = |rng: &mut Rng, out: &mut Vec<u8>| match rng.below(12) {
        0 => out.extend_from_slice(b"/usr/lib/python3/dist-packages/x.py:3: UserWarning: lr_scheduler.step()\n"),
        1 => out.extend_from_slice("epoch 3 \u{2588}\u{2588}\u{258c} 41% loss=0.3\r\n".as_bytes()),
        2 => out.extend_from_slice(b"step \0 done\n"),
        3 if rng.below(200) == 0 => out.extend(std::iter::repeat_n(b'=', (1 << 20) + 3).chain(*b"\n")),
        _ => out.extend_from_slice(
            format!("  {}%|#####| {}/9000 [00:01<00:02, 9.1it/s]\n", rng.below(100), rng.below(9000)).as_bytes(),
        ),
    };
    let mut mixed = Vec::new();
    while mixed.len() < 12 << 20 {
        for log in &logs {
            for _ in 0..rng.below(400) {
                noise(&mut rng, &mut mixed);
            }
            mixed.extend_from_slice(log);
        }
    }
    let mut late = Vec::new();
    while late.len() < 12 << 20 {
        noise(&mut rng, &mut late);
    }
    // A line longer than the scanner's longest piece, with keywords in it.
    for _ in 0..90 {
        late.extend(std::iter::repeat_n(b'-', 100_000));
        late.extend_from_slice(b" CUDA error ");
    }
    late.push(b'\n');
    late.extend_from_slice(b"../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.\n");
    for (name, input) in [("mixed", &mixed), ("late", &late)] {
        let mut whole = TextAnalyzer::new();
        whole.feed(input);
        let whole = whole.finish(&Options::default());
        let mut pieces = TextAnalyzer::new();
        for c in input.chunks(64 << 10) {
            pieces.feed(c);
        }
        let pieces = pieces.finish(&Options::default());
        assert_eq!(whole.verdict, Verdict::DeviceAssert, "{name}: {} {:?}", input.len(), whole.headline);
        assert!(
            whole.input.nul_bytes > 0 && (name == "mixed" || whole.input.long_lines == 1),
            "{name}: {:?}",
            whole.input
        );
        assert_eq!(whole, pieces, "{name}: reading in pieces changed the report");
    }
}

#[test]
fn pathological_lines_stay_fast_and_bounded() {
    let cases: Vec<(&str, String)> = vec![
        ("backtick storm", "Assertion `".repeat(200_000)),
        ("bracket storm", "block: [".repeat(200_000) + "thread: [" + &"[".repeat(100_000)),
        ("colon storm", format!("a.cu:{}", ":1".repeat(300_000))),
        (
            "unclosed function",
            format!("/x/Loss.cu:1: {} block: [0,0,0], thread: [0,0,0] Assertion `t` failed.", "(".repeat(100_000)),
        ),
        ("wrapped forever", "x/Loss.cu:1: f: block: [0,0,0], thread: [0,0,0] Assertion `t >= 0 &&\n".repeat(50_000)),
        (
            "endless traceback",
            "Traceback (most recent call last):\n".to_string()
                + &"  File \"a.py\", line 1, in f\n    g()\n".repeat(100_000)
                + "RuntimeError: CUDA error: device-side assert triggered\n",
        ),
        ("entity storm", "&lt;".repeat(300_000)),
        ("escape storm", "\x1b[".repeat(300_000)),
        ("cr storm", "\r".repeat(500_000) + "RuntimeError: CUDA error: device-side assert triggered"),
        ("escaped newlines", format!("RuntimeError('CUDA error: x{}')", "\\n".repeat(300_000))),
        ("full width", "：（，".repeat(200_000) + "断言"),
    ];
    for (name, text) in cases {
        let started = std::time::Instant::now();
        let r = analyze_text(&text, &Options::default());
        let secs = started.elapsed().as_secs_f64();
        // Not a benchmark: a bound that only quadratic behaviour or a hang would break.
        assert!(secs < 20.0, "{name} took {secs:.1}s");
        assert!(r.echoes.len() <= 1000 && r.kernel_sites.len() <= 256, "{name}");
        if let Some(f) = &r.first_assert {
            assert!(f.text.len() <= 2100, "{name}: quoted text not bounded");
        }
    }
}

#[test]
fn a_flood_of_a_million_assert_lines_collapses_into_one_site() {
    let mut s = String::with_capacity(160_000_000);
    for i in 0..1_000_000u32 {
        s.push_str(&format!(
            "../aten/src/ATen/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: [{},0,0], thread: [{},0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n",
            i / 128,
            i % 128
        ));
    }
    s.push_str("RuntimeError: CUDA error: device-side assert triggered\n");
    let r = analyze_text(&s, &Options::default());
    assert_eq!(r.verdict, Verdict::DeviceAssert);
    assert_eq!(r.kernel_sites.len(), 1);
    let rep = r.first_assert.unwrap().repeats.unwrap();
    assert_eq!(rep.count, 1_000_000);
    assert_eq!(rep.threads, 128);
    assert_eq!(rep.blocks, 7813);
    assert_eq!(rep.block_range, Some([[0, 0, 0], [7812, 0, 0]]));
    assert_eq!(r.echo_count, 0, "the host line is the assert's report");
}

#[test]
fn many_echoes_are_counted_beyond_what_is_listed() {
    let s = "RuntimeError: CUDA error: device-side assert triggered\n".repeat(5000);
    let r = analyze_text(&s, &Options::default());
    assert_eq!(r.echo_count, 4999);
    assert_eq!(r.echoes.len(), 1000);
}

/// The page's entry (bytes by value, the text kept for the view) reads every input as the
/// CLI's does, and keeps the text as it is when it is UTF-8 (which the scanner checks as it
/// reads), else with the invalid sequences replaced, without its byte-order mark.
#[test]
fn keeping_the_text_reads_it_as_the_cli_does() {
    let log = "step 1\n../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.\nRuntimeError: CUDA error: device-side assert triggered\n";
    let mut inputs: Vec<Vec<u8>> = vec![log.as_bytes().to_vec(), [b"\xef\xbb\xbf".as_slice(), log.as_bytes()].concat()];
    let mut invalid = log.as_bytes().to_vec();
    invalid.splice(3..3, [0xff, 0xc3]);
    inputs.push(invalid);
    // A runtime log given as the input (held whole, then read by rows), valid and not.
    let rows = "Timestamp,Level,Message\n\"Dec 1, 2026, 10:00:01 AM\",WARNING,\"../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.\"\n";
    inputs.push(rows.as_bytes().to_vec());
    inputs.push([rows.as_bytes(), b"\"Dec 1, 2026, 10:00:02 AM\",WARNING,\"bad \xff byte\"\n"].concat());
    inputs.extend(fixtures().into_iter().map(|(_, b)| b));
    // Past the scanner's megabyte blocks, with invalid bytes far in.
    let all: Vec<u8> = fixtures().into_iter().flat_map(|(_, b)| b).collect();
    let mut big = [b"a log of every fixture\n".as_slice(), &all.repeat(30)].concat();
    inputs.push(big.clone());
    big.splice(big.len() / 2..big.len() / 2, [0xe6, 0x96]);
    inputs.push(big);
    for bytes in inputs {
        let want = analyze_bytes(&bytes, Some("x.log"), &Options::default());
        let got = first_assert::analyze_bytes_keeping(bytes.clone(), Some("x.log"), &Options::default());
        match (want, got) {
            (Ok(w), Ok((g, kept))) => {
                assert_eq!(w, g);
                if let first_assert::Decoded::Text(t) = kept {
                    if first_assert::input::utf16_order(&bytes).is_none() {
                        let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
                        assert_eq!(t, String::from_utf8_lossy(body));
                    }
                }
            }
            (Err(w), Err(g)) => assert_eq!(w, g),
            (w, g) => panic!("{:?} vs {:?}", w.map(|_| ()), g.map(|_| ())),
        }
    }
}
