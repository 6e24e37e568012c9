//! A small JSON reader (RFC 8259) for what the engine reads: notebooks, cell lists, catalogues
//! and the package's options.
//!
//! It reads a value into a light tree ([`Value`]: strings borrowed where they hold no escape,
//! numbers kept as their text, objects as lists of pairs where the last of duplicate keys
//! counts), or walks the elements of an array one at a time ([`Reader::each`]) so that a
//! notebook's cells are read and dropped one by one. Nesting is bounded ([`MAX_DEPTH`]), every
//! error says where it is and whether the text simply ended, and nothing in the input can make
//! it panic or take more than linear time. It is the engine's own so that the WebAssembly
//! package carries no general-purpose JSON library, and native builds read the same way.

use std::borrow::Cow;
use std::fmt;

/// How deep arrays and objects may nest.
pub const MAX_DEPTH: usize = 128;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// A number, as written.
    Num(&'a str),
    Str(Cow<'a, str>),
    Arr(Vec<Value<'a>>),
    /// Members in order; duplicate keys are all kept (see [`Value::get`]).
    Obj(Vec<(Cow<'a, str>, Value<'a>)>),
}

impl<'a> Value<'a> {
    /// A member of an object: the last one with that key, as when the object is read whole.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Obj(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Takes a member out of an object, leaving `null`.
    pub fn take(&mut self, key: &str) -> Option<Value<'a>> {
        match self {
            Value::Obj(m) => m.iter_mut().rev().find(|(k, _)| k == key).map(|(_, v)| std::mem::replace(v, Value::Null)),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The number as an integer, when it is one (no fraction, no exponent) and fits.
    pub fn as_i64(&self) -> Option<i64> {
        let Value::Num(n) = self else { return None };
        let (neg, digits) = match n.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, *n),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut v: i64 = 0;
        for b in digits.bytes() {
            v = v.checked_mul(10)?.checked_sub(i64::from(b - b'0'))?;
        }
        if neg {
            Some(v)
        } else {
            v.checked_neg()
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        self.as_i64().and_then(|i| u64::try_from(i).ok())
    }

    /// The text of a string, moved out when it was unescaped into its own buffer.
    pub fn into_string(self) -> Option<String> {
        match self {
            Value::Str(s) => Some(s.into_owned()),
            _ => None,
        }
    }
}

/// Why the text is no JSON, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    what: &'static str,
    /// 1-based line and column of the problem.
    pub line: usize,
    pub column: usize,
    /// The text ended before the value did (a truncated file).
    pub eof: bool,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at line {} column {}", self.what, self.line, self.column)
    }
}

impl std::error::Error for Error {}

/// Reads JSON text.
pub struct Reader<'a> {
    s: &'a str,
    pos: usize,
    depth: usize,
}

/// Reads `text` as one value, and nothing but white space after it.
pub fn parse(text: &str) -> Result<Value<'_>, Error> {
    let mut r = Reader::new(text);
    let v = r.value()?;
    r.end()?;
    Ok(v)
}

