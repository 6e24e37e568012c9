//! `TORCH_USE_CUDA_DSA` report records: a PyTorch built with device-side assertion tracking
//! prints each failure as `key = value` lines after `N CUDA device-side assertion failures were
//! found on GPU #d!`; a reader beside the kernel, host and traceback readers.

use super::*;

/// A `TORCH_USE_CUDA_DSA` report record being read.
#[derive(Default)]
pub(super) struct Dsa {
    loc: Option<Loc>,
    quote: String,
    site: KernelSite,
    kernel: Option<String>,
}

impl Scanner {
    /// Reads a line of a `TORCH_USE_CUDA_DSA` report; returns true when it was one.
    pub(super) fn dsa_line(&mut self, s: &str, seg: &str, loc: Loc) -> bool {
        let t = s.trim();
        // Every line of a report holds `ssertion` until a record has started.
        if self.dsa.is_none() && !crate::find::has(t, "ssertion") {
            return false;
        }
        if t.contains("Looking for device-side assertion failure information")
            || (t.contains("device-side assertion failure") && self.p.dsa_found.is_match(t))
        {
            self.rec.facts.dsa_report = true;
            return true;
        }
        if let Some(n) = t.find("Assertion failure ").map(|i| &t[i + "Assertion failure ".len()..]) {
            if n.trim().parse::<u32>().is_ok() {
                self.finish_dsa();
                self.dsa = Some(Dsa::default());
                return true;
            }
        }
        if t.contains(" = ") && (t.contains("assertion") || t.contains("kernel") || t.contains("Stream")) {
            if let Some(c) = self.p.dsa_field.captures(s) {
                let d = self.dsa.get_or_insert_with(Dsa::default);
                let v = c["value"].to_string();
                match &c["key"] {
                    "GPU assertion failure message" => {
                        d.loc = Some(loc);
                        d.quote = seg.trim().to_string();
                        d.site.condition = Some(v);
                    }
                    "File containing assertion" => match v.rsplit_once(':') {
                        Some((f, l)) if l.parse::<u32>().is_ok() => {
                            d.site.file = f.to_string();
                            d.site.line = l.parse().ok();
                        }
                        _ => d.site.file = v,
                    },
                    "Device function containing assertion" => d.site.function = Some(v),
                    "Thread ID that failed assertion" => d.site.thread = kernel::triple(&v),
                    "Block ID that failed assertion" => d.site.block = kernel::triple(&v),
                    "Name of kernel launched that led to failure" => d.kernel = Some(v),
                    _ => {}
                }
                return true;
            }
        }
        if self.dsa.is_some() {
            if t.contains("CPU launch site info")
                || t.contains("[But at least")
                || t.contains("Adjust `C10_CUDA_DSA")
                || t.contains("Launch stacktracing")
            {
                return true;
            }
            self.finish_dsa();
        }
        false
    }

    pub(super) fn finish_dsa(&mut self) {
        let Some(d) = self.dsa.take() else { return };
        let Some(loc) = d.loc else { return };
        self.rec.facts.dsa_report = true;
        let mut site = d.site;
        site.name = site
            .function
            .as_deref()
            .and_then(kernel::short_function)
            .or(d.kernel.as_deref().and_then(kernel::short_function));
        let p = kernel::Parsed { start: 0, end: 0, site, dialect: "dsa", cut: false, verbose: false, offending: None };
        let first = self.rec.facts.sites.is_empty();
        self.kernel_hit(p, &d.quote, loc, None);
        if first && !self.rec.facts.sites.is_empty() {
            self.rec.after.push((Target::Kernel, facts::CONTEXT));
        }
    }
}
