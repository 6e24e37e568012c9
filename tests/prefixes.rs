//! Whatever launchers, loggers, terminals and copy-paste put in front of every line, a log
//! reads as the bare log: the same first assert, cause, echoes and stack verdict.
//!
//! Hundreds of prefixes are generated from seeds, in the families real output comes in
//! (torchrun, mpirun, Ray, vLLM and SGLang workers, DeepSpeed and pdsh, docker compose,
//! ISO-8601 times, journald, Python logging and loguru, Slurm, `grep -n` and pagers,
//! Lightning, log viewers' columns, markdown quotes), and put in front of every line of every
//! fixture log; HTML-escaped copies and an error pasted into a sentence are read too.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_text, Options, Report, Verdict};
use std::path::Path;

/// A small deterministic generator (xorshift), so that every run tries the same prefixes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// A prefix as a function of the line's index (times move on, pids and ranks stay).
type Prefix = Box<dyn Fn(usize) -> String>;

const LEVELS: &[&str] = &["ERROR", "WARNING", "INFO", "CRITICAL"];
const HOSTS: &[&str] = &["gpu-node-07", "ip-10-0-1-12", "a100x8-2", "dgx03", "worker-b"];
const NAMES: &[&str] = &["trainer", "main", "train_net", "accelerate.utils", "lightning.fabric"];
/// Ray's and vLLM's process names (Ray Train, vLLM's V0 and V1 engines, verl's task runner).
const ACTORS: &[&str] =
    &["RayTrainWorker", "RayWorkerWrapper", "TaskRunner", "StageEngineCoreProc", "EngineCore_DP0", "WorkerDict"];
const FILES: &[&str] = &["multiproc_worker_utils", "core", "multiproc_executor", "scheduler", "engine"];

/// A time of day `s` seconds after a start, `hh:mm:ss`.
fn hms(start: u64, s: usize) -> String {
    let t = start + s as u64;
    format!("{:02}:{:02}:{:02}", (t / 3600) % 24, (t / 60) % 60, t % 60)
}

/// The prefix family `k` (0..FAMILIES), varied by `rng`.
fn family(k: usize, rng: &mut Rng) -> (&'static str, Prefix) {
    let r = rng.below(8);
    let pid = 1000 + rng.below(60000);
    let start = rng.below(80000);
    let date = format!("2026-{:02}-{:02}", 1 + rng.below(12), 1 + rng.below(28));
    let frac = 1 + rng.below(9) as usize;
    let level = rng.pick(LEVELS);
    let host = rng.pick(HOSTS);
    let name = rng.pick(NAMES);
    let file = rng.pick(FILES);
    let n = rng.below(900) + 10;
    match k {
        0 => ("torchrun", Box::new(move |_| format!("[rank{r}]: "))),
        1 => ("torchrun --tee", Box::new(move |_| format!("[default{r}]:"))),
        2 => ("mpirun", Box::new(move |_| format!("[1,{r}]<stderr>:"))),
        3 => ("ray pid", Box::new(move |_| format!("(pid={pid}) "))),
        4 => {
            let actor = rng.pick(ACTORS);
            let ip = if r % 2 == 0 { format!(", ip=10.{r}.{}.{}", r * 3, 7 + r) } else { String::new() };
            ("ray actor", Box::new(move |_| format!("({actor} pid={pid}{ip}) ")))
        }
        5 => (
            "vllm worker",
            Box::new(move |i| {
                format!("(VllmWorker rank={r} pid={pid}) {level} 05-06 {} [{file}.py:{n}] ", hms(start, i / 3))
            }),
        ),
        6 => ("vllm", Box::new(move |i| format!("{level} 05-06 {} {file}.py:{n}] ", hms(start, i)))),
        7 => ("sglang", Box::new(move |i| format!("[{date} {} TP{r}] ", hms(start, i)))),
        8 => ("deepspeed", Box::new(move |_| format!("worker-{r}: "))),
        9 => ("pdsh", Box::new(move |_| format!("{host}: "))),
        10 => ("docker compose", Box::new(move |_| format!("{name}-{r}  | ").replace('.', "_"))),
        11 => (
            "iso-8601",
            Box::new(move |i| format!("{date}T{}.{}Z ", hms(start, i), "1234567890".get(..frac).unwrap_or("1"))),
        ),
        12 => ("iso-8601 offset", Box::new(move |i| format!("{date}T{}.{:03}+08:00 ", hms(start, i), i % 1000))),
        13 => ("journald", Box::new(move |i| format!("Mar {:02} {} {host} python3[{pid}]: ", 1 + r, hms(start, i)))),
        14 => (
            "python logging",
            Box::new(move |i| format!("{date} {},{:03} - {name} - {level} - ", hms(start, i), (i * 7) % 1000)),
        ),
        15 => ("python logging basic", Box::new(move |_| format!("{level}:{name}:"))),
        16 => (
            "hydra",
            Box::new(move |i| format!("[{date} {},{:03}][{name}][{level}] - ", hms(start, i), (i * 3) % 1000)),
        ),
        17 => (
            "loguru",
            Box::new(move |i| format!("{date} {}.{:03} | {level:<8} | __main__:train:{n} - ", hms(start, i), i % 1000)),
        ),
        18 => ("srun --label", Box::new(move |_| format!("{r}: "))),
        19 => ("grep -n", Box::new(move |i| format!("{}:", i + 1))),
        20 => ("grep -n file", Box::new(move |i| format!("logs/train-{r}.log:{}:", i + 1))),
        21 => ("cat -n", Box::new(move |i| format!("{:>6}\t", i + 1))),
        22 => ("less -N", Box::new(move |i| format!("{:>7} ", i + 1))),
        23 => ("lightning", Box::new(move |_| format!("[rank: {r}] "))),
        24 => ("log viewer", Box::new(move |i| format!("{date} {}.{:03}\t{level}\t", hms(start, i), i % 1000))),
        25 => ("log viewer stderr", Box::new(move |i| format!("{}\tstderr\t", hms(start, i)))),
        26 => ("markdown quote", Box::new(move |_| if r.is_multiple_of(2) { "> ".into() } else { ">> ".into() })),
        27 => ("kubectl pod", Box::new(move |i| format!("{date}T{}.{:09}Z ", hms(start, i), pid * 1000 + i as u64))),
        _ => unreachable!(),
    }
}

