//! The restart-and-isolate checklist, tailored to the cause and to what the input shows.

use crate::findings::Source;
use crate::report::{Category, Cause, Confirmation, LaunchBlocking, Probe, Stack, Step, Verdict};
use crate::text::{Lang, Msg};

/// What the checklist is tailored to.
pub struct Context<'a> {
    pub lang: Lang,
    pub verdict: Verdict,
    /// Where the output came from: a notebook, a script, a launch or server.
    pub source: Source,
    pub cause: Option<&'a Cause>,
    /// With the verdict `confirmed`: the error that confirmed the cause.
    pub confirmation: Option<&'a Confirmation>,
    pub stack: Option<&'a Stack>,
    /// The kind of the first CUDA error that is not an assert, if any.
    pub other: Option<&'a str>,
    pub echo_count: u64,
    /// On Colab, with no kernel line in the input and no runtime log beside it: the first step
    /// is to copy them from the runtime log.
    pub runtime_log_step: bool,
    /// The probe cell, to paste first after the restart.
    pub probe: Option<&'a Probe>,
    /// `torch.compile` is in use: the isolating run goes uncompiled.
    pub compiled: bool,
    /// The package index the notebook extension installs from, when the caller offers one.
    pub index: Option<&'a str>,
    /// The source was guessed (nothing in the output tells): a notebook's steps, the script's
    /// way in one line.
    pub source_guessed: bool,
}

/// A code snippet from the catalogue (the leading newline of the TOML text dropped).
fn code(m: Msg, l: Lang) -> &'static str {
    m.text(l).trim_start_matches('\n')
}

/// Builds the steps.
pub fn steps(c: &Context<'_>) -> Vec<Step> {
    match c.verdict {
        Verdict::DeviceAssert => assert_steps(c),
        Verdict::OtherCudaError => other_steps(c),
        Verdict::Clean => Vec::new(),
        Verdict::Unreadable => unreadable_steps(c),
        Verdict::Confirmed => confirmed_steps(c),
    }
}

/// After the probe (or a CPU rerun) caught the bad value: what led here is done, the fix and
/// what follows it are left.
fn confirmed_steps(c: &Context<'_>) -> Vec<Step> {
    let l = c.lang;
    let probe = c.confirmation.is_some_and(|c| c.source == "probe");
    let done = |id: &str, title: Msg, body: Msg| Step { done: true, ..said(l, id, title, body, None) };
    let mut v = vec![done("restart", Msg::StepRestartTitle, Msg::StepRestartBody)];
    if probe {
        v.push(done("launch_blocking", Msg::StepLaunchBlockingTitle, Msg::StepLaunchBlockingDone));
        v.push(done("probe", Msg::StepProbeTitle, probe_body(c.source)));
    } else {
        v.push(done("cpu", Msg::StepCpuTitle, Msg::StepCpuBody));
    }
    v.push(Step { done: true, ..rerun(c) });
    let fix = c.cause.map(|c| c.fix.clone()).filter(|f| !f.is_empty());
    v.push(step(
        "fix",
        Msg::StepFixTitle.text(l).into(),
        fix.unwrap_or_else(|| Msg::StepFixGenericBody.text(l).into()),
        None,
        false,
    ));
    v.push(said(l, "restart_again", Msg::StepRestartAgainTitle, Msg::StepRestartAgainBody, None));
    let (title, body) = if probe {
        (Msg::StepRemoveProbeTitle, Msg::StepRemoveProbeBody)
    } else {
        (Msg::StepRemoveLbTitle, Msg::StepRemoveLbBody)
    };
    v.push(said(l, if probe { "remove_probe" } else { "remove_launch_blocking" }, title, body, None));
    v
}

fn step(id: &str, title: String, body: String, code: Option<&str>, done: bool) -> Step {
    Step { id: id.to_string(), title, body, code: code.map(str::to_string), done }
}

/// A step whose title, body and code are messages of the catalogue, not done.
fn said(l: Lang, id: &str, title: Msg, body: Msg, snippet: Option<Msg>) -> Step {
    step(id, title.text(l).into(), body.text(l).into(), snippet.map(|m| code(m, l)), false)
}