impl<'a> Reader<'a> {
    pub fn new(s: &'a str) -> Reader<'a> {
        Reader { s, pos: 0, depth: 0 }
    }

    fn err(&self, what: &'static str) -> Error {
        let eof = self.pos >= self.s.len();
        let done = &self.s.as_bytes()[..self.pos.min(self.s.len())];
        let line = 1 + memchr::memchr_iter(b'\n', done).count();
        let start = memchr::memrchr(b'\n', done).map_or(0, |i| i + 1);
        // Characters, not bytes, and counted on bytes: the error may lie inside a character.
        let column = done[start..].iter().filter(|&&b| b & 0xc0 != 0x80).count() + usize::from(!eof);
        Error { what: if eof { "the text ends before the value" } else { what }, line, column, eof }
    }

    fn skip_ws(&mut self) {
        let b = self.s.as_bytes();
        while self.pos < b.len() && matches!(b[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.as_bytes().get(self.pos).copied()
    }

    fn eat(&mut self, c: u8, what: &'static str) -> Result<(), Error> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(what))
        }
    }

    /// Only white space is left.
    pub fn end(&mut self) -> Result<(), Error> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.err("trailing characters")),
        }
    }

    /// The next value starts an array.
    pub fn at_array(&mut self) -> bool {
        self.peek() == Some(b'[')
    }

    /// The next value starts an object.
    pub fn at_object(&mut self) -> bool {
        self.peek() == Some(b'{')
    }

    /// Reads the next value.
    pub fn value(&mut self) -> Result<Value<'a>, Error> {
        self.value_lines(|_| false)
    }

    /// Reads the next value as [`Reader::value`] does, except that the members (at any depth)
    /// whose key `multiline` names and whose value is an array are read as nbformat's
    /// multi-line strings: the strings end to end, one [`Value::Str`] built in one buffer
    /// (nbformat stores text a line per string; read one by one, each line took an allocation
    /// of its own). An array that holds anything but strings stays an array, the strings before
    /// the first other value joined into its first element.
    pub fn value_lines(&mut self, multiline: fn(&str) -> bool) -> Result<Value<'a>, Error> {
        match self.peek() {
            Some(b'{') => {
                let mut members = Vec::new();
                self.members(|r, key| {
                    let v =
                        if multiline(&key) && r.at_array() { r.joined(multiline)? } else { r.value_lines(multiline)? };
                    members.push((key, v));
                    Ok(())
                })?;
                Ok(Value::Obj(members))
            }
            Some(b'[') => {
                let mut items = Vec::new();
                self.each(|r| {
                    items.push(r.value_lines(multiline)?);
                    Ok(())
                })?;
                Ok(Value::Arr(items))
            }
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b't') => self.word("true", Value::Bool(true)),
            Some(b'f') => self.word("false", Value::Bool(false)),
            Some(b'n') => self.word("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) | None => Err(self.err("expected a value")),
        }
    }

    /// An array read as one multi-line string (see [`Reader::value_lines`]).
    fn joined(&mut self, multiline: fn(&str) -> bool) -> Result<Value<'a>, Error> {
        let mut text = Vec::new();
        let mut others: Option<Vec<Value<'a>>> = None;
        self.each(|r| match others.as_mut() {
            None if r.peek() == Some(b'"') => r.string_into(&mut text),
            None => {
                // SAFETY: `text` is strings read whole, end to end (`rest_into`).
                let so_far = unsafe { String::from_utf8_unchecked(std::mem::take(&mut text)) };
                others = Some(vec![Value::Str(Cow::Owned(so_far)), r.value_lines(multiline)?]);
                Ok(())
            }
            Some(items) => {
                items.push(r.value_lines(multiline)?);
                Ok(())
            }
        })?;
        Ok(match others {
            Some(items) => Value::Arr(items),
            None => {
                // The buffer grew by doubling: what it holds is kept, not twice that.
                text.shrink_to_fit();
                // SAFETY: as above.
                Value::Str(Cow::Owned(unsafe { String::from_utf8_unchecked(text) }))
            }
        })
    }

    fn nest(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        Ok(())
    }

    /// Reads an array, handing each element's start to `f` (which must read exactly one value).
    pub fn each(&mut self, mut f: impl FnMut(&mut Reader<'a>) -> Result<(), Error>) -> Result<(), Error> {
        self.each_dyn(&mut f)
    }

    /// [`Reader::each`] compiled once: the package carries one copy of the loop, not one per
    /// caller.
    fn each_dyn(&mut self, f: &mut dyn FnMut(&mut Reader<'a>) -> Result<(), Error>) -> Result<(), Error> {
        self.eat(b'[', "expected `[`")?;
        self.nest()?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            f(self)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(self.err("expected `,` or `]`")),
            }
        }
    }

    /// Reads an object, handing each member's key to `f` with the reader at its value (which
    /// `f` must read).
    pub fn members(
        &mut self,
        mut f: impl FnMut(&mut Reader<'a>, Cow<'a, str>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.members_dyn(&mut f)
    }

    /// [`Reader::members`] compiled once (see [`Reader::each_dyn`]).
    fn members_dyn(&mut self, f: &mut dyn FnMut(&mut Reader<'a>, Cow<'a, str>) -> Result<(), Error>) -> Result<(), Error> {
        self.eat(b'{', "expected `{`")?;
        self.nest()?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.err("expected a key"));
            }
            let key = self.string()?;
            self.eat(b':', "expected `:`")?;
            f(self, key)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(self.err("expected `,` or `}`")),
            }
        }
    }

    fn word(&mut self, w: &str, v: Value<'a>) -> Result<Value<'a>, Error> {
        if self.s[self.pos..].starts_with(w) {
            self.pos += w.len();
            Ok(v)
        } else {
            Err(self.err("expected a value"))
        }
    }

    fn number(&mut self) -> Result<Value<'a>, Error> {
        let b = self.s.as_bytes();
        let start = self.pos;
        let digits = |r: &mut Reader<'a>| {
            let from = r.pos;
            while r.pos < b.len() && b[r.pos].is_ascii_digit() {
                r.pos += 1;
            }
            r.pos > from
        };
        if b.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        let first = self.pos;
        if !digits(self) {
            return Err(self.err("invalid number"));
        }
        if b[first] == b'0' && self.pos > first + 1 {
            return Err(self.err("invalid number"));
        }
        if b.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if !digits(self) {
                return Err(self.err("invalid number"));
            }
        }
        if matches!(b.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(b.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !digits(self) {
                return Err(self.err("invalid number"));
            }
        }
        Ok(Value::Num(&self.s[start..self.pos]))
    }

    fn string(&mut self) -> Result<Cow<'a, str>, Error> {
        let b = self.s.as_bytes();
        self.pos += 1; // the opening quote
        let start = self.pos;
        // The common case: no escape, borrowed as it is. The end is found with one search for
        // the quote, the backslash and the control bytes (which a string may not hold).
        let Some(k) = special(&b[self.pos..]) else {
            self.pos = b.len();
            return Err(self.err("unclosed string"));
        };
        self.pos += k;
        match b[self.pos] {
            b'"' => {
                self.pos += 1;
                return Ok(Cow::Borrowed(&self.s[start..self.pos - 1]));
            }
            b'\\' => {}
            _ => return Err(self.err("control character in a string")),
        }
        // Escapes: the text is built as bytes (see `rest_into`).
        let mut out: Vec<u8> = Vec::with_capacity(self.pos - start + 64);
        out.extend_from_slice(&b[start..self.pos]);
        self.rest_into(&mut out)?;
        // SAFETY: `out` holds runs of `self.s` that start and end at ASCII bytes, ASCII bytes,
        // and whole characters encoded by `char::encode_utf8` (`rest_into`).
        Ok(Cow::Owned(unsafe { String::from_utf8_unchecked(out) }))
    }

    /// Reads a string (the reader at its opening quote), adding its text to `out`.
    fn string_into(&mut self, out: &mut Vec<u8>) -> Result<(), Error> {
        self.pos += 1; // the opening quote
        self.rest_into(out)
    }

    /// Reads the rest of a string up to its closing quote, adding its text to `out`. The text
    /// is built as bytes (runs copied whole, one byte per simple escape; building a `String`
    /// checked char boundaries and encoded each pushed char): runs end at ASCII bytes, so no
    /// character is cut, and `out` stays UTF-8 if it was.
    fn rest_into(&mut self, out: &mut Vec<u8>) -> Result<(), Error> {
        let b = self.s.as_bytes();
        loop {
            self.pos += decode_run(&b[self.pos..], out);
            match b.get(self.pos) {
                None => return Err(self.err("unclosed string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = match b.get(self.pos).map(|&c| (c, one_letter(c))) {
                        Some((_, Some(c))) => c,
                        Some((b'u', None)) => {
                            self.pos += 1;
                            let hi = self.hex4()?;
                            let c = if (0xd800..0xdc00).contains(&hi) && self.s[self.pos..].starts_with("\\u") {
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&lo) {
                                    return Err(self.err("invalid unicode escape"));
                                }
                                char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00))
                            } else {
                                char::from_u32(hi)
                            };
                            // A lone surrogate is kept readable rather than refused.
                            let mut utf8 = [0u8; 4];
                            out.extend_from_slice(c.unwrap_or('\u{fffd}').encode_utf8(&mut utf8).as_bytes());
                            continue;
                        }
                        None => return Err(self.err("unclosed string")),
                        Some(_) => return Err(self.err("invalid escape")),
                    };
                    out.push(c);
                    self.pos += 1;
                }
                Some(_) => return Err(self.err("control character in a string")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let Some(h) = self.s.get(self.pos..self.pos + 4) else {
            self.pos = self.s.len().min(self.pos + 4);
            return Err(self.err("invalid unicode escape"));
        };
        if !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(self.err("invalid unicode escape"));
        }
        self.pos += 4;
        Ok(h.bytes().fold(0, |v, c| v * 16 + (c as char).to_digit(16).unwrap_or(0)))
    }
}

