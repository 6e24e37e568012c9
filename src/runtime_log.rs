//! Colab's runtime log (Runtime > View runtime logs): the kernel process's own stderr. On Colab
//! the kernel's `Assertion … failed` lines go there, never to a cell, so this log is where the
//! exact op and condition are.
//!
//! It arrives in three shapes, all read here:
//! - the viewer's download, CSV: a `Timestamp,Level,Message` header, then rows such as
//!   `"Jul 29, 2023, 4:32:52 PM",WARNING,"…"` (a quoted field may hold commas, `""` and
//!   line breaks);
//! - rows copied from the viewer: `Jul 29, 2023, 4:32:52 PM<TAB>WARNING<TAB>…`, or the three
//!   fields on lines of their own, or separated by spaces;
//! - the same rows run together on one line, as a Markdown paste or a chat leaves them.
//!
//! A row's time is written as the browser's locale writes it: `Jul 29, 2023, 4:32:52 PM`
//! (en-US), `29 Jul 2023, 16:32:52` (en-GB), `2023年7月29日 16:32:52` or `2023/7/29 下午4:32:52`
//! (zh-CN); ISO `2023-07-29 16:32:52` only under the CSV header (without it, that is how any
//! Python logger starts its lines). The viewer lists the newest row first: [`parse`] hands
//! the rows back oldest first, each with the line of the input it starts on.

/// One row of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// 1-based line of the input where the row's message starts.
    pub line: u64,
    /// A number that orders the rows' times (seconds, from the year on).
    pub time: u64,
    /// `INFO`, `WARNING`, ...
    pub level: &'static str,
    /// The message: what the process printed (it may hold line breaks).
    pub message: String,
}

/// A runtime log, its rows oldest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeLog {
    pub rows: Vec<Row>,
    /// The input listed the newest row first (the viewer's order).
    pub newest_first: bool,
    /// `csv` (the download) or `rows` (copied from the viewer).
    pub form: &'static str,
}

const LEVELS: [&str; 7] = ["WARNING", "ERROR", "INFO", "DEBUG", "CRITICAL", "WARN", "FATAL"];

const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// Reads `text` as a runtime log; `None` when it is not one.
pub fn parse(text: &str) -> Option<RuntimeLog> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let head = text.trim_start();
    let skipped = text[..text.len() - head.len()].matches('\n').count() as u64;
    let first = head.lines().next().unwrap_or("");
    let mut log = if first.trim().eq_ignore_ascii_case("Timestamp,Level,Message") {
        csv(head, skipped + 1)
    } else {
        rows(head, skipped + 1)?
    };
    if log.rows.is_empty() {
        return None;
    }
    // The viewer lists the newest first; a log sorted the other way is kept as it is. When
    // the times do not tell (all in one second), the viewer's order is assumed.
    let (mut back, mut forward) = (0u32, 0u32);
    for w in log.rows.windows(2) {
        match w[0].time.cmp(&w[1].time) {
            std::cmp::Ordering::Greater => back += 1,
            std::cmp::Ordering::Less => forward += 1,
            std::cmp::Ordering::Equal => {}
        }
    }
    log.newest_first = back >= forward;
    if log.newest_first {
        log.rows.reverse();
    }
    Some(log)
}

/// Whether a text that starts with `head` is a runtime log: its first line is the CSV
/// header, the header a copy of the viewer gives, or a row. (A cheap look at the first bytes;
/// [`parse`] decides.)
pub fn looks_like(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let start = head.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(head.len());
    let line = &head[start..];
    let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
    // Its start tells (a header, or a row's time and level): a single 10 MB line is not read
    // whole.
    let line = &line[..line.len().min(4096)];
    let line = match std::str::from_utf8(line) {
        Ok(l) => l,
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&line[..e.valid_up_to()]).unwrap_or_default(),
        Err(_) => return false,
    };
    let line = line.trim_end();
    line.eq_ignore_ascii_case("Timestamp,Level,Message")
        || is_copied_header(line)
        || (line.len() > 24 && line.is_char_boundary(24) && is_copied_header(&line[..24]))
        || !split_rows(line, 1).is_empty()
}

impl RuntimeLog {
    /// The rows of the kernel's session that matters: from the last kernel (re)start before
    /// the last row that reports a device-side assert (the whole log when none does). A
    /// runtime's log keeps every session since the machine started; the notebook shows the
    /// last run.
    pub fn session(&self) -> &[Row] {
        let is_assert = |r: &Row| r.message.contains("ssertion") || r.message.contains("device-side assert");
        let Some(last) = self.rows.iter().rposition(is_assert) else {
            return &self.rows;
        };
        let start = self.rows[..last].iter().rposition(|r| is_restart(&r.message)).map_or(0, |i| i + 1);
        &self.rows[start..]
    }
}