/// At most seven steps, said for where the output came from: (the runtime log,) restart, launch
/// blocking (and compiling off), the probe, the rerun read from its first error, the values,
/// the fix and what follows it.
fn assert_steps(c: &Context<'_>) -> Vec<Step> {
    let l = c.lang;
    let mut v = Vec::new();
    let category = c.cause.map(|c| c.category).unwrap_or(Category::Unknown);
    if c.runtime_log_step {
        v.push(said(l, "runtime_log", Msg::StepRuntimeLogTitle, Msg::StepRuntimeLogBody, None));
    }
    // A script's process ended with the error: nothing to restart but the run itself.
    let restart = match c.source {
        _ if category == Category::StaleContext => Some(Msg::StepRestartStaleBody),
        Source::Notebook if c.source_guessed => Some(Msg::StepRestartGuessedBody),
        Source::Notebook => Some(Msg::StepRestartBody),
        Source::Launch => Some(Msg::StepRestartLaunchBody),
        Source::Script => None,
    };
    if let Some(body) = restart {
        // A launch has no runtime to restart: its processes are stopped and started again.
        let title = if c.source == Source::Launch { Msg::StepRestartLaunchTitle } else { Msg::StepRestartTitle };
        v.push(said(l, "restart", title, body, None));
    }
    // In a notebook, with an index to install from: the extension's two lines do what the
    // variable and the probe cell do, and bring the kernel's own lines into the cell.
    if let (Source::Notebook, Some(index)) = (c.source, c.index) {
        let code = format!("%pip install first-assert --index-url {index}\n%load_ext first_assert\n%first_assert isolate");
        let body = Msg::StepLoadExtBody.fill(l, &[("index", &index)]);
        v.push(step("load_ext", Msg::StepLoadExtTitle.text(l).into(), body, Some(&code), false));
    } else if probe_first(c) {
        // The probe sets the variable itself: it goes first, the variable alone is the other way.
        // Its code is the report's `probe.code`: one copy, not two.
        v.push(said(l, "probe", probe_title(c.source), probe_body(c.source), None));
        let (body, snippet) = if c.source == Source::Notebook {
            (Msg::StepLaunchBlockingAltBody, Msg::SnippetLaunchBlocking)
        } else {
            (Msg::StepLaunchBlockingAltScriptBody, Msg::SnippetLaunchBlockingScript)
        };
        v.push(said(l, "launch_blocking", Msg::StepLaunchBlockingAltTitle, body, Some(snippet)));
    } else {
        v.push(launch_blocking(c));
        if c.probe.is_some() {
            v.push(said(l, "probe", probe_title(c.source), probe_body(c.source), None));
        }
    }
    // The rerun, read from its first error: the echoes are not new problems.
    let mut rerun = rerun(c);
    let first = if c.echo_count > 0 {
        Msg::StepFirstOnlyBody.fill(l, &[("n", &c.echo_count)])
    } else {
        Msg::StepFirstOnlyBodyNone.text(l).to_string()
    };
    rerun.body = format!("{}{}{first}", rerun.body, sep(l));
    v.push(rerun);
    // The values: a cause's own snippet prints them from what the run still holds; else the
    // CPU says them in its own error.
    match c.cause.filter(|c| c.snippet.is_some()) {
        Some(cause) => {
            let body = if cause.check.is_empty() { Msg::StepInspectBody.text(l).to_string() } else { cause.check.clone() };
            v.push(step("inspect", Msg::StepInspectTitle.text(l).into(), body, cause.snippet.as_deref(), false));
        }
        None => v.push(said(l, "cpu", Msg::StepCpuTitle, Msg::StepCpuBody, Some(Msg::SnippetCpu))),
    }
    let fix = c
        .cause
        .map(|c| c.fix.clone())
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| Msg::StepFixGenericBody.text(l).into());
    let then = if c.source == Source::Script { Msg::StepFixThenScript } else { Msg::StepFixThen };
    let body = format!("{fix}{}{}", sep(l), then.text(l));
    v.push(step("fix", Msg::StepFixTitle.text(l).into(), body, None, false));
    v
}

/// Whether the probe leads (a notebook or a script, the variable not yet set, nothing compiled):
/// it sets CUDA_LAUNCH_BLOCKING=1 itself, so the checklist names one first step, not two.
fn probe_first(c: &Context<'_>) -> bool {
    let lb = c.stack.map(|s| s.launch_blocking).unwrap_or(LaunchBlocking::NotSet);
    c.probe.is_some() && c.source != Source::Launch && lb == LaunchBlocking::NotSet && !c.compiled
}

/// Between two sentences: a space, none in Chinese.
fn sep(l: Lang) -> &'static str {
    if l == Lang::Zh {
        ""
    } else {
        " "
    }
}

