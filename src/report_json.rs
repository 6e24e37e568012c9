//! The report as JSON text, written by hand: the WebAssembly package's way out (the page parses
//! it with `JSON.parse`). serde's derived code and serde_json cost the package 4.7 KB gzipped;
//! this writer is a small fraction of that. The CLI keeps serde. `tests/contract.rs` checks,
//! on every test input, that both write the same text byte for byte.

use crate::report::*;

/// A report's JSON, as `serde_json::to_string` writes it.
pub fn to_string(r: &Report) -> String {
    json(r)
}

/// A JSON text being written.
#[derive(Default)]
pub struct Out {
    buf: String,
    /// No member written yet in the object being written.
    first: bool,
}

impl Out {
    /// Starts an object.
    #[inline(never)]
    pub fn open(&mut self) {
        self.buf.push('{');
        self.first = true;
    }

    /// Ends the object being written.
    #[inline(never)]
    pub fn close(&mut self) {
        self.buf.push('}');
        self.first = false;
    }

    /// Starts a member of the object being written: its key (its value follows).
    #[inline(never)]
    pub fn key(&mut self, key: &str) {
        if !self.first {
            self.buf.push(',');
        }
        self.first = false;
        self.string(key);
        self.buf.push(':');
    }

    /// A string, escaped as serde_json escapes: `"`, `\`, and control characters.
    #[inline(never)]
    fn string(&mut self, s: &str) {
        self.buf.push('"');
        let mut from = 0;
        for (i, b) in s.bytes().enumerate() {
            let esc = match b {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0x08 => "\\b",
                0x0c => "\\f",
                0..=0x1f => "",
                _ => continue,
            };
            self.buf.push_str(&s[from..i]);
            if esc.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.buf.push_str("\\u00");
                self.buf.push(HEX[usize::from(b >> 4)] as char);
                self.buf.push(HEX[usize::from(b & 15)] as char);
            } else {
                self.buf.push_str(esc);
            }
            from = i + 1;
        }
        self.buf.push_str(&s[from..]);
        self.buf.push('"');
    }

    #[inline(never)]
    fn uint(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        for &d in &digits[i..] {
            self.buf.push(d as char);
        }
    }
}

/// A value that writes itself as JSON.
pub trait Json {
    fn json(&self, o: &mut Out);
}

impl Json for str {
    fn json(&self, o: &mut Out) {
        o.string(self);
    }
}

impl<T: Json + ?Sized> Json for &T {
    fn json(&self, o: &mut Out) {
        (**self).json(o);
    }
}

impl Json for String {
    fn json(&self, o: &mut Out) {
        o.string(self);
    }
}

impl Json for bool {
    fn json(&self, o: &mut Out) {
        o.buf.push_str(if *self { "true" } else { "false" });
    }
}

impl Json for u32 {
    fn json(&self, o: &mut Out) {
        o.uint(u64::from(*self));
    }
}

impl Json for u64 {
    fn json(&self, o: &mut Out) {
        o.uint(*self);
    }
}

impl Json for i64 {
    fn json(&self, o: &mut Out) {
        if *self < 0 {
            o.buf.push('-');
        }
        o.uint(self.unsigned_abs());
    }
}

/// Confidences: the engine rounds them to hundredths, written as the shortest text that reads
/// back as the same number (`0.95`, `0.5`, `1.0`), as serde_json does.
impl Json for f64 {
    fn json(&self, o: &mut Out) {
        let n = (self.clamp(0.0, 1e15) * 100.0).round() as u64;
        o.uint(n / 100);
        o.buf.push('.');
        let frac = n % 100;
        if frac.is_multiple_of(10) {
            o.uint(frac / 10);
        } else {
            o.buf.push((b'0' + (frac / 10) as u8) as char);
            o.buf.push((b'0' + (frac % 10) as u8) as char);
        }
    }
}

impl<T: Json> Json for Option<T> {
    fn json(&self, o: &mut Out) {
        match self {
            Some(v) => v.json(o),
            None => o.buf.push_str("null"),
        }
    }
}