const FAMILIES: usize = 28;
/// Prefixes generated per family.
const PER_FAMILY: usize = 12;

/// What a prefix must not change.
fn gist(r: &Report) -> String {
    let first = r.first_assert.as_ref().map(|f| {
        let site = f.site.as_ref().map(|s| {
            let base = s.file.rsplit(['/', '\\']).next().unwrap_or("");
            format!("{base}:{:?} {:?} {:?} {:?}", s.line, s.name, s.condition, s.thread)
        });
        format!("{:?} line {} end {:?} {:?} {site:?}", f.kind, f.at.line, f.end_line, f.dialect)
    });
    let cause = r.cause.as_ref().map(|c| format!("{} {:?}", c.rule, c.category));
    let stack = r.stack.as_ref().map(|s| {
        let user =
            r.raised_at.as_ref().and_then(|a| a.user_frame.as_ref()).map(|f| (f.file.clone(), f.line, f.code.clone()));
        format!("{} {:?} {:?} {user:?}", s.trustworthy, s.launch_blocking, s.innocent_op)
    });
    let sites = r.kernel_sites.iter().map(|s| s.count).collect::<Vec<_>>();
    // The probe's error read back: its value, bound and line, whatever prefixes the lines.
    let confirmed = r.confirmation.as_ref().map(|c| (&c.op, &c.value, &c.allowed, &c.line));
    format!("{:?} {first:?} {cause:?} echoes {} {stack:?} sites {sites:?} {confirmed:?}", r.verdict, r.echo_count)
}

fn analyze(text: &str) -> Report {
    analyze_text(text, &Options::default())
}

/// The fixture logs a prefix can go in front of: text, and not hard-wrapped (a terminal wraps
/// the prefixed line, so its pieces carry no prefix of their own).
fn fixtures() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut v: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .filter_map(|p| {
            let name = p.file_stem()?.to_string_lossy().to_string();
            let text = String::from_utf8(std::fs::read(&p).ok()?).ok()?;
            // A log listed newest first keeps its own times; prefixed times would run forward.
            let own_order = name.starts_with("hard-wrapped") || name.starts_with("newest-first");
            // A text that only mentions the error reads as output once a launcher or logger
            // prefixes its lines (and a diff's quotes, HTML-escaped, are no quotes): what
            // mentions are is tested on their own (tests/cases/mention-*).
            let mention = name.starts_with("mention-");
            // A log its launcher already prefixed (a vLLM worker's lines): a second launcher's
            // prefix on top of the first is no form that is printed.
            let launched = text.starts_with("(VllmWorker") || text.lines().nth(2).is_some_and(|l| l.starts_with("(VllmWorker"));
            (!own_order && !mention && !launched && !text.trim().is_empty()).then_some((name, text))
        })
        .collect();
    v.sort();
    assert!(v.len() >= 30, "{} fixtures", v.len());
    v
}