/// CUDA_LAUNCH_BLOCKING=1 where it takes effect for this source (a notebook's first cell, the
/// script's command, the launch's environment), and torch.compile off when it is in use.
fn launch_blocking(c: &Context<'_>) -> Step {
    let l = c.lang;
    let lb = c.stack.map(|s| s.launch_blocking).unwrap_or(LaunchBlocking::NotSet);
    let (body, snippet) = match (lb, c.source) {
        (LaunchBlocking::Set, _) => (Msg::StepLaunchBlockingDone, Msg::SnippetLaunchBlocking),
        (LaunchBlocking::SetAfterImport | LaunchBlocking::SetAfterCuda | LaunchBlocking::Ignored, _) => {
            (Msg::StepLaunchBlockingLate, Msg::SnippetLaunchBlocking)
        }
        (LaunchBlocking::NotSet, Source::Notebook) => (Msg::StepLaunchBlockingBody, Msg::SnippetLaunchBlocking),
        (LaunchBlocking::NotSet, Source::Script) => (Msg::StepLaunchBlockingScriptBody, Msg::SnippetLaunchBlockingScript),
        (LaunchBlocking::NotSet, Source::Launch) => (Msg::StepLaunchBlockingLaunchBody, Msg::SnippetLaunchBlockingLaunch),
    };
    let mut s = said(l, "launch_blocking", Msg::StepLaunchBlockingTitle, body, Some(snippet));
    s.done = lb == LaunchBlocking::Set && !c.compiled;
    if c.compiled {
        s.body = format!("{}{}{}", s.body, sep(l), Msg::StepUncompiledBody.text(l));
        s.code = Some(format!("{}\n{}", s.code.unwrap_or_default(), code(Msg::SnippetUncompiled, l)));
    }
    s
}

/// The probe step's title for this source.
fn probe_title(source: Source) -> Msg {
    match source {
        Source::Notebook => Msg::StepProbeTitle,
        Source::Script => Msg::StepProbeScriptTitle,
        Source::Launch => Msg::StepProbeLaunchTitle,
    }
}

/// How the probe reaches the code that fails: a notebook's first cell, the script's top, every
/// worker of a launch.
fn probe_body(source: Source) -> Msg {
    match source {
        Source::Notebook => Msg::StepProbeBody,
        Source::Script => Msg::StepProbeScriptBody,
        Source::Launch => Msg::StepProbeLaunchBody,
    }
}

/// The ways to get outputs the page could not read into the analysis.
fn unreadable_steps(c: &Context<'_>) -> Vec<Step> {
    let l = c.lang;
    let mut v = Vec::with_capacity(3);
    for (id, title, body) in [
        ("extension", Msg::StepExtensionTitle, Msg::StepExtensionBody),
        ("download_notebook", Msg::StepDownloadTitle, Msg::StepDownloadBody),
        ("paste_error", Msg::StepPasteTitle, Msg::StepPasteBody),
    ] {
        v.push(said(l, id, title, body, None));
    }
    v
}

fn rerun(c: &Context<'_>) -> Step {
    let l = c.lang;
    let (title, body) = match c.source {
        Source::Notebook => (Msg::StepRerunCellsTitle, Msg::StepRerunBody),
        Source::Script => (Msg::StepRerunScriptTitle, Msg::StepRerunScriptBody),
        Source::Launch => (Msg::StepRerunLaunchTitle, Msg::StepRerunLaunchBody),
    };
    said(l, "rerun", title, body, None)
}

/// The step another CUDA error gets after the restart, by its kind: the kinds, the step's id,
/// title, body and code.
const OTHER_STEPS: &[(&[&str], &str, Msg, Msg, Msg)] = &[
    (&["out_of_memory"], "reduce_memory", Msg::StepOomTitle, Msg::StepOomBody, Msg::SnippetOom),
    (
        &["no_kernel_image", "invalid_device_function"],
        "match_build",
        Msg::StepNoKernelTitle,
        Msg::StepNoKernelBody,
        Msg::SnippetNoKernel,
    ),
    (
        &[
            "no_device",
            "invalid_device_ordinal",
            "driver_too_old",
            "no_cuda_build",
            "ecc_error",
            "launch_timeout",
            "device_busy",
        ],
        "check_gpu",
        Msg::StepGpuTitle,
        Msg::StepGpuBody,
        Msg::SnippetGpu,
    ),
    (&["cuda_fork"], "spawn", Msg::StepForkTitle, Msg::StepForkBody, Msg::SnippetFork),
    (&["device_mismatch"], "same_device", Msg::StepSameDeviceTitle, Msg::StepSameDeviceBody, Msg::SnippetSameDevice),
    (&["nccl"], "nccl_debug", Msg::StepNcclTitle, Msg::StepNcclBody, Msg::SnippetNccl),
];

fn other_steps(c: &Context<'_>) -> Vec<Step> {
    let l = c.lang;
    let kind = c.other.unwrap_or("cuda_error");
    let mut v = vec![said(l, "restart", Msg::StepRestartTitle, Msg::StepRestartOtherBody, None)];
    match OTHER_STEPS.iter().find(|(kinds, ..)| kinds.contains(&kind)) {
        Some(&(_, id, title, body, code)) => v.push(said(l, id, title, body, Some(code))),
        None => {
            let lb_body = Msg::StepLaunchBlockingOtherBody;
            v.push(said(l, "launch_blocking", Msg::StepLaunchBlockingTitle, lb_body, Some(Msg::SnippetLaunchBlocking)));
            v.push(rerun(c));
        }
    }
    v
}