/// Where the first byte of `b` that ends a string's plain run is: a quote, a backslash or a
/// control byte (< 0x20). 16 bytes at a time in WebAssembly; elsewhere a SIMD search for the
/// first two, and the run before it checked for the third eight bytes at a time.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub fn special(b: &[u8]) -> Option<usize> {
    use core::arch::wasm32::*;
    let mut i = 0;
    while i + 16 <= b.len() {
        // SAFETY: `i + 16 <= len`: the load is inside `b` (unaligned).
        let m = run_ends(unsafe { v128_load(b.as_ptr().add(i) as *const v128) });
        if v128_any_true(m) {
            return Some(i + u8x16_bitmask(m).trailing_zeros() as usize);
        }
        i += 16;
    }
    b[i..].iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20).map(|p| i + p)
}

/// What a one-letter escape (`\\n`, `\\"`, ...) stands for, given its letter.
#[inline(always)]
fn one_letter(c: u8) -> Option<u8> {
    Some(match c {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 8,
        b'f' => 12,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        _ => return None,
    })
}

/// Decodes the start of a string's text onto `out`: plain bytes and one-letter escapes, up to
/// the first byte left to the caller (the closing quote, a `\\u` escape, a bad escape, a
/// control byte) or the end of `b`; returns where that is. One pass: each 16 bytes are stored
/// past `out`'s end as they are tested and kept up to the first byte that ends the plain run;
/// a one-letter escape there is decoded in place and the pass goes on (a notebook's text has
/// an escaped newline on every line).
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
pub fn decode_run(b: &[u8], out: &mut Vec<u8>) -> usize {
    let mut i = 0;
    let mut len = out.len();
    while i + 16 <= b.len() {
        if out.capacity() - len < 16 {
            // SAFETY: the bytes up to `len` were all written (below).
            unsafe { out.set_len(len) };
            out.reserve(16.max((b.len() - i).min(1 << 16)));
        }
        // SAFETY: `i + 16 <= b.len()`: the load is inside `b`; `out` has room for 16 bytes
        // past `len` (reserved above), where the store goes.
        let m = unsafe { copy16(b.as_ptr().add(i), out.as_mut_ptr().add(len)) };
        if m == 0 {
            i += 16;
            len += 16;
            continue;
        }
        let k = m.trailing_zeros() as usize;
        i += k;
        len += k;
        match (b[i], b.get(i + 1).and_then(|&c| one_letter(c))) {
            (b'\\', Some(c)) => {
                // SAFETY: `k < 16`: the room reserved for the store reaches past `len`.
                unsafe { *out.as_mut_ptr().add(len) = c };
                len += 1;
                i += 2;
            }
            _ => {
                // SAFETY: every byte up to `len` was stored above.
                unsafe { out.set_len(len) };
                return i;
            }
        }
    }
    // SAFETY: every byte up to `len` was stored above.
    unsafe { out.set_len(len) };
    while let Some(&c) = b.get(i) {
        match (c, b.get(i + 1).and_then(|&n| one_letter(n))) {
            (b'"', _) | (0..0x20, _) | (b'\\', None) => break,
            (b'\\', Some(d)) => {
                out.push(d);
                i += 2;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    i
}

/// The plain run at the start of `b` copied onto `out` (where [`special`] says it ends); the
/// caller decodes every escape.
#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
pub fn decode_run(b: &[u8], out: &mut Vec<u8>) -> usize {
    let k = special(b).unwrap_or(b.len());
    out.extend_from_slice(&b[..k]);
    k
}

/// Stores the 16 bytes at `src` at `dst`, and returns the mask of those that end a string's
/// plain run (bit `k` for byte `k`).
///
/// # Safety
/// 16 bytes must be readable at `src` and writable at `dst`.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
unsafe fn copy16(src: *const u8, dst: *mut u8) -> u32 {
    use core::arch::wasm32::*;
    let v = v128_load(src as *const v128);
    v128_store(dst as *mut v128, v);
    u8x16_bitmask(run_ends(v)) as u32
}

/// The bytes of `v` that end a string's plain run: a quote, a backslash, a control byte.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn run_ends(v: core::arch::wasm32::v128) -> core::arch::wasm32::v128 {
    use core::arch::wasm32::*;
    v128_or(v128_or(u8x16_eq(v, u8x16_splat(b'"')), u8x16_eq(v, u8x16_splat(b'\\'))), u8x16_lt(v, u8x16_splat(0x20)))
}

/// Stores the 16 bytes at `src` at `dst`, and returns the mask of those that end a string's
/// plain run (bit `k` for byte `k`).
///
/// # Safety
/// 16 bytes must be readable at `src` and writable at `dst`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn copy16(src: *const u8, dst: *mut u8) -> u32 {
    use core::arch::x86_64::*;
    let v = _mm_loadu_si128(src as *const __m128i);
    _mm_storeu_si128(dst as *mut __m128i, v);
    // A byte below 0x20 is its own minimum with 0x1f.
    let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
    let m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)), _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8))),
        control,
    );
    _mm_movemask_epi8(m) as u32
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub fn special(b: &[u8]) -> Option<usize> {
    let k = memchr::memchr2(b'"', b'\\', b);
    let run = &b[..k.unwrap_or(b.len())];
    control_at(run).or(k)
}

/// Where the first control byte (< 0x20) of `b` is: eight bytes at a time.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn control_at(b: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = b.chunks_exact(8);
    for (i, c) in chunks.by_ref().enumerate() {
        let w = u64::from_le_bytes(c.try_into().unwrap_or_default());
        // A byte below 0x20 borrows when 0x20 is taken from it (and had no high bit).
        if w.wrapping_sub(ONES * 0x20) & !w & HIGH != 0 {
            if let Some(p) = c.iter().position(|&x| x < 0x20) {
                return Some(i * 8 + p);
            }
        }
    }
    let done = b.len() - chunks.remainder().len();
    chunks.remainder().iter().position(|&x| x < 0x20).map(|p| done + p)
}

#[cfg(test)]
mod tests;