fn prefixed(text: &str, p: &Prefix) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for (i, line) in text.split_inclusive('\n').enumerate() {
        out.push_str(&p(i));
        out.push_str(line);
    }
    out
}

#[test]
fn every_prefix_family_reads_as_the_bare_log() {
    let fixtures = fixtures();
    let bare: Vec<String> = fixtures.iter().map(|(_, t)| gist(&analyze(t))).collect();
    let mut rng = Rng(0x5eed_2026_1201);
    let mut failures = Vec::new();
    let mut tried = 0;
    for k in 0..FAMILIES {
        for _ in 0..PER_FAMILY {
            let (fam, p) = family(k, &mut rng);
            for ((name, text), want) in fixtures.iter().zip(&bare) {
                tried += 1;
                let got = gist(&analyze(&prefixed(text, &p)));
                if &got != want {
                    failures.push(format!("{fam} {:?} on {name}:\n   bare:     {want}\n   prefixed: {got}", p(0)));
                }
            }
        }
    }
    assert!(tried > 9000, "{tried}");
    let n = failures.len();
    failures.dedup_by_key(|f| {
        f.split(" on ").next().unwrap_or("").split(' ').next().unwrap_or("").to_string()
            + f.split(" on ").nth(1).unwrap_or("").split(':').next().unwrap_or("")
    });
    assert!(failures.is_empty(), "{n} differ, one of each:\n{}", failures.join("\n"));
}

/// The paste a notebook user makes most (the host line and PyTorch's hint lines), and the host
/// line alone, behind every prefix family: still the assert, read as the bare paste is.
#[test]
fn a_bare_host_error_behind_every_prefix_is_the_assert() {
    const HOST: &str = "RuntimeError: CUDA error: device-side assert triggered\n";
    const HINTS: &str = "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n";
    let pastes = [HOST.to_string(), format!("{HOST}{HINTS}")];
    let bare: Vec<String> = pastes.iter().map(|t| gist(&analyze(t))).collect();
    let mut rng = Rng(0x0ba2_e000_0049);
    let mut failures = Vec::new();
    for k in 0..FAMILIES {
        for _ in 0..PER_FAMILY {
            let (fam, p) = family(k, &mut rng);
            for (text, want) in pastes.iter().zip(&bare) {
                // `less -N`'s `      1 ` is also IPython's numbered source line: taken off only
                // where other lines show it is a prefix (learned), so not on a line alone.
                if fam == "less -N" && text.lines().count() == 1 {
                    continue;
                }
                let r = analyze(&prefixed(text, &p));
                if r.verdict != Verdict::DeviceAssert || &gist(&r) != want {
                    failures.push(format!("{fam} {:?}: {}", p(0), gist(&r)));
                }
            }
        }
    }
    assert!(bare.iter().all(|g| g.starts_with("DeviceAssert")), "{bare:?}");
    assert!(failures.is_empty(), "{} of {}:\n{}", failures.len(), FAMILIES * PER_FAMILY * 2, failures.join("\n"));
}

#[test]
fn html_escaped_copies_read_as_the_log() {
    for (name, text) in fixtures().into_iter().filter(|(_, t)| !t.contains('&')) {
        let escaped = text
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;");
        assert_eq!(gist(&analyze(&escaped)), gist(&analyze(&text)), "{name}");
    }
}

/// An error pasted into a sentence that reports it is an error; one in a sentence that asks
/// about it or advises on it is not.
#[test]
fn an_error_in_a_sentence() {
    const E: &str = "RuntimeError: CUDA error: device-side assert triggered";
    for s in [
        format!("When I run the training script on Colab I get {E}"),
        format!("I got {E}, how do I fix it?"),
        format!("训练到第二个 epoch 时报错：{E}"),
        format!("我在训练时遇到了{E}，怎么解决？"),
        format!("Hi all, after upgrading to 2.8 my run crashes with {E} after 3 steps."),
        format!("Getting `{E}` when fine-tuning, any idea?"),
    ] {
        assert_eq!(analyze(&format!("{s}\n")).verdict, Verdict::DeviceAssert, "{s}");
    }
    for s in [
        format!("How do I fix {E}?"),
        format!("If you see `{E}`, restart the runtime first."),
        format!("Tip: '{E}' usually means a label is out of range."),
        format!("如果出现 {E}，请先重启运行时。"),
        format!("print(\"{E}\")"),
        format!("    raise RuntimeError(\"{E}\")"),
    ] {
        assert_eq!(analyze(&format!("{s}\n")).verdict, Verdict::Clean, "{s}");
    }
}