/// A row the kernel manager writes when a kernel starts again.
fn is_restart(m: &str) -> bool {
    let m = m.to_ascii_lowercase();
    m.contains("restarting kernel")
        || m.contains("kernel restarted")
        || m.contains("kernel started")
        || (m.contains("kernel ") && m.ends_with(" restarted"))
}

/// The CSV download. Rows that are not three fields with a time and a level are skipped.
fn csv(text: &str, first_line: u64) -> RuntimeLog {
    let mut rows = Vec::new();
    let mut line = first_line;
    let mut rest = text;
    let mut header = true;
    while !rest.is_empty() {
        let start = line;
        let (fields, used, breaks) = csv_record(rest);
        rest = &rest[used..];
        line += breaks;
        if std::mem::take(&mut header) {
            continue;
        }
        if let [ts, level, message] = &fields[..] {
            let time = stamp(ts.trim(), true).filter(|&(_, n)| n == ts.trim().len()).map(|(t, _)| t);
            if let (Some(time), Some(level)) = (time, level_of(level.trim())) {
                rows.push(Row { line: start, time, level, message: message.clone() });
            }
        }
    }
    RuntimeLog { rows, newest_first: false, form: "csv" }
}

/// One CSV record: its fields, the bytes it used (with its line break) and the line breaks
/// in it (quoted ones too).
fn csv_record(s: &str) -> (Vec<String>, usize, u64) {
    let b = s.as_bytes();
    let (mut fields, mut field) = (Vec::new(), String::new());
    let (mut i, mut breaks) = (0, 0);
    let mut quoted = false;
    let mut from = 0; // start of the unquoted run being copied
    while i < b.len() {
        match (quoted, b[i]) {
            (true, b'"') if b.get(i + 1) == Some(&b'"') => {
                field.push_str(&s[from..=i]);
                i += 2;
                from = i;
                continue;
            }
            (true, b'"') => {
                field.push_str(&s[from..i]);
                quoted = false;
                from = i + 1;
            }
            (true, b'\n') => breaks += 1,
            (false, b'"') if s[from..i].trim().is_empty() => {
                quoted = true;
                from = i + 1;
            }
            (false, b',') => {
                field.push_str(&s[from..i]);
                fields.push(std::mem::take(&mut field));
                from = i + 1;
            }
            (false, b'\n') => {
                field.push_str(s[from..i].strip_suffix('\r').unwrap_or(&s[from..i]));
                fields.push(field);
                return (fields, i + 1, breaks + 1);
            }
            _ => {}
        }
        i += 1;
    }
    field.push_str(&s[from.min(b.len())..]);
    fields.push(field);
    (fields, b.len(), breaks)
}

