//! Times at the start of log lines, to tell a log that lists the newest line first (cloud
//! consoles, log viewers) from one that runs forward.
//!
//! Read forms: `2026-03-01T10:00:01.123Z`, `2026-03-01 10:00:01,123`, `[2026-03-01 10:00:01]`,
//! `03-01 10:00:01` (vLLM), `Mar 01 10:00:01` (journald, syslog), `10:00:01.123`, wherever they
//! start in the first bytes of the line. A time is a number that orders the times of one log
//! (the year, month and day count when the line has them).

/// How far into a line a time may start.
const LOOK: usize = 96;

const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// The time at the start of `line`, as a number that orders times, or `None`.
pub fn parse(line: &str) -> Option<u64> {
    let b = &line.as_bytes()[..line.len().min(LOOK)];
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let num = |i: usize, n: usize| -> Option<u64> {
        let s = b.get(i..i + n)?;
        s.iter().all(u8::is_ascii_digit).then(|| s.iter().fold(0u64, |a, &c| a * 10 + u64::from(c - b'0')))
    };
    // The first `hh:mm:ss` not inside a longer number.
    let at = (0..b.len().saturating_sub(7)).find(|&i| {
        b[i + 2] == b':'
            && b[i + 5] == b':'
            && [0, 1, 3, 4, 6, 7].iter().all(|&k| digit(i + k))
            && (i == 0 || !digit(i - 1))
    })?;
    let (h, mi, s) = (num(at, 2)?, num(at + 3, 2)?, num(at + 6, 2)?);
    if h > 23 || mi > 59 || s > 60 {
        return None;
    }
    // A fraction of a second, to microseconds.
    let mut micro = 0u64;
    if matches!(b.get(at + 8), Some(b'.' | b',')) {
        let mut k = at + 9;
        let mut scale = 100_000u64;
        while digit(k) {
            micro += u64::from(b[k] - b'0') * scale;
            scale /= 10;
            k += 1;
        }
    }
    let (y, mo, d) = date_before(b, at).unwrap_or((0, 0, 0));
    let day = (y * 13 + mo) * 32 + d;
    Some(((day * 24 + h) * 60 + mi) * 60_000_000 + s * 1_000_000 + micro)
}

/// The date that ends right before the time at `at` (one separator between them).
fn date_before(b: &[u8], at: usize) -> Option<(u64, u64, u64)> {
    let end = at.checked_sub(1)?;
    if !matches!(b[end], b'T' | b' ' | b'_') {
        return None;
    }
    let num = |i: usize, n: usize| -> Option<u64> {
        let s = b.get(i..i + n)?;
        s.iter().all(u8::is_ascii_digit).then(|| s.iter().fold(0u64, |a, &c| a * 10 + u64::from(c - b'0')))
    };
    // YYYY-MM-DD or YYYY/MM/DD
    if end >= 10 && matches!(b[end - 3], b'-' | b'/') && b[end - 6] == b[end - 3] {
        if let (Some(y), Some(m), Some(d)) = (num(end - 10, 4), num(end - 5, 2), num(end - 2, 2)) {
            return Some((y, m, d));
        }
    }
    // MM-DD (vLLM)
    if end >= 5 && b[end - 3] == b'-' {
        if let (Some(m), Some(d)) = (num(end - 5, 2), num(end - 2, 2)) {
            return Some((0, m, d));
        }
    }
    // Mon DD (syslog pads the day with a space)
    let day_start = if end >= 2 && b[end - 2] == b' ' { end - 1 } else { end.checked_sub(2)? };
    let d = num(day_start, end - day_start)?;
    let mut k = day_start;
    while k > 0 && b[k - 1] == b' ' {
        k -= 1;
    }
    let mon = b.get(k.checked_sub(3)?..k)?;
    let m = MONTHS.iter().position(|name| name.as_bytes() == mon)? as u64 + 1;
    Some((0, m, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let t = |s: &str| parse(s).unwrap_or_else(|| panic!("{s}"));
        assert!(t("2026-03-01T10:00:01.123Z x") < t("2026-03-01T10:00:01.124Z x"));
        assert!(t("2026-03-01 23:59:59,999 - x") < t("2026-03-02 00:00:00,000 - x"));
        assert!(t("[2025-12-31 10:00:00] x") < t("[2026-01-01 09:00:00] x"));
        assert!(t("(VllmWorker rank=0 pid=7) ERROR 05-06 10:11:12 [core.py:1] x") < t("ERROR 05-06 10:11:13 x"));
        assert!(t("Mar  1 10:00:01 host p[1]: x") < t("Mar 12 10:00:00 host p[1]: x"));
        assert!(t("Feb 28 10:00:01 host x") < t("Mar 01 10:00:00 host x"));
        assert!(t("Feb 28 10:00:01 host x") < t("Mar  1 09:00:00 host x"));
        assert!(t("10:00:01.5\tERROR\tx") > t("10:00:01.25\tERROR\tx"));
        assert_eq!(parse("epoch 3 loss 0.25"), None);
        assert_eq!(parse("Loss.cu:250: nll_loss_forward: block: [0,0,0]"), None);
        assert_eq!(parse("99:99:99 x"), None);
        assert_eq!(parse("10:00"), None);
        assert_eq!(parse(&format!("{}10:00:01 x", "y".repeat(200))), None);
    }
}
