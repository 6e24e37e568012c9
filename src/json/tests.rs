//! The JSON reader against serde_json and its own edge cases.

use super::*;

#[test]
fn control_bytes_are_found_wherever_they_are() {
    for len in 0..40 {
        for at in 0..=len {
            let mut v = vec![b'a'; len];
            v.extend_from_slice(b"\xe6\x96\xad");
            if at < len {
                v[at] = 0x1f;
            }
            assert_eq!(control_at(&v), (at < len).then_some(at), "{len} {at}");
        }
    }
    assert_eq!(control_at(&[0x20, 0x7f, 0x80, 0xff]), None);
}

#[test]
fn a_strings_plain_run_ends_at_a_quote_a_backslash_or_a_control_byte() {
    for len in 0..40 {
        for at in 0..=len {
            for end in [b'"', b'\\', 0x1f, 0] {
                let mut v = vec![b'a'; len];
                v.extend_from_slice(b"\xe6\x96\xad");
                if at < len {
                    v[at] = end;
                }
                assert_eq!(special(&v), (at < len).then_some(at), "{len} {at}");
            }
        }
    }
    // The first of them, whichever it is.
    assert_eq!(special(b"ab\x01c\"\\"), Some(2));
    assert_eq!(special(b"ab\\c\"\x01"), Some(2));
}