/// Rows copied from the viewer. `None` unless the text starts with a row (or the copied
/// header) and holds at least one.
fn rows(text: &str, first_line: u64) -> Option<RuntimeLog> {
    let mut rows: Vec<Row> = Vec::new();
    // A row whose time was alone on its line: its level and message may follow.
    let mut pending: Option<(u64, u64, Option<&'static str>)> = None;
    for (k, raw) in text.lines().enumerate() {
        let no = first_line + k as u64;
        let l = raw.trim_end_matches('\r');
        let mut t = l.trim_start();
        if k == 0 {
            if is_copied_header(t) {
                continue;
            }
            // Run together with the rows after it.
            if t.len() > 24 && t.is_char_boundary(24) && is_copied_header(&t[..24]) {
                t = t[24..].trim_start();
            }
        }
        if let Some((line, time, level)) = pending {
            match level {
                None if level_of(t.trim()).is_some() => {
                    pending = Some((line, time, level_of(t.trim())));
                    continue;
                }
                Some(level) => {
                    pending = None;
                    if stamp(t, false).is_none() {
                        rows.push(Row { line: no, time, level, message: l.to_string() });
                        continue;
                    }
                    rows.push(Row { line, time, level, message: String::new() });
                }
                None => pending = None,
            }
        }
        let found = split_rows(t, no);
        if found.is_empty() {
            match rows.last_mut() {
                // Any other line continues the message before it.
                Some(r) => {
                    r.message.push('\n');
                    r.message.push_str(l);
                }
                None if t.is_empty() => {}
                // Text before the first row: not a runtime log.
                None => return None,
            }
            continue;
        }
        for f in found {
            match f {
                Piece::Row(r) => rows.push(r),
                Piece::Alone { time, level } => pending = Some((no, time, level)),
            }
        }
    }
    if let Some((line, time, Some(level))) = pending {
        rows.push(Row { line, time, level, message: String::new() });
    }
    (!rows.is_empty()).then_some(RuntimeLog { rows, newest_first: false, form: "rows" })
}

/// The header the viewer's table gives a copy: `Timestamp`, `Level`, `Message`.
fn is_copied_header(l: &str) -> bool {
    let w: Vec<&str> = l.split_whitespace().collect();
    w.len() == 3 && w[0].eq_ignore_ascii_case("Timestamp") && w[1].eq_ignore_ascii_case("Level")
}

enum Piece {
    Row(Row),
    /// A time with no message after it on the line (its level, when given).
    Alone {
        time: u64,
        level: Option<&'static str>,
    },
}

/// The rows a line starts with: one, or several run together (`<time> <LEVEL> <message>`
/// again and again). Empty when the line does not start with a time.
fn split_rows(t: &str, no: u64) -> Vec<Piece> {
    let mut out = Vec::new();
    let Some((time, n)) = stamp(t, false) else { return out };
    let rest = &t[n..];
    let after = rest.trim_start_matches([' ', '\t', ',']);
    let Some((level, body)) = leading_level(after) else {
        if after.trim().is_empty() {
            out.push(Piece::Alone { time, level: None });
        }
        return out;
    };
    let body = body.strip_prefix('\t').or_else(|| body.strip_prefix(' ')).unwrap_or(body);
    if body.trim().is_empty() {
        out.push(Piece::Alone { time, level: Some(level) });
        return out;
    }
    // The next `<time> <LEVEL>` inside the message starts another row.
    let mut cut = None;
    for (i, _) in body.match_indices(' ') {
        let tail = &body[i + 1..];
        if let Some((_, m)) = stamp(tail, false) {
            if leading_level(tail[m..].trim_start_matches([' ', '\t', ','])).is_some() {
                cut = Some(i);
                break;
            }
        }
    }
    match cut {
        Some(i) => {
            out.push(Piece::Row(Row { line: no, time, level, message: body[..i].to_string() }));
            out.extend(split_rows(&body[i + 1..], no));
        }
        None => out.push(Piece::Row(Row { line: no, time, level, message: body.to_string() })),
    }
    out
}

/// A level word at the start of `s`, and what follows it.
fn leading_level(s: &str) -> Option<(&'static str, &str)> {
    let end = s.find([' ', '\t']).unwrap_or(s.len());
    let level = level_of(&s[..end])?;
    Some((level, &s[end..]))
}

fn level_of(s: &str) -> Option<&'static str> {
    LEVELS.iter().copied().find(|l| l.eq_ignore_ascii_case(s))
}

