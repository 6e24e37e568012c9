//! The evidence the rules weigh: the kernel site, the traceback's frames and lines, the
//! cells' source, the log's messages and the checks.

use super::*;
use crate::rules::{
    CODE, CODE_AROUND, CODE_EARLIER_CELL, CODE_FAILING_CELL, CODE_FRAME_LINE, CODE_OP_LINE, FRAME, FRAME_TRUSTED,
};

pub(super) fn rule_input<'a>(
    facts: &'a Facts,
    ctx: &'a InputContext,
    kernel: Option<&'a KernelHit>,
    tb: Option<&'a Traceback>,
    raised: Option<&'a HostHit>,
    stack: Option<&Stack>,
) -> Input<'a> {
    // Without a kernel line, the file an old build's host message names is a site too.
    let host_site = raised.and_then(|h| h.site.as_ref().map(|s| (s, None, h.loc)));
    let mut input = Input {
        site: kernel.map(|k| (&k.site, k.site.name.as_deref(), k.loc)).or(host_site),
        messages: &facts.messages,
        checks: &ctx.checks,
        trusted_trace: stack.is_some_and(|s| s.trustworthy),
        ..Input::default()
    };
    if let Some(tb) = tb {
        input.frames = tb.frames.iter().rev().filter(|f| !f.func.is_empty()).collect();
        // In PyTorch's own innermost frame the line shown is the call into the op
        // (`torch._C._nn.nll_loss2d(…)` inside `cross_entropy`): it counts as much as the frame,
        // so a rule that knows the exact op stands level with the one that knows the function.
        let frame = if input.trusted_trace { FRAME_TRUSTED } else { FRAME };
        for (depth, f) in tb.frames.iter().rev().enumerate() {
            // The op's own line speaks loudest; lines shown around it, less.
            if let Some((c, at)) = &f.code {
                let w = match depth {
                    0 if library_name(&f.path).as_deref() == Some("torch") => (frame / CODE).max(CODE_OP_LINE),
                    0 => CODE_OP_LINE,
                    _ => CODE_FRAME_LINE,
                };
                input.code.push((c.as_str(), *at, w));
            }
            for (c, at) in &f.context {
                input.code.push((c.as_str(), *at, CODE_AROUND));
            }
        }
        // The op that raised, when it cannot assert by itself (a device move, a read): the
        // evidence of an echo.
        if let Some(op) = tb.frames.last().and_then(|f| f.code.as_ref().map(|(c, at)| (c.as_str(), *at))) {
            if innocent_line(op.0) {
                input.raised = Some(op);
            }
        }
    }
    // The source of the cell that raised the error, and (with less weight) of the cells that
    // ran before it: what the notebook set up (a loss, a tokenizer change) is evidence too.
    if let Some(cell) = raised.and_then(|h| h.loc.at.cell) {
        let raised_order = ctx.cells.iter().find(|c| c.index == cell).map(|c| c.order);
        for src in &ctx.cells {
            let weight = if src.index == cell {
                CODE_FAILING_CELL
            } else if raised_order.is_some_and(|o| src.order < o) {
                CODE_EARLIER_CELL
            } else {
                continue;
            };
            for (i, line) in src.source.lines().enumerate() {
                let t = line.trim();
                if t.is_empty() || t.starts_with('#') {
                    continue;
                }
                let loc = Loc {
                    order: 0,
                    at: Location {
                        line: i as u64 + 1,
                        cell: Some(src.index),
                        output: None,
                        execution_count: src.execution_count,
                        runtime_log: false,
                    },
                    time: None,
                };
                input.code.push((line, loc, weight));
            }
        }
    }
    input
}
