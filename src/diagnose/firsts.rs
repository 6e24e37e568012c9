//! Which line is the first assert, what the verdict is, and which later errors echo it.

use super::*;

/// The first assert as the scan saw it: the first kernel line and the first host line that
/// reports a device-side assert (either may be missing), and what follows from them.
pub(super) struct Firsts<'a> {
    pub(super) kernel: Option<KernelHit>,
    /// The kernel line's aggregate over every record of its site.
    pub(super) kernel_agg: Option<&'a SiteAgg>,
    /// Every host line that reports a device-side assert, in input order.
    pub(super) device_hosts: Vec<&'a HostHit>,
    pub(super) host: Option<&'a HostHit>,
    /// Where the first assert is: the kernel line, else the host line.
    pub(super) loc: Option<Loc>,
    /// The first moment the assert shows anywhere, kernel line or host line.
    pub(super) device_order: Option<u64>,
}

impl<'a> Firsts<'a> {
    pub(super) fn of(facts: &'a Facts) -> Firsts<'a> {
        let kernel = facts.first_kernel().cloned();
        let kernel_agg =
            kernel.as_ref().and_then(|k| facts.sites.iter().find(|s| s.first.loc == k.loc && s.first.site == k.site));
        let device_hosts: Vec<&HostHit> = facts.host.iter().filter(|h| h.kind == HostKind::DeviceAssert).collect();
        let host = device_hosts.first().copied();
        let loc = kernel.as_ref().map(|k| k.loc).or(host.map(|h| h.loc));
        let device_order =
            [kernel.as_ref().map(|k| k.loc.order), host.map(|h| h.loc.order)].into_iter().flatten().min();
        Firsts { kernel, kernel_agg, device_hosts, host, loc, device_order }
    }

    pub(super) fn verdict(&self, facts: &Facts, ctx: &InputContext) -> Verdict {
        if self.kernel.is_some() || self.host.is_some() {
            Verdict::DeviceAssert
        } else if facts.host.iter().any(|h| matches!(h.kind, HostKind::Other(_))) {
            Verdict::OtherCudaError
        } else if !ctx.unreadable.is_empty() {
            Verdict::Unreadable
        } else {
            Verdict::Clean
        }
    }

    /// The report's first assert: the kernel line, else the host line that reports it.
    pub(super) fn first_assert(&self, facts: &Facts) -> Option<FirstAssert> {
        match (&self.kernel, self.host) {
            (Some(k), _) => Some(kernel_first_assert(k, self.kernel_agg, facts)),
            (None, Some(h)) => Some(FirstAssert {
                text: h.quote.text.clone(),
                text_truncated: h.quote.truncated,
                at: h.loc.at,
                place: String::new(),
                end_line: None,
                kind: if h.described { AssertKind::Described } else { AssertKind::HostError },
                dialect: h.dialect.to_string(),
                site: None,
                repeats: None,
                offending: h.offending.clone(),
                context: context_lines(&facts.host_context),
            }),
            (None, None) => None,
        }
    }
}

/// The later CUDA errors: echoes of the first assert (at most [`MAX_ECHOES`] listed, all
/// counted) and the errors that are not (each explained). `first` is the host line that reports
/// the assert (the first assert itself when no kernel line is): never its own echo.
pub(super) fn echoes(
    facts: &Facts,
    first: Option<&HostHit>,
    first_loc: Option<Loc>,
    first_device_order: Option<u64>,
) -> (Vec<Echo>, u64, Vec<OtherError>) {
    let mut echoes = Vec::new();
    let mut echo_count = 0u64;
    let mut other_errors = Vec::new();
    for h in &facts.host {
        if first.is_some_and(|f| std::ptr::eq(f, h)) {
            continue;
        }
        let same_cell = first_loc.is_some_and(|f| f.at.cell.is_some() && f.at.cell == h.loc.at.cell);
        let is_echo = match first_device_order {
            Some(o) => h.kind == HostKind::DeviceAssert || h.loc.order > o || same_cell,
            None => false,
        };
        if is_echo {
            echo_count += 1;
            if echoes.len() < MAX_ECHOES {
                echoes.push(Echo {
                    text: h.quote.text.clone(),
                    at: h.loc.at,
                    place: String::new(),
                    kind: kind_id(h.kind).to_string(),
                    exception: h.exception.clone(),
                });
            }
        } else if let HostKind::Other(k) = h.kind {
            if other_errors.len() < MAX_ECHOES {
                other_errors.push(OtherError {
                    kind: k.to_string(),
                    text: h.quote.text.clone(),
                    at: h.loc.at,
                    place: String::new(),
                    exception: h.exception.clone(),
                    explanation: String::new(),
                });
            }
        }
    }
    // Echoes the scan only counted (beyond its storage limit) are echoes too.
    if first_device_order.is_some() {
        echo_count += facts.host_total.saturating_sub(facts.host.len() as u64);
    }
    (echoes, echo_count, other_errors)
}

/// How many cells the echoes are in (the first assert's own cell counts only when an echo is
/// there too).
pub(super) fn distinct_cells(echoes: &[Echo]) -> usize {
    let mut cells: Vec<u32> = Vec::new();
    for c in echoes.iter().filter_map(|e| e.at.cell) {
        if !cells.contains(&c) {
            cells.push(c);
        }
    }
    cells.len()
}