/// The decoder stops where a byte-at-a-time decoder stops and writes what it writes,
/// whatever the runs' lengths against its 16-byte steps (an escape cut by a step's end
/// included) and whatever `out` already held.
#[test]
fn a_run_decodes_as_byte_by_byte() {
    fn reference(b: &[u8], out: &mut Vec<u8>) -> usize {
        let mut i = 0;
        while i < b.len() {
            match (b[i], b.get(i + 1).and_then(|&n| one_letter(n))) {
                (b'"', _) | (0..0x20, _) | (b'\\', None) => break,
                (b'\\', Some(d)) => {
                    out.push(d);
                    i += 2;
                }
                (c, _) => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        i
    }
    let pieces: [&[u8]; 12] = [
        b"a",
        b"bc",
        b"\xe6\x96\xad",
        b"\\n",
        b"\\t",
        b"\\\\",
        b"\\\"",
        b"0123456789abcdef",
        b"\\u00e9",
        b"\\x",
        b"\"",
        b"\x1f",
    ];
    let mut seed = 0x5eed_1234_u64;
    for round in 0..20_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut v = Vec::new();
        for k in 0..(seed % 24) {
            // Mostly plain and one-letter escapes, now and then a byte that stops.
            let p = ((seed >> (k % 50)) % 64) as usize;
            v.extend_from_slice(pieces[if p < 56 { p % 8 } else { 8 + p % 4 }]);
        }
        if round % 7 == 0 {
            v.push(b'\\');
        }
        let held = (seed >> 40) as usize % 20;
        let (mut ours, mut theirs) = (vec![b'.'; held], vec![b'.'; held]);
        ours.shrink_to_fit();
        assert_eq!(decode_run(&v, &mut ours), reference(&v, &mut theirs), "{v:?}");
        #[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
        assert_eq!(ours, theirs, "{v:?}");
    }
}

#[test]
fn values() {
    let v = parse(r#" {"a": [1, -2.5e3, true, false, null], "b": "x\"\u00e9\ud83d\ude00\n", "a": {}} "#).unwrap();
    assert_eq!(v.get("a"), Some(&Value::Obj(vec![])), "the last duplicate counts");
    assert_eq!(v.get("b").and_then(Value::as_str), Some("x\"é😀\n"));
    let Value::Obj(m) = &v else { panic!() };
    let Value::Arr(a) = &m[0].1 else { panic!() };
    assert_eq!(a[0].as_i64(), Some(1));
    assert_eq!(a[1].as_i64(), None);
    assert_eq!(Value::Num("-9223372036854775808").as_i64(), Some(i64::MIN));
    assert_eq!(Value::Num("9223372036854775808").as_i64(), None);
    assert_eq!(Value::Num("-1").as_u64(), None);
    assert!(matches!(parse(r#""plain""#).unwrap(), Value::Str(Cow::Borrowed("plain"))));
}

#[test]
fn errors_say_where_and_whether_the_text_ended() {
    let e = parse("{\"a\": [1, 2").unwrap_err();
    assert!(e.eof, "{e}");
    let e = parse("{\"a\":\n  x}").unwrap_err();
    assert!(!e.eof && e.line == 2 && e.column == 3, "{e}");
    for bad in [
        "",
        "[1,]",
        "{\"a\" 1}",
        "[01]",
        "[1.]",
        "\"\\x\"",
        "\"a\u{1}\"",
        "[] x",
        "{1: 2}",
        "nul",
        "\"\\ud83d\\u0041\"",
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
    // An error at or inside a character of several bytes says where, in characters.
    for (bad, column) in
        [("[1é]", 3), ("{\"é\"é}", 5), ("\"\\é\"", 3), ("[\"\u{5}é\"]", 3), ("é", 1), ("[é\u{1}", 2), ("\"\\u12€\"", 7)]
    {
        let e = parse(bad).unwrap_err();
        assert_eq!((e.line, e.column), (1, column), "{bad:?}: {e}");
    }
    let deep = "[".repeat(200) + &"]".repeat(200);
    assert!(parse(&deep).unwrap_err().to_string().contains("nested too deeply"));
    let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    assert!(parse(&ok).is_ok());
}

/// Strings with every kind of escape among plain runs of ASCII and characters of several
/// bytes read as serde_json reads them.
#[test]
fn strings_decode_as_serde_json_decodes_them() {
    let pieces = [
        "plain run ",
        "é",
        "断言",
        "😀",
        "\\n",
        "\\t",
        "\\\"",
        "\\\\",
        "\\/",
        "\\b\\f\\r",
        "\\u00e9",
        "\\u65ad",
        "\\ud83d\\ude00",
        "\\u0041",
        "a run of plain text longer than sixteen bytes ",
        "0123456789abcde",
        "0123456789abcdef0",
    ];
    let mut seed = 0x0dd_ba11_u64;
    for _ in 0..20_000 {
        let mut text = String::from("\"");
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        for k in 0..(seed % 9) {
            text.push_str(pieces[((seed >> (4 * k + 8)) % pieces.len() as u64) as usize]);
        }
        text.push('"');
        let ours = parse(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let theirs: String = serde_json::from_str(&text).unwrap();
        assert_eq!(ours.as_str(), Some(theirs.as_str()), "{text:?}");
    }
}

/// `value_lines` reads what `value` reads, with the arrays under the multi-line keys joined
/// as it says, and fails where `value` fails (over generated texts, cut short now and then).
#[test]
fn multi_line_strings_read_as_the_tree_joined() {
    fn multiline(k: &str) -> bool {
        k == "text" || k == "source"
    }
    // What `value_lines` says it does, done on the tree `value` reads.
    fn joined(v: Value<'_>, here: bool) -> Value<'_> {
        match v {
            Value::Arr(items) if here => {
                let mut text = String::new();
                let mut it = items.into_iter();
                for item in it.by_ref() {
                    match item {
                        Value::Str(s) => text.push_str(&s),
                        other => {
                            let mut rest = vec![Value::Str(Cow::Owned(text)), joined(other, false)];
                            rest.extend(it.map(|x| joined(x, false)));
                            return Value::Arr(rest);
                        }
                    }
                }
                Value::Str(Cow::Owned(text))
            }
            Value::Arr(items) => Value::Arr(items.into_iter().map(|x| joined(x, false)).collect()),
            Value::Obj(m) => Value::Obj(
                m.into_iter()
                    .map(|(k, x)| {
                        let h = multiline(&k);
                        (k, joined(x, h))
                    })
                    .collect(),
            ),
            other => other,
        }
    }
    fn gen(seed: &mut u64, depth: u32, out: &mut String) {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let pick = *seed % if depth > 3 { 4 } else { 7 };
        match pick {
            0 => out.push_str(["\"a\\n\"", "\"\\u00e9b\"", "\"plain\"", "\"\""][(*seed >> 8) as usize % 4]),
            1 => out.push_str(["1", "null", "true", "-2.5"][(*seed >> 8) as usize % 4]),
            2 | 3 => out.push_str("\"x\\ty\""),
            4 | 5 => {
                out.push('[');
                for i in 0..(*seed >> 12) % 4 {
                    out.push_str(if i > 0 { ", " } else { "" });
                    gen(seed, depth + 1, out);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                for i in 0..(*seed >> 12) % 4 {
                    out.push_str(if i > 0 { ", " } else { "" });
                    out.push_str(
                        ["\"text\": ", "\"source\": ", "\"other\": ", "\"te\\u0078t\": "]
                            [(*seed >> (16 + i)) as usize % 4],
                    );
                    gen(seed, depth + 1, out);
                }
                out.push('}');
            }
        }
    }
    let mut seed = 0xfeed_f00d_u64;
    let mut joins = 0;
    for round in 0..20_000 {
        let mut text = String::new();
        gen(&mut seed, 0, &mut text);
        if round % 9 == 0 {
            let cut = (seed >> 20) as usize % (text.len() + 1);
            text.truncate(cut);
            while !text.is_char_boundary(text.len()) {
                text.pop();
            }
        }
        let want = Reader::new(&text).value().map(|v| joined(v, false));
        let got = Reader::new(&text).value_lines(multiline);
        assert_eq!(got, want, "{text}");
        joins += usize::from(text.contains("\"text\": [") && got.is_ok());
    }
    assert!(joins > 500, "{joins}");
}

/// What serde_json accepts, this accepts, with the same values (over generated texts).
#[test]
fn reads_as_serde_json_does() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    let alphabet: Vec<char> = r#"{}[]",:0123-.eE+ \nabtrufls\u00e9"#.chars().collect();
    for _ in 0..50_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let len = (seed % 12) as usize;
        let text: String = (0..len).map(|k| alphabet[((seed >> (5 * k)) % alphabet.len() as u64) as usize]).collect();
        let ours = parse(&text).is_ok();
        let theirs = serde_json::from_str::<serde_json::Value>(&text).is_ok();
        assert_eq!(ours, theirs, "{text:?}");
    }
}
