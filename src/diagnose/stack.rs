//! Whether the traceback can be trusted: an innocent op blamed, CUDA_LAUNCH_BLOCKING set, and
//! set in time.

use super::*;

/// The code line the user sees blamed, if it only reads, moves or prints data.
fn innocent_op(r: &RaisedAt) -> Option<String> {
    // The deepest frame decides first: if the op it runs can assert, nothing above is innocent.
    if let Some(code) = r.op_frame.as_ref().and_then(|f| f.code.as_deref()) {
        if ruleset().names_asserting_op(code) {
            return None;
        }
    }
    let f = r.user_frame.as_ref().or(r.op_frame.as_ref())?;
    let code = f.code.as_deref()?;
    innocent_line(code).then(|| code.trim().to_string())
}

/// Whether the traceback can be trusted, and why (`words` explains it).
pub(super) fn stack(facts: &Facts, ctx: &InputContext, first: Option<Loc>, raised: Option<&RaisedAt>) -> Stack {
    let async_note = !facts.async_notes.is_empty();
    let (launch_blocking, at) = launch_blocking(facts, ctx, first, async_note);
    // The kernel saw CUDA start: what it saw is the state (the cells still say where it was set).
    let seen = ctx.kernel.as_ref().and_then(|k| k.launch_blocking);
    let launch_blocking = match seen {
        Some(true) if async_note => LaunchBlocking::Ignored,
        Some(true) => LaunchBlocking::Set,
        // Set in a cell, yet not in force when CUDA started: set after it.
        Some(false) if at.is_some() => LaunchBlocking::SetAfterCuda,
        Some(false) => LaunchBlocking::NotSet,
        None => launch_blocking,
    };
    let innocent = raised.and_then(innocent_op);
    let has_frames = raised.is_some_and(|r| !r.frames.is_empty());
    let trustworthy = launch_blocking == LaunchBlocking::Set && !async_note && innocent.is_none() && has_frames;
    Stack {
        trustworthy,
        async_note,
        launch_blocking,
        launch_blocking_at: at,
        launch_blocking_known: seen.is_some(),
        innocent_op: innocent,
        explanation: String::new(),
    }
}

/// What is known about `CUDA_LAUNCH_BLOCKING` before the first assert.
fn launch_blocking(
    facts: &Facts,
    ctx: &InputContext,
    first: Option<Loc>,
    async_note: bool,
) -> (LaunchBlocking, Option<Location>) {
    let p = patterns();
    let first_order = first.map_or(u64::MAX, |l| l.order);
    // Notebook cells, in run order: where it was set, where torch was imported, where CUDA
    // was first used.
    let mut cells: Vec<_> = ctx.cells.iter().filter(|c| c.execution_count.is_some()).collect();
    crate::order::sort_by_key(&mut cells, |c| (c.order, 0));
    let first_cell_exec = first.and_then(|l| l.at.execution_count);
    let mut set_at: Option<(usize, usize, Location)> = None;
    let mut import_at: Option<(usize, usize)> = None;
    let mut cuda_at: Option<(usize, usize)> = None;
    for (ci, c) in cells.iter().enumerate() {
        if first_cell_exec.is_some_and(|e| c.execution_count.is_some_and(|x| x > e)) {
            break;
        }
        for (li, line) in c.source.lines().enumerate() {
            let code = line.split('#').next().unwrap_or("");
            if set_at.is_none() && p.sets_launch_blocking(line) {
                set_at = Some((
                    ci,
                    li,
                    Location {
                        line: li as u64 + 1,
                        cell: Some(c.index),
                        output: None,
                        execution_count: c.execution_count,
                        runtime_log: false,
                    },
                ));
            }
            if import_at.is_none() && p.imports_torch_in(code) {
                import_at = Some((ci, li));
            }
            if cuda_at.is_none() && p.uses_cuda_in(code) {
                cuda_at = Some((ci, li));
            }
        }
    }
    if let Some((ci, li, at)) = set_at {
        let state = if async_note {
            LaunchBlocking::Ignored
        } else if cuda_at.is_some_and(|c| c < (ci, li)) {
            LaunchBlocking::SetAfterCuda
        } else if import_at.is_some_and(|i| i < (ci, li)) {
            LaunchBlocking::SetAfterImport
        } else {
            LaunchBlocking::Set
        };
        // An async note proves PyTorch did not see it; the cell order says why.
        let state = match (state, async_note) {
            (LaunchBlocking::Ignored, true) if cuda_at.is_some_and(|c| c < (ci, li)) => LaunchBlocking::SetAfterCuda,
            (LaunchBlocking::Ignored, true) if import_at.is_some_and(|i| i < (ci, li)) => {
                LaunchBlocking::SetAfterImport
            }
            (s, _) => s,
        };
        return (state, Some(at));
    }
    if let Some(m) = facts.launch_blocking.iter().find(|m| m.loc.order < first_order) {
        let state = if async_note { LaunchBlocking::Ignored } else { LaunchBlocking::Set };
        return (state, Some(m.loc.at));
    }
    (LaunchBlocking::NotSet, None)
}
