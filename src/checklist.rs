//! The restart-and-isolate checklist, tailored to the cause and to what the input shows.

use crate::report::{Category, Cause, LaunchBlocking, Probe, Stack, Step, Verdict};
use crate::text::{Lang, Msg};

/// What the checklist is tailored to.
pub struct Context<'a> {
    pub lang: Lang,
    pub verdict: Verdict,
    /// True for notebooks and cell lists (cells to rerun), false for plain logs.
    pub notebook: bool,
    pub cause: Option<&'a Cause>,
    pub stack: Option<&'a Stack>,
    /// The kind of the first CUDA error that is not an assert, if any.
    pub other: Option<&'a str>,
    pub echo_count: u64,
    /// On Colab, with no kernel line in the input and no runtime log beside it: the first step
    /// is to copy them from the runtime log.
    pub runtime_log_step: bool,
    /// The probe cell, to paste first after the restart.
    pub probe: Option<&'a Probe>,
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
    let probe = c.cause.is_some_and(|c| c.evidence.first().is_some_and(|e| e.text.contains("FirstAssertError")));
    let done = |id: &str, title: Msg, body: Msg| step(id, title.text(l).into(), body.text(l).into(), None, true);
    let mut v = vec![done("restart", Msg::StepRestartTitle, Msg::StepRestartBody)];
    if probe {
        v.push(done("launch_blocking", Msg::StepLaunchBlockingTitle, Msg::StepLaunchBlockingDone));
        let body = if c.notebook { Msg::StepProbeBody } else { Msg::StepProbeScriptBody };
        v.push(done("probe", Msg::StepProbeTitle, body));
    } else {
        v.push(done("cpu", Msg::StepCpuTitle, Msg::StepCpuBody));
    }
    v.push(Step { done: true, ..rerun(c) });
    let fix = c.cause.map(|c| c.fix.clone()).filter(|f| !f.is_empty());
    v.push(step("fix", Msg::StepFixTitle.text(l).into(), fix.unwrap_or_else(|| Msg::StepFixGenericBody.text(l).into()), None, false));
    v.push(step("restart_again", Msg::StepRestartAgainTitle.text(l).into(), Msg::StepRestartAgainBody.text(l).into(), None, false));
    let (title, body) = if probe {
        (Msg::StepRemoveProbeTitle, Msg::StepRemoveProbeBody)
    } else {
        (Msg::StepRemoveLbTitle, Msg::StepRemoveLbBody)
    };
    v.push(step(if probe { "remove_probe" } else { "remove_launch_blocking" }, title.text(l).into(), body.text(l).into(), None, false));
    v
}

fn step(id: &str, title: String, body: String, code: Option<&str>, done: bool) -> Step {
    Step { id: id.to_string(), title, body, code: code.map(str::to_string), done }
}

fn assert_steps(c: &Context<'_>) -> Vec<Step> {
    let l = c.lang;
    let mut v = Vec::new();
    let category = c.cause.map(|c| c.category).unwrap_or(Category::Unknown);
    if c.runtime_log_step {
        v.push(step(
            "runtime_log",
            Msg::StepRuntimeLogTitle.text(l).into(),
            Msg::StepRuntimeLogBody.text(l).into(),
            None,
            false,
        ));
    }
    v.push(step(
        "restart",
        Msg::StepRestartTitle.text(l).into(),
        if category == Category::StaleContext { Msg::StepRestartStaleBody } else { Msg::StepRestartBody }
            .text(l)
            .into(),
        None,
        false,
    ));
    let lb = c.stack.map(|s| s.launch_blocking).unwrap_or(LaunchBlocking::NotSet);
    let lb_body = match lb {
        LaunchBlocking::Set => Msg::StepLaunchBlockingDone,
        LaunchBlocking::SetAfterImport | LaunchBlocking::SetAfterCuda | LaunchBlocking::Ignored => {
            Msg::StepLaunchBlockingLate
        }
        LaunchBlocking::NotSet => Msg::StepLaunchBlockingBody,
    };
    v.push(step(
        "launch_blocking",
        Msg::StepLaunchBlockingTitle.text(l).into(),
        lb_body.text(l).into(),
        Some(code(Msg::SnippetLaunchBlocking, l)),
        lb == LaunchBlocking::Set,
    ));
    if let Some(p) = c.probe {
        let body = if c.notebook { Msg::StepProbeBody } else { Msg::StepProbeScriptBody };
        v.push(step("probe", Msg::StepProbeTitle.text(l).into(), body.text(l).into(), Some(&p.code), false));
    }
    v.push(rerun(c));
    v.push(step(
        "first_only",
        Msg::StepFirstOnlyTitle.text(l).into(),
        if c.echo_count > 0 {
            Msg::StepFirstOnlyBody.fill(l, &[("n", &c.echo_count)])
        } else {
            Msg::StepFirstOnlyBodyNone.text(l).to_string()
        },
        None,
        false,
    ));
    // The probe prints the suspect values when the rerun fails; a cause's own snippet prints
    // them now, from the values the notebook still holds.
    if let Some(cause) = c.cause.filter(|c| c.snippet.is_some()) {
        let body = if cause.check.is_empty() { Msg::StepInspectBody.text(l).to_string() } else { cause.check.clone() };
        v.push(step("inspect", Msg::StepInspectTitle.text(l).into(), body, cause.snippet.as_deref(), false));
    }
    v.push(step(
        "cpu",
        Msg::StepCpuTitle.text(l).into(),
        Msg::StepCpuBody.text(l).into(),
        Some(code(Msg::SnippetCpu, l)),
        false,
    ));
    let fix = c
        .cause
        .map(|c| c.fix.clone())
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| Msg::StepFixGenericBody.text(l).into());
    v.push(step("fix", Msg::StepFixTitle.text(l).into(), fix, None, false));
    v.push(step(
        "restart_again",
        Msg::StepRestartAgainTitle.text(l).into(),
        Msg::StepRestartAgainBody.text(l).into(),
        None,
        false,
    ));
    v.push(step(
        "remove_launch_blocking",
        Msg::StepRemoveLbTitle.text(l).into(),
        Msg::StepRemoveLbBody.text(l).into(),
        None,
        false,
    ));
    v
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
        v.push(step(id, title.text(l).into(), body.text(l).into(), None, false));
    }
    v
}

