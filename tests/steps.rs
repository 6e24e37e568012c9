//! The steps are said for where the output came from: a notebook (restart the runtime, the
//! first cell), a script in a terminal (nothing to restart, the command), a multi-process launch
//! or server (the launch's environment, every worker); at most seven, none pointing back at the
//! list.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_bytes, Lang, Options, Report, Source};
use std::path::Path;

fn report(case: &str, lang: Lang) -> Report {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases").join(case);
    analyze_bytes(&std::fs::read(&p).unwrap(), Some(case), &Options::lang(lang)).unwrap()
}

fn step<'a>(r: &'a Report, id: &str) -> &'a first_assert::Step {
    r.checklist.iter().find(|s| s.id == id).unwrap_or_else(|| panic!("no {id} step: {:?}", r.checklist))
}

#[test]
fn a_notebook_a_terminal_script_and_a_server_each_get_their_own_steps() {
    let notebook = report("colab-echoes.ipynb", Lang::En);
    let script = report("crlf-ansi-cross-entropy.log", Lang::En);
    let server = report("server-vllm-workers.log", Lang::En);
    let torchrun = report("torchrun-rank-assert.log", Lang::En);
    assert_eq!(
        [notebook.input.source, script.input.source, server.input.source, torchrun.input.source],
        [Source::Notebook, Source::Script, Source::Launch, Source::Launch]
    );
    // Restart: the runtime; nothing for a script (its process ended); every process of a launch.
    assert!(step(&notebook, "restart").body.contains("Restart session"));
    assert!(script.checklist.iter().all(|s| s.id != "restart"), "{:?}", script.checklist);
    assert!(step(&server, "restart").body.contains("stop every process of the launch"));
    // A launch has no runtime: its step is named for what is done to it.
    assert_eq!(step(&notebook, "restart").title, "Restart the runtime");
    assert_eq!(step(&server, "restart").title, "Stop every process of the launch");
    // CUDA_LAUNCH_BLOCKING where it takes effect.
    assert!(step(&notebook, "launch_blocking").code.as_deref().unwrap().contains("os.environ[\"CUDA_LAUNCH_BLOCKING\"]"));
    assert_eq!(step(&script, "launch_blocking").code.as_deref(), Some("CUDA_LAUNCH_BLOCKING=1 python train.py"));
    let launch = step(&server, "launch_blocking");
    assert!(launch.code.as_deref().unwrap().starts_with("export CUDA_LAUNCH_BLOCKING=1\ntorchrun"), "{launch:?}");
    assert!(launch.body.contains("every worker process inherits it"));
    // The probe: the first cell, the script's top, every worker (sitecustomize on PYTHONPATH).
    assert!(step(&notebook, "probe").body.starts_with("Make this the first cell"));
    assert!(step(&script, "probe").body.starts_with("Put this at the very top of the script"));
    assert!(step(&server, "probe").body.contains("sitecustomize.py") && step(&server, "probe").body.contains("PYTHONPATH"));
    assert_eq!(step(&torchrun, "rerun").title, "Launch again and read the first worker's error");
}

#[test]
fn at_most_seven_steps_and_none_points_back_at_the_list() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut read = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        if !(name.ends_with(".log") || name.ends_with(".ipynb")) {
            continue;
        }
        for lang in Lang::ALL {
            let Ok(r) = analyze_bytes(&std::fs::read(dir.join(&name)).unwrap(), Some(&name), &Options::lang(lang)) else { continue };
            assert!(r.checklist.len() <= 7, "{name}: {} steps: {:?}", r.checklist.len(), r.checklist.iter().map(|s| &s.id).collect::<Vec<_>>());
            for s in &r.checklist {
                for circular in ["Follow the checklist", "按清单操作"] {
                    assert!(!s.body.contains(circular), "{name}: {} says {circular}", s.id);
                }
            }
            read += 1;
        }
    }
    assert!(read > 150, "{read} reports");
}