impl<T: Json> Json for [T] {
    fn json(&self, o: &mut Out) {
        o.buf.push('[');
        for (i, v) in self.iter().enumerate() {
            if i > 0 {
                o.buf.push(',');
            }
            v.json(o);
        }
        o.buf.push(']');
        o.first = false;
    }
}

impl<T: Json> Json for Vec<T> {
    fn json(&self, o: &mut Out) {
        self.as_slice().json(o);
    }
}

impl<T: Json, const N: usize> Json for [T; N] {
    fn json(&self, o: &mut Out) {
        self.as_slice().json(o);
    }
}

/// Enums write their id.
macro_rules! by_id {
    ($($t:ty),*) => {$(
        impl Json for $t {
            fn json(&self, o: &mut Out) {
                o.string(self.id());
            }
        }
    )*};
}
by_id!(Verdict, Category, AssertKind, LaunchBlocking, Basis, InputFormat, Source);

impl Json for crate::text::Lang {
    fn json(&self, o: &mut Out) {
        o.string(self.code());
    }
}

/// The keys a struct of the contract writes, in order: the one list of its fields. A test holds
/// serde's keys, the TypeScript interfaces (`src/wasm.rs`) and the page's reading of a shared
/// report (`www/share.js`) to these.
pub trait Keys {
    const KEYS: &'static [&'static str];
}

/// Structs write their fields in order (`@at` inlines a [`Location`], as `#[serde(flatten)]`; `@where` writes `place` as `where`;
/// `?f` writes an `Option` only when it is `Some`, as `skip_serializing_if`), and list them as [`Keys::KEYS`].
macro_rules! fields {
    ($t:ty { $($f:tt)* }) => {
        impl $crate::report_json::Json for $t {
            fn json(&self, o: &mut $crate::report_json::Out) {
                o.open();
                $crate::report_json::fields!(@ self, o, $($f)*);
                o.close();
            }
        }
        impl $crate::report_json::Keys for $t {
            const KEYS: &'static [&'static str] = $crate::report_json::fields!(@keys [] $($f)*);
        }
    };
    (@keys [$($k:expr),*] @at $(, $($rest:tt)*)?) => {
        $crate::report_json::fields!(@keys [$($k,)* "line", "cell", "output", "execution_count", "runtime_log"] $($($rest)*)?)
    };
    (@keys [$($k:expr),*] @where $(, $($rest:tt)*)?) => {
        $crate::report_json::fields!(@keys [$($k,)* "where"] $($($rest)*)?)
    };
    (@keys [$($k:expr),*] ? $f:ident $(, $($rest:tt)*)?) => {
        $crate::report_json::fields!(@keys [$($k,)* stringify!($f)] $($($rest)*)?)
    };
    (@keys [$($k:expr),*] $f:ident $(, $($rest:tt)*)?) => {
        $crate::report_json::fields!(@keys [$($k,)* stringify!($f)] $($($rest)*)?)
    };
    (@keys [$($k:expr),*]) => { &[$($k),*] };
    (@ $s:ident, $o:ident, @at $(, $($rest:tt)*)?) => {{
        $s.at.members($o);
        $($crate::report_json::fields!(@ $s, $o, $($rest)*);)?
    }};
    (@ $s:ident, $o:ident, @where $(, $($rest:tt)*)?) => {{
        $o.key("where");
        $crate::report_json::Json::json(&$s.place, $o);
        $($crate::report_json::fields!(@ $s, $o, $($rest)*);)?
    }};
    (@ $s:ident, $o:ident, ? $f:ident $(, $($rest:tt)*)?) => {{
        if let Some(v) = &$s.$f {
            $o.key(stringify!($f));
            $crate::report_json::Json::json(v, $o);
        }
        $($crate::report_json::fields!(@ $s, $o, $($rest)*);)?
    }};
    (@ $s:ident, $o:ident, $f:ident $(, $($rest:tt)*)?) => {{
        $o.key(stringify!($f));
        $crate::report_json::Json::json(&$s.$f, $o);
        $($crate::report_json::fields!(@ $s, $o, $($rest)*);)?
    }};
    (@ $s:ident, $o:ident,) => {{}};
}
#[allow(unused_imports)] // used by the WebAssembly binding
pub(crate) use fields;

