//! The evidence the rules weigh: the kernel site, the traceback's frames and lines, the
//! cells' source, the log's messages and the checks.

use super::*;
use crate::notebook::lineage::lineage;
use crate::rules::{
    CODE, CODE_AROUND, CODE_EARLIER_CELL, CODE_FAILING_CELL, CODE_FRAME_LINE, CODE_OP_LINE, FRAME, FRAME_TRUSTED,
    UNRELATED_CELL,
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
    // ran before it: what the notebook set up (a loss, a tokenizer change) is evidence too, and
    // what a cell outside the failing cell's lineage shows, much less.
    if let Some(cell) = raised.and_then(|h| h.loc.at.cell) {
        let raised_order = ctx.cells.iter().find(|c| c.index == cell).map(|c| c.order);
        if let Some(related) = lineage(&ctx.cells, cell) {
            input.unrelated = ctx.cells.iter().map(|c| c.index).filter(|i| !related.contains(i)).collect();
        }
        for src in &ctx.cells {
            let weight = if src.index == cell {
                CODE_FAILING_CELL
            } else if raised_order.is_some_and(|o| src.order < o) {
                CODE_EARLIER_CELL * if input.unrelated.contains(&src.index) { UNRELATED_CELL } else { 1.0 }
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
    // Printed sampling settings: context for the priors (a generation's `do_sample=True`), but
    // not a line of code shown again (a traceback prints the cell's `generate(…)` line).
    let shown = |t: &str| input.code.iter().any(|(c, _, _)| c.trim().len() > 8 && t.contains(c.trim()));
    input.context =
        facts.sampling.iter().filter(|m| !shown(&m.text)).map(|m| (m.text.as_str(), m.loc, CODE_AROUND)).collect();
    // A person's own report: the sentences around it are all there is to go on (the task, the
    // names, what they changed), read as context.
    // A host error pasted alone: the writer's sentences around it, likewise.
    if let Some(h) = raised.filter(|h| h.described || !facts.report_context.is_empty()) {
        let at = |line: u64| Loc { at: Location { line, ..h.loc.at }, ..h.loc };
        if h.described {
            input.context.push((h.quote.text.as_str(), h.loc, CODE_AROUND));
        }
        input.context.extend(facts.report_context.iter().map(|(line, text)| (text.as_str(), at(*line), CODE_AROUND)));
    }
    input
}

/// The most of an evidence line a report quotes, in characters: the line itself is in the
/// input, one jump away on the page (a 3,000-character printout quoted whole buried the card).
pub(super) const EVIDENCE_CHARS: usize = 160;

/// An evidence line as the report quotes it: whole when short, else the part around what the
/// rule matched (kept whole, cut only past [`EVIDENCE_CHARS`] itself), "…" where it was cut.
pub(super) fn clipped(text: &str, matched: Option<&str>) -> String {
    let chars = text.chars().count();
    if chars <= EVIDENCE_CHARS {
        return text.to_string();
    }
    // The match's place in characters (its first occurrence), else the line's start.
    let (at, len) = matched
        .filter(|m| !m.is_empty())
        .and_then(|m| text.find(m).map(|b| (text[..b].chars().count(), m.chars().count())))
        .unwrap_or((0, 0));
    // A little before the match for its context, the rest after it.
    let lead = (EVIDENCE_CHARS.saturating_sub(len) / 4).min(at);
    let from = at - lead;
    let to = (from + EVIDENCE_CHARS.max(len.min(EVIDENCE_CHARS))).min(chars);
    let from = to.saturating_sub(EVIDENCE_CHARS).min(from);
    let part: Vec<char> = text.chars().skip(from).take(to - from).collect();
    // Cut between words where one ends near the cut, never inside the match.
    let (m_from, m_to) = (at.saturating_sub(from), (at + len).saturating_sub(from).min(part.len()));
    let start =
        if from > 0 { part[..m_from.min(32)].iter().position(|c| c.is_whitespace()).map_or(0, |i| i + 1) } else { 0 };
    let end = if to < chars {
        let floor = m_to.max(part.len().saturating_sub(32)).max(start);
        part[floor..].iter().rposition(|c| c.is_whitespace()).map_or(part.len(), |i| floor + i)
    } else {
        part.len()
    };
    let part: String = part[start..end].iter().collect();
    format!("{}{}{}", if from > 0 { "…" } else { "" }, part.trim(), if to < chars { "…" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::{clipped, EVIDENCE_CHARS};

    #[test]
    fn a_short_line_is_quoted_whole() {
        assert_eq!(clipped("loss = criterion(out, y)", Some("criterion(")), "loss = criterion(out, y)");
    }

    #[test]
    fn a_long_line_keeps_its_match_and_says_where_it_was_cut() {
        let ids = (0..600).map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
        // The match at the start: the line's start, then a cut.
        let text = format!("newly initialized: ['score.weight'] and the ids: [{ids}]");
        let c = clipped(&text, Some("newly initialized: ['score"));
        assert!(c.starts_with("newly initialized: ['score.weight']") && c.ends_with('…'), "{c}");
        assert!(c.chars().count() <= EVIDENCE_CHARS + 2, "{}", c.chars().count());
        // The match in the middle: cut on both sides, the match whole.
        let text = format!("[{ids}] tokenizer.add_tokens(new) [{ids}]");
        let c = clipped(&text, Some("add_tokens("));
        assert!(c.starts_with('…') && c.ends_with('…') && c.contains("tokenizer.add_tokens(new)"), "{c}");
        // At the end: cut before only.
        let text = format!("[{ids}] x.resize_token_embeddings(n)");
        let c = clipped(&text, Some("resize_token_embeddings("));
        assert!(c.starts_with('…') && c.ends_with("x.resize_token_embeddings(n)"), "{c}");
        // No match known: the start.
        assert!(clipped(&text, None).starts_with("[0, 1, 2"));
        // Cut between words, not inside one.
        let text = format!(
            "{} the head is newly initialized: ['classifier.weight'] {}",
            "Someweights of a model ".repeat(8),
            "more words ".repeat(10)
        );
        let c = clipped(&text, Some("newly initialized: ['classifier"));
        let inner = c.trim_matches('…');
        assert!(text.contains(&format!(" {inner} ")) || text.starts_with(inner) || text.ends_with(inner), "{c}");
    }

    /// Any text and match: an answer, never a panic (char boundaries, a match longer than the cut).
    #[test]
    fn any_text() {
        let long = "é".repeat(400);
        for (t, m) in
            [(long.as_str(), Some(long.as_str())), (long.as_str(), Some("éé")), (long.as_str(), Some("x")), ("", None)]
        {
            let c = clipped(t, m);
            assert!(c.chars().count() <= EVIDENCE_CHARS + 2);
        }
    }
}