fn rerun(c: &Context<'_>) -> Step {
    let l = c.lang;
    let (title, body) = if c.notebook {
        (Msg::StepRerunCellsTitle, Msg::StepRerunBody)
    } else {
        (Msg::StepRerunScriptTitle, Msg::StepRerunScriptBody)
    };
    step("rerun", title.text(l).into(), body.text(l).into(), None, false)
}

fn other_steps(c: &Context<'_>) -> Vec<Step> {
    let l = c.lang;
    let kind = c.other.unwrap_or("cuda_error");
    let mut v = vec![step(
        "restart",
        Msg::StepRestartTitle.text(l).into(),
        Msg::StepRestartOtherBody.text(l).into(),
        None,
        false,
    )];
    match kind {
        "out_of_memory" => {
            v.push(step(
                "reduce_memory",
                Msg::StepOomTitle.text(l).into(),
                Msg::StepOomBody.text(l).into(),
                Some(code(Msg::SnippetOom, l)),
                false,
            ));
        }
        "no_kernel_image" | "invalid_device_function" => {
            v.push(step(
                "match_build",
                Msg::StepNoKernelTitle.text(l).into(),
                Msg::StepNoKernelBody.text(l).into(),
                Some(code(Msg::SnippetNoKernel, l)),
                false,
            ));
        }
        "no_device"
        | "invalid_device_ordinal"
        | "driver_too_old"
        | "no_cuda_build"
        | "ecc_error"
        | "launch_timeout"
        | "device_busy" => {
            v.push(step(
                "check_gpu",
                Msg::StepGpuTitle.text(l).into(),
                Msg::StepGpuBody.text(l).into(),
                Some(code(Msg::SnippetGpu, l)),
                false,
            ));
        }
        "cuda_fork" => {
            v.push(step(
                "spawn",
                Msg::StepForkTitle.text(l).into(),
                Msg::StepForkBody.text(l).into(),
                Some(code(Msg::SnippetFork, l)),
                false,
            ));
        }
        "device_mismatch" => {
            v.push(step(
                "same_device",
                Msg::StepSameDeviceTitle.text(l).into(),
                Msg::StepSameDeviceBody.text(l).into(),
                Some(code(Msg::SnippetSameDevice, l)),
                false,
            ));
        }
        "nccl" => {
            v.push(step(
                "nccl_debug",
                Msg::StepNcclTitle.text(l).into(),
                Msg::StepNcclBody.text(l).into(),
                Some(code(Msg::SnippetNccl, l)),
                false,
            ));
        }
        _ => {
            v.push(step(
                "launch_blocking",
                Msg::StepLaunchBlockingTitle.text(l).into(),
                Msg::StepLaunchBlockingOtherBody.text(l).into(),
                Some(code(Msg::SnippetLaunchBlocking, l)),
                false,
            ));
            v.push(rerun(c));
        }
    }
    v
}