/// With a package index to install from (the page's site, FIRST_ASSERT_INDEX), a notebook's
/// steps load the extension instead of setting the variable and pasting the probe cell; a script
/// and a launch keep theirs; without an index, nothing changes.
#[test]
fn with_an_index_a_notebook_loads_the_extension_from_it() {
    let index = "https://example.org/first-assert/simple/";
    let with = |case: &str, lang: Lang| {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases").join(case);
        let opts = Options { index: Some(index.into()), ..Options::lang(lang) };
        analyze_bytes(&std::fs::read(&p).unwrap(), Some(case), &opts).unwrap()
    };
    for lang in [Lang::En, Lang::Zh] {
        let notebook = with("colab-echoes.ipynb", lang);
        let load = step(&notebook, "load_ext");
        assert_eq!(
            load.code.as_deref(),
            Some("%pip install first-assert --index-url https://example.org/first-assert/simple/\n%load_ext first_assert\n%first_assert isolate")
        );
        // --index-url, not --extra-index-url: another index's higher version of the name must not win.
        assert!(!load.body.contains("extra-index") && load.body.contains("--index-url"), "{}", load.body);
        assert!(load.body.contains(index));
        let ids: Vec<&str> = notebook.checklist.iter().map(|s| s.id.as_str()).collect();
        assert!(!ids.contains(&"probe") && !ids.contains(&"launch_blocking"), "{ids:?}");
        assert_eq!(ids[..2], ["restart", "load_ext"], "first after the restart");
        assert!(notebook.probe.is_some(), "the probe stays in the report, for a runtime that cannot install");
        // A script has no notebook to load it in.
        let script = with("crlf-ansi-cross-entropy.log", lang);
        assert!(script.checklist.iter().all(|s| s.id != "load_ext"));
        assert_eq!(script.checklist, report("crlf-ansi-cross-entropy.log", lang).checklist);
        // Nor has a launch: its probe step stays.
        let launch = with("server-vllm-workers.log", lang);
        step(&launch, "probe");
        assert_eq!(launch.checklist, report("server-vllm-workers.log", lang).checklist);
    }
    let without = report("colab-echoes.ipynb", Lang::En);
    assert!(without.checklist.iter().all(|s| s.id != "load_ext"));
    step(&without, "probe");
}

/// The paste a notebook user makes most often, PyTorch's host line and hint lines alone: nothing
/// tells where it ran, so the steps are a notebook's (copy the runtime log, restart the runtime)
/// and the script's way is one line; the card says the cause is unknown and judges no traceback.
#[test]
fn a_bare_host_error_gets_a_notebooks_steps_and_the_scripts_way_in_one_line() {
    let paste = "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n";
    for lang in Lang::ALL {
        let r = first_assert::analyze_text(paste, &Options::lang(lang));
        assert_eq!(r.input.source, Source::Notebook);
        let ids: Vec<&str> = r.checklist.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["runtime_log", "restart", "probe", "launch_blocking", "rerun", "cpu", "fix"], "{lang:?}");
        let restart = step(&r, "restart");
        assert!(restart.body.contains("CUDA_LAUNCH_BLOCKING=1 python train.py"), "the script's way: {}", restart.body);
        assert_eq!(restart.body.matches("python train.py").count(), 1, "in one line");
        // No traceback here: nothing to distrust.
        let stack = r.stack.as_ref().unwrap();
        assert!(!stack.explanation.contains("Do not trust") && !stack.explanation.contains("不要相信"), "{}", stack.explanation);
        assert!(r.cause.as_ref().is_some_and(|c| c.category == first_assert::report::Category::Unknown));
    }
    // The same error under a script's traceback stays a script's.
    let script = "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    loss.backward()\nRuntimeError: CUDA error: device-side assert triggered\n";
    let r = first_assert::analyze_text(script, &Options::default());
    assert_eq!(r.input.source, Source::Script);
    assert!(step(&r, "probe").title.contains("script"));
}

/// One step says it goes first: the probe (it sets CUDA_LAUNCH_BLOCKING=1 itself), the variable
/// alone being the other way; a script is run once more, not three times.
#[test]
fn one_step_goes_first_and_a_script_runs_once_more() {
    let notebook = report("colab-echoes.ipynb", Lang::En);
    let first = |s: &first_assert::Step| s.body.contains("first cell after") || s.body.contains("very first");
    let claims: Vec<&str> = notebook.checklist.iter().filter(|s| first(s)).map(|s| s.id.as_str()).collect();
    assert_eq!(claims, ["probe"], "{:?}", notebook.checklist);
    let script = report("crlf-ansi-cross-entropy.log", Lang::En);
    let runs: Vec<&str> =
        script.checklist.iter().filter(|s| s.body.contains("run it again") || s.title.contains("Run it again")).map(|s| s.id.as_str()).collect();
    assert_eq!(runs, ["rerun"], "{:?}", script.checklist);
}