/// A value's JSON.
pub fn json<T: Json + ?Sized>(v: &T) -> String {
    let mut o = Out::default();
    v.json(&mut o);
    o.buf
}

impl Location {
    /// Writes the place's members into the object being written.
    fn members(&self, o: &mut Out) {
        o.key("line");
        self.line.json(o);
        o.key("cell");
        self.cell.json(o);
        o.key("output");
        self.output.json(o);
        o.key("execution_count");
        self.execution_count.json(o);
        if self.runtime_log {
            o.key("runtime_log");
            true.json(o);
        }
    }
}

impl Json for Location {
    fn json(&self, o: &mut Out) {
        o.open();
        self.members(o);
        o.close();
    }
}

impl Keys for Location {
    /// (`runtime_log` only when true.)
    const KEYS: &'static [&'static str] = &["line", "cell", "output", "execution_count", "runtime_log"];
}

fields!(Report {
    schema,
    tool,
    lang,
    input,
    verdict,
    headline,
    first_assert,
    confirmation,
    kernel_sites,
    raised_at,
    cause,
    echoes,
    echo_count,
    stack,
    other_errors,
    checklist,
    probe,
    notes,
    ?root_cause
});
fields!(Probe { code, ops });
fields!(Tool { name, version });
fields!(InputSummary { format, bytes, lines, cells, lossy_utf8, nul_bytes, long_lines, runtime_log, unreadable_cells, superseded_cells, kernel, source });
fields!(KernelFacts { torch, device, launch_blocking, compiled, read, late_cells });
fields!(RuntimeLogSummary { form, rows, total, newest_first });
fields!(FirstAssert { text, text_truncated, @at, @where, end_line, kind, dialect, site, repeats, offending, context });
fields!(Offending { value, allowed });
fields!(Confirmation { source, op, value, allowed, line, values, clue, @where, text, at });
fields!(KernelSite { file, line, function, name, condition, block, thread });
fields!(Repeats { count, blocks, threads, block_range, thread_range, last_line });
fields!(ContextLine { line, text });
fields!(KernelSiteCount { site, count, first, rule, category });
fields!(Frame { file, line, function, code, user, library, @where });
fields!(RaisedAt { text, @at, @where, exception, user_frame, op_frame, frames });
fields!(Evidence { scope, text, matched, @at, @where });
fields!(Cause { category, rule, confidence, basis, title, summary, why, fix, check, snippet, ops, evidence, candidates });
fields!(Candidate { category, rule, confidence, title, evidence });
fields!(Echo { text, @at, @where, kind, exception });
fields!(Stack { trustworthy, async_note, launch_blocking, launch_blocking_at, launch_blocking_known, innocent_op, explanation });
fields!(OtherError { kind, text, @at, @where, exception, explanation });
fields!(Step { id, title, body, code, done });
fields!(Note { id, text });
fields!(RootCause { rank, local_rank, host, time, exitcode, pid, error_file, ties, @at, @where });

#[cfg(test)]
mod tests {
    use super::json as text;

    #[test]
    fn values_as_serde_json_writes_them() {
        for s in ["", "plain", "q\"b\\s", "\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}", "é 中 \u{2028} 🙂"] {
            assert_eq!(text(s), serde_json::to_string(s).unwrap(), "{s:?}");
        }
        for n in [0u64, 7, 10, 1234567890123, u64::MAX] {
            assert_eq!(text(&n), n.to_string());
        }
        for n in [0i64, -1, -9_223_372_036_854_775_808, 42] {
            assert_eq!(text(&n), n.to_string());
        }
        for c in 0..=100u32 {
            let v = f64::from(c) / 100.0;
            assert_eq!(text(&v), serde_json::to_string(&v).unwrap(), "{v}");
        }
        assert_eq!(text(&Some([1u32, 2, 3])), "[1,2,3]");
        assert_eq!(text(&None::<u32>), "null");
        assert_eq!(text(&Vec::<Vec<u32>>::from([vec![], vec![1]])), "[[],[1]]");
    }
}
