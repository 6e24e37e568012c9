//! The facts as the report's types: sites, the first assert, frames, where Python raised.

use super::*;

/// Every distinct assertion site, with the rule that explains it.
pub(super) fn kernel_sites(facts: &Facts) -> Vec<KernelSiteCount> {
    let rs = ruleset();
    facts
        .sites
        .iter()
        .map(|s| {
            let m = rs.site_rule(&s.first.site, s.first.site.name.as_deref());
            KernelSiteCount {
                site: s.first.site.clone(),
                count: s.records(),
                first: s.first.loc.at,
                rule: m.map(|m| rs.rules[m.rule].id.to_string()),
                category: m.map(|m| rs.rules[m.rule].category),
            }
        })
        .collect()
}

pub(super) fn input_summary(facts: &Facts, ctx: &InputContext, format: InputFormat, source: Source) -> InputSummary {
    InputSummary {
        format,
        bytes: facts.stats.bytes,
        lines: facts.stats.lines,
        cells: ctx.cell_count,
        lossy_utf8: facts.stats.lossy_utf8,
        nul_bytes: facts.stats.nul_bytes,
        long_lines: facts.stats.long_lines,
        runtime_log: facts.runtime_log.map(|l| RuntimeLogSummary {
            form: l.form.to_string(),
            rows: l.rows,
            total: l.total,
            newest_first: l.newest_first,
        }),
        unreadable_cells: ctx.unreadable.clone(),
        superseded_cells: ctx.superseded.clone(),
        kernel: ctx.kernel.clone(),
        source,
    }
}

pub(super) fn kernel_first_assert(k: &KernelHit, agg: Option<&SiteAgg>, facts: &Facts) -> FirstAssert {
    FirstAssert {
        text: k.quote.text.clone(),
        text_truncated: k.quote.truncated,
        at: k.loc.at,
        place: String::new(),
        end_line: k.end_line,
        kind: if k.dialect == "dsa" { AssertKind::DsaReport } else { AssertKind::KernelAssert },
        dialect: k.dialect.to_string(),
        site: Some(k.site.clone()),
        repeats: agg.map(|a| Repeats {
            count: a.records(),
            blocks: a.blocks.len() as u64,
            threads: a.threads.len() as u64,
            block_range: a.block_range,
            thread_range: a.thread_range,
            last_line: a.last_line,
        }),
        offending: agg.and_then(|a| a.offending.clone()),
        context: context_lines(&facts.kernel_context),
    }
}

pub(super) fn context_lines(v: &[(u64, String)]) -> Vec<ContextLine> {
    v.iter().map(|(line, text)| ContextLine { line: *line, text: text.clone() }).collect()
}

pub(super) fn kind_id(k: HostKind) -> &'static str {
    match k {
        HostKind::DeviceAssert => "device_assert",
        HostKind::Other(o) => o,
    }
}

pub(super) fn frame(f: &TbFrame) -> Frame {
    let user = !f.path.is_empty() && !is_library(&f.path);
    Frame {
        file: f.path.clone(),
        line: f.line,
        function: f.func.clone(),
        code: f.code.as_ref().map(|c| c.0.clone()),
        user,
        library: if user { None } else { library_name(&f.path) },
        place: String::new(),
    }
}

/// The execution count a cell's file or frame header names: `Cell In[5]`, `Input In [5]`,
/// `<ipython-input-5-…>`, `/tmp/ipython-input-5-….py` (ipykernel's `/tmp/ipykernel_…/….py`
/// names none).
fn named_count(path: &str) -> Option<i64> {
    let p = path.trim_start();
    let (rest, close) = [("Cell In[", b']'), ("Input In [", b']'), ("<ipython-input-", b'-'), ("/tmp/ipython-input-", b'-')]
        .iter()
        .find_map(|(head, close)| p.strip_prefix(head).map(|r| (r, *close)))?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && digits < 12 && rest.as_bytes().get(digits) == Some(&close))
        .then(|| rest.bytes().take(digits).fold(0, |n, d| n * 10 + i64::from(d - b'0')))
}

/// Where a frame's line is when the frame is a notebook cell's code: in the cell its header
/// names, else in the latest cell that ran no later than the traceback's own and whose code has
/// the frame's line at that line number (the traceback's own cell first, so). `None` for any
/// other frame.
#[inline(never)]
pub(super) fn frame_cell(f: &TbFrame, cells: &[CellSource], tb_at: Location) -> Option<Location> {
    let line = f.line.filter(|&n| n > 0)?;
    if !crate::facts::is_cell_file(&f.path, true) {
        return None;
    }
    let at = |cell: Option<u32>, execution_count| Location { line: line.into(), cell, output: None, execution_count, runtime_log: false };
    if let Some(n) = named_count(&f.path) {
        return Some(at(cells.iter().find(|c| c.execution_count == Some(n)).map(|c| c.index), Some(n)));
    }
    // (A traceback may show the line cut short: at its width, or where a `\n` in it was read
    // as a line break.)
    let code = f.code.as_ref()?.0.trim();
    let last = cells.iter().find(|c| Some(c.index) == tb_at.cell).map_or(u64::MAX, |c| c.order);
    let cell = cells.iter().rev().filter(|c| c.order <= last).find(|c| {
        let l = c.source.lines().nth(line as usize - 1).unwrap_or("").trim();
        !l.is_empty() && (l == code || (code.len() >= 16 && l.starts_with(code)))
    })?;
    Some(at(Some(cell.index), cell.execution_count))
}

pub(super) fn raised_at(h: &HostHit, tb: Option<&Traceback>) -> RaisedAt {
    let frames: Vec<Frame> = tb
        .map(|t| t.frames.iter().filter(|f| !f.path.is_empty() || f.code.is_some()).map(frame).collect())
        .unwrap_or_default();
    let user_frame = frames.iter().rev().find(|f| f.user).cloned();
    let op_frame = frames.last().cloned();
    let frames = if frames.len() > 64 { frames[frames.len() - 64..].to_vec() } else { frames };
    RaisedAt { text: h.quote.text.clone(), at: h.loc.at, place: String::new(), exception: h.exception.clone(), user_frame, op_frame, frames }
}

/// Where the blamed line (the traceback's deepest frame of the user's own code) is, when it is
/// a line of a notebook cell's code.
pub(super) fn blamed_cell(h: &HostHit, tb: Option<&Traceback>, cells: &[CellSource]) -> Option<Location> {
    let f = tb?.frames.iter().rev().find(|f| !f.path.is_empty() && !is_library(&f.path))?;
    frame_cell(f, cells, h.loc.at)
}