/// A row's time at the start of `s`: its ordering number and its length in bytes. `iso`
/// allows `2023-07-29 16:32:52` (under the CSV header only).
fn stamp(s: &str, iso: bool) -> Option<(u64, usize)> {
    let mut c = Cursor { s: s.as_bytes(), i: 0 };
    let (y, mo, d) = if let Some(m) = c.month() {
        // en-US: `Jul 29, 2023, 4:32:52 PM`
        c.eat(b" ")?;
        let d = c.num(1, 2)?;
        c.eat(b", ")?;
        let y = c.num(4, 4)?;
        c.eat(b", ")?;
        (y, m, d)
    } else {
        let first = c.num(1, 4)?;
        if c.i == 4 && c.eat("年".as_bytes()).is_some() {
            // zh-CN: `2023年7月29日 16:32:52`
            let m = c.num(1, 2)?;
            c.eat("月".as_bytes())?;
            let d = c.num(1, 2)?;
            c.eat("日".as_bytes())?;
            c.spaces();
            (first, m, d)
        } else if c.i == 4 && c.eat(b"/").is_some() {
            // zh-CN: `2023/7/29 16:32:52`
            let m = c.num(1, 2)?;
            c.eat(b"/")?;
            let d = c.num(1, 2)?;
            c.eat(b" ")?;
            (first, m, d)
        } else if c.i == 4 && iso && c.eat(b"-").is_some() {
            let m = c.num(2, 2)?;
            c.eat(b"-")?;
            let d = c.num(2, 2)?;
            c.eat(b" ").or_else(|| c.eat(b"T"))?;
            (first, m, d)
        } else if c.i <= 2 {
            // en-GB: `29 Jul 2023, 16:32:52`
            c.eat(b" ")?;
            let m = c.month()?;
            c.eat(b" ")?;
            let y = c.num(4, 4)?;
            c.eat(b", ")?;
            (y, m, first)
        } else {
            return None;
        }
    };
    let pm = if c.eat("下午".as_bytes()).is_some() { Some(true) } else { c.eat("上午".as_bytes()).map(|_| false) };
    let h = c.num(1, 2)?;
    c.eat(b":")?;
    let mi = c.num(2, 2)?;
    c.eat(b":")?;
    let sec = c.num(2, 2)?;
    if c.eat(b".").is_some() {
        c.num(1, 9)?;
    }
    let pm = pm.or_else(|| {
        let save = c.i;
        if c.eat(b" PM").is_some() || c.eat("\u{202f}PM".as_bytes()).is_some() {
            Some(true)
        } else if c.eat(b" AM").is_some() || c.eat("\u{202f}AM".as_bytes()).is_some() {
            Some(false)
        } else {
            c.i = save;
            None
        }
    });
    let _ = c.eat(b"Z");
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || mi > 59 || sec > 60 {
        return None;
    }
    let h = match pm {
        Some(pm) if (1..=12).contains(&h) => h % 12 + if pm { 12 } else { 0 },
        Some(_) => return None,
        None if h <= 23 => h,
        None => return None,
    };
    let day = (y * 13 + mo) * 32 + d;
    Some((((day * 24 + h) * 60 + mi) * 60 + sec, c.i))
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn eat(&mut self, lit: &[u8]) -> Option<()> {
        self.s[self.i..].starts_with(lit).then(|| self.i += lit.len())
    }

    fn spaces(&mut self) {
        while self.s.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }

    /// A number of `min..=max` digits.
    fn num(&mut self, min: usize, max: usize) -> Option<u64> {
        let n = self.s[self.i..].iter().take(max + 1).take_while(|c| c.is_ascii_digit()).count();
        if n < min || n > max {
            return None;
        }
        let v = self.s[self.i..self.i + n].iter().fold(0u64, |a, &c| a * 10 + u64::from(c - b'0'));
        self.i += n;
        Some(v)
    }

    fn month(&mut self) -> Option<u64> {
        let m = MONTHS.iter().position(|m| self.s[self.i..].starts_with(m.as_bytes()))?;
        self.i += 3;
        Some(m as u64 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(log: &RuntimeLog) -> Vec<&str> {
        log.rows.iter().map(|r| r.message.as_str()).collect()
    }

    #[test]
    fn times_as_browsers_write_them() {
        let t = |s: &str| stamp(s, false).unwrap_or_else(|| panic!("{s}")).0;
        assert_eq!(t("Jul 29, 2023, 4:32:52 PM"), t("29 Jul 2023, 16:32:52"));
        assert_eq!(t("Jul 29, 2023, 4:32:52 PM"), t("2023年7月29日 16:32:52"));
        assert_eq!(t("Jul 29, 2023, 4:32:52 PM"), t("2023/7/29 下午4:32:52"));
        assert_eq!(t("Jul 29, 2023, 12:05:00 AM") + 3600, t("Jul 29, 2023, 1:05:00 AM"));
        assert_eq!(t("Jul 29, 2023, 12:05:00 PM"), t("2023年7月29日 12:05:00"));
        assert!(t("Dec 31, 2025, 11:59:59 PM") < t("Jan 1, 2026, 12:00:00 AM"));
        assert!(t("Sep 1, 2025, 9:34:42 AM") < t("Sep 1, 2025, 9:34:44 AM"));
        assert_eq!(stamp("2023-07-29 16:32:52", true).map(|x| x.0), Some(t("29 Jul 2023, 16:32:52")));
        for not in
            ["2023-07-29 16:32:52", "Jul 29 4:32:52 PM", "Jul 29, 2023, 13:32:52 PM", "epoch 3: 4:32:52", "10:00:01 x"]
        {
            assert_eq!(stamp(not, false), None, "{not}");
        }
    }

    #[test]
    fn the_download_is_read_oldest_first_with_its_lines() {
        let text = "Timestamp,Level,Message\n\
\"Jul 29, 2023, 4:32:53 PM\",WARNING,\"RuntimeError: CUDA error: device-side assert triggered\"\n\
\"Jul 29, 2023, 4:32:52 PM\",WARNING,\"x.cu:7: k: block: [0,0,0], thread: [1,0,0] Assertion `a, \"\"b\"\"` failed.\"\n\
\"Jul 29, 2023, 4:32:52 PM\",WARNING,\"two\nlines\"\n\
\"Jul 29, 2023, 4:30:00 PM\",INFO,Kernel started: 1f2e\n";
        let log = parse(text).unwrap();
        assert_eq!(log.form, "csv");
        assert!(log.newest_first);
        assert_eq!(
            messages(&log),
            [
                "Kernel started: 1f2e",
                "two\nlines",
                "x.cu:7: k: block: [0,0,0], thread: [1,0,0] Assertion `a, \"b\"` failed.",
                "RuntimeError: CUDA error: device-side assert triggered"
            ]
        );
        assert_eq!(log.rows.iter().map(|r| r.line).collect::<Vec<_>>(), [6, 4, 3, 2]);
        assert_eq!(log.rows[2].level, "WARNING");
    }

    /// Only a line's start is read to tell: a row whose message runs on for kilobytes (cut in
    /// the middle of a character there) is still a row, and a long line of anything else is not.
    #[test]
    fn a_long_first_line_is_told_by_its_start() {
        let row = format!("Jul 29, 2023, 4:32:53 PM WARNING {}", "断言".repeat(3000));
        assert!(looks_like(row.as_bytes()));
        let flat = format!("Timestamp Level Message Jul 29, 2023, 4:32:53 PM WARNING {}", "x ".repeat(5000));
        assert!(looks_like(flat.as_bytes()));
        assert!(!looks_like("Timestamp ".repeat(2000).as_bytes()));
        assert!(!looks_like(format!("loss {}", "0.1 ".repeat(5000)).as_bytes()));
    }

    #[test]
    fn copied_rows_in_every_layout() {
        let tabs = "Timestamp\tLevel\tMessage\n\
Jul 29, 2023, 4:32:53 PM\tWARNING\tsecond\n\
Jul 29, 2023, 4:32:52 PM\tWARNING\tfirst\n";
        let lines = "Jul 29, 2023, 4:32:53 PM\nWARNING\nsecond\nJul 29, 2023, 4:32:52 PM\nWARNING\nfirst\n";
        let spaces = "Jul 29, 2023, 4:32:53 PM WARNING second\nJul 29, 2023, 4:32:52 PM WARNING first\n";
        let flat =
            "Timestamp Level Message Jul 29, 2023, 4:32:53 PM WARNING second Jul 29, 2023, 4:32:52 PM WARNING first";
        let zh = "2023年7月29日 16:32:53\tWARNING\tsecond\n2023年7月29日 16:32:52\tWARNING\tfirst\n";
        for text in [tabs, lines, spaces, zh] {
            let log = parse(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(messages(&log), ["first", "second"], "{text}");
            assert_eq!(log.form, "rows");
        }
        // Run together: the header is not a row, and a message may itself hold a date.
        let log = parse(&format!("{flat} on Jul 29, 2023, 4:00:00 PM done")).unwrap();
        assert_eq!(messages(&log), ["first on Jul 29, 2023, 4:00:00 PM done", "second"]);
        assert_eq!(log.rows[0].line, 1);
    }

    #[test]
    fn a_sorted_log_keeps_its_order_and_continuations_stay_with_their_row() {
        let text = "Jul 29, 2023, 4:32:50 PM\tWARNING\tTraceback (most recent call last):\n  File \"x.py\", line 1\nJul 29, 2023, 4:32:52 PM\tWARNING\tlast\n";
        let log = parse(text).unwrap();
        assert!(!log.newest_first);
        assert_eq!(messages(&log), ["Traceback (most recent call last):\n  File \"x.py\", line 1", "last"]);
    }

    #[test]
    fn other_text_is_not_a_runtime_log() {
        for text in [
            "",
            "2023-07-29 16:32:52 WARNING a Python logger's line\n",
            "Traceback (most recent call last):\nJul 29, 2023, 4:32:52 PM WARNING x\n",
            "Timestamp,Level,Message\n",
            "Jul 29, 2023, 4:32:52 PM is when it broke\n",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }

    #[test]
    fn the_session_is_the_last_one_with_an_assert() {
        let row = |m: &str| format!("Jul 29, 2023, 4:32:52 PM\tWARNING\t{m}\n");
        // Newest first, as the viewer lists them.
        let text = [
            row("KernelRestarter: restarting kernel (1/5), keep random ports"),
            row("later noise"),
            row("RuntimeError: CUDA error: device-side assert triggered"),
            row("k.cu:1: f: block: [0,0,0], thread: [0,0,0] Assertion `b` failed."),
            row("Kernel restarted: 77"),
            row("k.cu:1: f: block: [0,0,0], thread: [0,0,0] Assertion `a` failed."),
        ]
        .concat();
        let log = parse(&text).unwrap();
        let s: Vec<&str> = log.session().iter().map(|r| r.message.as_str()).collect();
        assert_eq!(s[0], "k.cu:1: f: block: [0,0,0], thread: [0,0,0] Assertion `b` failed.");
        assert_eq!(s.len(), 4);
    }
}
