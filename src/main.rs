//! The `first-assert` command: reads a log or a notebook, prints the report.
//!
//! This file only parses arguments, reads input and writes output; the analysis is the
//! library's.

use first_assert::{render, InputError, Lang, Options, Report, TextAnalyzer, Verdict};
use std::io::{self, IsTerminal, Read, Write};
use std::process::ExitCode;

const USAGE: &str = "\
first-assert: find the first CUDA device-side assert in PyTorch output and explain it

Usage: first-assert [--json] [--lang en|zh] [--color auto|always|never] [FILE|-]

  FILE          a log (any text) or a Jupyter notebook (.ipynb); `-` or nothing reads stdin
  --json        print the report as JSON (the contract is in the README)
  --lang L      language of the report: en or zh (default: from LANG, else en)
  --color WHEN  colour the text output: auto (default), always or never; NO_COLOR disables it
  -h, --help    print this help
  -V, --version print the version

Exit status: 0 no device-side assert, 1 device-side assert found, 2 bad usage or unreadable input.";

/// Notebooks are read whole; beyond this size the command refuses with a clear message.
const MAX_NOTEBOOK: u64 = 512 << 20;
/// The size of each read from a log.
const CHUNK: usize = 1 << 20;

struct Args {
    json: bool,
    lang: Option<Lang>,
    color: Option<bool>,
    path: Option<String>,
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(msg) => {
            let _ = writeln!(io::stderr(), "first-assert: error: {}", render::sanitize(&msg));
            ExitCode::from(2)
        }
    }
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut a = Args { json: false, lang: None, color: None, path: None };
    let mut it = std::env::args_os().skip(1);
    let mut only_paths = false;
    while let Some(arg) = it.next() {
        let arg = arg.into_string().map_err(|a| format!("argument is not valid UTF-8: {}", a.to_string_lossy()))?;
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it.next().and_then(|v| v.into_string().ok()).ok_or_else(|| format!("{name} needs a value\n\n{USAGE}")),
            }
        };
        match flag.as_str() {
            _ if only_paths => set_path(&mut a, arg)?,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            "-V" | "--version" => {
                println!("first-assert {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            "--json" => a.json = true,
            "--lang" => {
                let v = value("--lang")?;
                a.lang = Some(match v.as_str() {
                    "en" => Lang::En,
                    "zh" => Lang::Zh,
                    _ => return Err(format!("--lang takes en or zh, not `{v}`")),
                });
            }
            "--color" | "--colour" => {
                let v = value("--color")?;
                a.color = match v.as_str() {
                    "auto" => None,
                    "always" => Some(true),
                    "never" => Some(false),
                    _ => return Err(format!("--color takes auto, always or never, not `{v}`")),
                };
            }
            "--" => only_paths = true,
            "-" => set_path(&mut a, arg)?,
            f if f.starts_with('-') => return Err(format!("unknown option `{f}`\n\n{USAGE}")),
            _ => set_path(&mut a, arg)?,
        }
    }
    Ok(Some(a))
}

fn set_path(a: &mut Args, p: String) -> Result<(), String> {
    if a.path.is_some() {
        return Err(format!("give one FILE at most\n\n{USAGE}"));
    }
    a.path = Some(p);
    Ok(())
}

fn env_lang() -> Lang {
    for var in ["LC_ALL", "LC_MESSAGES", "LANG"] {
        if let Ok(v) = std::env::var(var) {
            if !v.is_empty() {
                return Lang::from_tag(&v).unwrap_or(Lang::En);
            }
        }
    }
    Lang::En
}

fn run() -> Result<ExitCode, String> {
    let Some(args) = parse_args()? else { return Ok(ExitCode::SUCCESS) };
    let opts = Options { lang: args.lang.unwrap_or_else(env_lang) };
    let (report, source) = match args.path.as_deref() {
        None | Some("-") => {
            let stdin = io::stdin();
            if args.path.is_none() && stdin.is_terminal() {
                return Err(format!("no input: give a FILE or pipe a log into stdin\n\n{USAGE}"));
            }
            (read_stream(stdin.lock(), None, &opts)?, "<stdin>".to_string())
        }
        Some(path) => {
            let meta = std::fs::metadata(path).map_err(|e| format!("cannot read `{path}`: {}", io_reason(&e)))?;
            if meta.is_dir() {
                return Err(format!("`{path}` is a directory, not a file"));
            }
            let f = std::fs::File::open(path).map_err(|e| format!("cannot read `{path}`: {}", io_reason(&e)))?;
            (read_stream(f, Some(path), &opts)?, path.to_string())
        }
    };
    let mut out = io::stdout().lock();
    let written = if args.json {
        serde_json::to_string_pretty(&report).map_err(|e| e.to_string()).and_then(|s| writeln!(out, "{s}").map_err(|e| e.to_string()))
    } else {
        let color = args.color.unwrap_or_else(|| {
            io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var("TERM").map_or(true, |t| t != "dumb")
        });
        let text = render::text(&report, &render::TextOptions { color, source: Some(source) });
        write!(out, "{text}").map_err(|e| e.to_string())
    };
    if let Err(e) = written.and_then(|_| out.flush().map_err(|e| e.to_string())) {
        // A closed pipe (`| head`) is not an error worth reporting.
        if !e.contains("Broken pipe") {
            return Err(format!("cannot write the report: {e}"));
        }
    }
    Ok(if report.verdict == Verdict::DeviceAssert { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Reads an input: notebooks whole, logs as a stream of chunks (bounded memory).
fn read_stream(mut r: impl Read, name: Option<&str>, opts: &Options) -> Result<Report, String> {
    let mut head = vec![0u8; 64 << 10];
    let n = read_full(&mut r, &mut head).map_err(|e| format!("cannot read the input: {e}"))?;
    head.truncate(n);
    let is_ipynb = name.is_some_and(|n| n.to_ascii_lowercase().ends_with(".ipynb"));
    let whole = is_ipynb
        || first_assert::input::looks_like_notebook(&head)
        || first_assert::input::utf16_order(&head).is_some()
        || first_assert::input::sniff_binary(&head).is_some();
    if whole {
        let mut all = head;
        r.take(MAX_NOTEBOOK + 1 - all.len() as u64).read_to_end(&mut all).map_err(|e| format!("cannot read the input: {e}"))?;
        if all.len() as u64 > MAX_NOTEBOOK {
            return Err(format!("the notebook is larger than {} MB; export the failing cells' output as text and analyse that", MAX_NOTEBOOK >> 20));
        }
        return first_assert::analyze_bytes(&all, name, opts).map_err(|e| match e {
            InputError::Notebook(_) => format!("{e} (exit 2: the notebook could not be read)"),
            InputError::Binary(_) => e.to_string(),
        });
    }
    let mut a = TextAnalyzer::new();
    a.feed(&head);
    let mut buf = vec![0u8; CHUNK];
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => a.feed(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("cannot read the input: {e}")),
        }
    }
    Ok(a.finish(opts))
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
