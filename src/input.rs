//! Reading inputs: plain text, Jupyter notebooks (nbformat 4) and the cell-list shape that the
//! page adapters send.
//!
//! # The cell-list shape
//!
//! ```json
//! {
//!   "cells": [
//!     { "index": 4, "execution_count": 7, "cell_type": "code", "source": "loss = ...",
//!       "outputs": [
//!         { "kind": "stream", "name": "stderr", "text": "../aten/src/...Assertion ..." },
//!         { "kind": "error", "ename": "RuntimeError", "evalue": "CUDA error: ...",
//!           "traceback": ["\u001b[0;31m---...", "RuntimeError: CUDA error: ..."] },
//!         { "kind": "text", "text": "tensor([1, 2])" }
//!       ] }
//!   ]
//! }
//! ```
//!
//! A top-level array of cells is accepted too. `index` is the cell's place in the notebook
//! (markdown cells count); it defaults to the position in the list. `kind` may also be spelled
//! as nbformat's `output_type` (`stream`, `error`, `execute_result`, `display_data`), so a
//! notebook's `cells` array is itself a valid cell list.

use crate::json::{self, Value};
use crate::report::InputFormat;
use crate::text::msg::Msg;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why an input could not be read. The message comes from the catalogue, in either language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub(crate) msg: Msg,
    pub(crate) args: Vec<(&'static str, String)>,
}

impl InputError {
    fn new(msg: Msg, args: &[(&'static str, &dyn fmt::Display)]) -> InputError {
        InputError { msg, args: args.iter().map(|(k, v)| (*k, v.to_string())).collect() }
    }

    /// True when the input is a binary file rather than a malformed notebook.
    pub fn is_binary(&self) -> bool {
        matches!(self.msg, Msg::ErrBinary | Msg::ErrArchive)
    }
}

impl std::error::Error for InputError {}

fn cell_field(cell: usize, field: &str, expected: &str) -> InputError {
    InputError::new(Msg::ErrCellField, &[("cell", &cell), ("field", &field), ("expected", &expected)])
}

/// A notebook cell with its outputs, in the engine's own shape.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// 0-based place in the notebook (markdown cells count).
    pub index: u32,
    /// The execution count, when the cell ran.
    pub execution_count: Option<i64>,
    /// `code`, `markdown` or `raw`.
    pub cell_type: CellType,
    /// The cell's source.
    pub source: String,
    /// The outputs, in order.
    pub outputs: Vec<Output>,
}

/// What a cell holds. nbformat has no other types: any other is read as code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    #[default]
    Code,
    Markdown,
    Raw,
}

impl CellType {
    fn of(name: &str) -> CellType {
        match name {
            "markdown" => CellType::Markdown,
            "raw" => CellType::Raw,
            _ => CellType::Code,
        }
    }
}

/// What kind of output a cell printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputKind {
    /// stdout or stderr.
    #[default]
    Stream,
    /// A raised exception and its traceback.
    Error,
    /// An `execute_result` or `display_data` as plain text.
    Text,
    /// An output the page adapter could not read.
    Unreadable,
}

/// One output of a cell.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Output {
    /// `stream`, `error`, `text` (an `execute_result` or `display_data` as plain text) or
    /// `unreadable` (an output the page adapter could not read).
    pub kind: OutputKind,
    /// `stdout` or `stderr` for streams; for `unreadable`, why: `frame`, `virtualised` or
    /// `unknown`.
    pub name: Option<String>,
    /// The text, with a traceback's lines joined by newlines.
    pub text: String,
}

/// A parsed notebook or cell list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notebook {
    /// `Notebook` for nbformat files, `Cells` for the cell-list shape.
    pub format: InputFormat,
    pub cells: Vec<Cell>,
    /// Where the notebook ran, when it says: `colab` for a notebook saved by Colab (its
    /// metadata has a `colab` entry) or a cell list whose `host` is `colab`.
    pub host: Option<&'static str>,
}

/// How to read an input, decided from its first bytes (at least the first 64 KiB when there
/// are that many) and its file name, if it has one. The one decision the library and the
/// command line's readers share.
pub enum Sniff {
    /// A binary file (an archive, an image, ...): refused, with the reason.
    Binary(InputError),
    /// A notebook or a cell list (by its name, or JSON with cells, in UTF-8 or UTF-16): read it
    /// whole. Text that turns out not to parse as one is read as a log after all, unless its
    /// name ends in `.ipynb`.
    Whole,
    /// A log: read it as a stream.
    Stream,
}

/// Decides how to read an input from its first bytes: see [`Sniff`].
pub fn sniff(head: &[u8], file_name: Option<&str>) -> Sniff {
    if let Some(e) = sniff_binary(head) {
        return Sniff::Binary(e);
    }
    if is_ipynb(file_name) || looks_like_notebook(head) {
        return Sniff::Whole;
    }
    // UTF-16 JSON: the notebook test reads the first 4096 bytes of the decoded text, which
    // 4098 code units always cover (a pair cut at the end is past them).
    if let Some(le) = utf16_order(head) {
        let text = decode_utf16(&head[..head.len().min(2 * 4098)], le);
        if looks_like_notebook(text.as_bytes()) {
            return Sniff::Whole;
        }
    }
    Sniff::Stream
}

/// How a log's text is encoded, as far as its first bytes tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextEncoding {
    /// UTF-8 (or ASCII, or bytes neither of the others reads).
    Utf8,
    /// UTF-16 with its byte-order mark.
    Utf16,
    /// GB18030 (GBK its subset): a Chinese Windows console's log.
    Gb18030,
}

impl TextEncoding {
    /// The encoding of a log whose first bytes are `head` (every surface decides with this:
    /// the command line decodes GB18030 as it reads, the page with the browser's decoder).
    pub fn of(head: &[u8]) -> TextEncoding {
        if utf16_order(head).is_some() {
            return TextEncoding::Utf16;
        }
        let from = if head.is_ascii() { head.len() } else { head.iter().position(|b| !b.is_ascii()).unwrap_or(0) };
        if is_gb18030(&head[from..]) {
            TextEncoding::Gb18030
        } else {
            TextEncoding::Utf8
        }
    }

    /// The encoding's id as the package gives it (`utf8`, `utf16`, `gb18030`).
    pub fn id(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "utf8",
            TextEncoding::Utf16 => "utf16",
            TextEncoding::Gb18030 => "gb18030",
        }
    }
}

/// Whether bytes (from a log's first non-ASCII byte) are GB18030 rather than UTF-8: not UTF-8
/// (an incomplete character at the very end aside), no byte-order mark, no NUL byte, and every
/// byte read strictly as GB18030 (the WHATWG decoder's sequences: one byte, two bytes with a
/// lead of 0x81..0xFE, or four bytes whose pointer is mapped; a sequence cut at the end counts).
pub fn is_gb18030(bytes: &[u8]) -> bool {
    let boms: [&[u8]; 3] = [&[0xef, 0xbb, 0xbf], &[0xff, 0xfe], &[0xfe, 0xff]];
    if bytes.is_empty() || boms.iter().any(|b| bytes.starts_with(b)) || bytes.contains(&0) {
        return false;
    }
    // UTF-8, or UTF-8 cut mid-character at the very end.
    if matches!(crate::find::utf8_check(bytes), Ok(()) | Err((_, true))) {
        return false;
    }
    let (mut i, n) = (0, bytes.len());
    while i < n {
        let b = bytes[i];
        if b <= 0x80 {
            i += 1; // ASCII, and 0x80 (the euro sign)
            continue;
        }
        if b == 0xff {
            return false;
        }
        let at = |k: usize| bytes.get(i + k).copied();
        match at(1) {
            None => return true,
            Some(0x30..=0x39) => {
                // A sequence cut at the end counts, if what there is of it is right.
                let b3 = at(2).unwrap_or(0x81);
                let b4 = at(3).unwrap_or(0x30);
                if !(0x81..=0xfe).contains(&b3) || !(0x30..=0x39).contains(&b4) {
                    return false;
                }
                if i + 4 > n {
                    return true;
                }
                let pointer = (usize::from(b) - 0x81) * 12600
                    + (usize::from(bytes[i + 1]) - 0x30) * 1260
                    + (usize::from(b3) - 0x81) * 10
                    + usize::from(b4)
                    - 0x30;
                if (pointer > 39419 && pointer < 189000) || pointer > 1237575 {
                    return false;
                }
                i += 4;
            }
            Some(0x40..=0x7e | 0x80..=0xfe) => i += 2,
            Some(_) => return false,
        }
    }
    true
}

/// Whether a file name says it is a notebook (`.ipynb`, in any case).
pub fn is_ipynb(file_name: Option<&str>) -> bool {
    file_name.is_some_and(|n| n.to_ascii_lowercase().ends_with(".ipynb"))
}

/// Guesses whether bytes are a notebook or a cell list (JSON with cells) rather than a log.
pub fn looks_like_notebook(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let t = head.iter().position(|b| !b.is_ascii_whitespace()).map(|i| &head[i..]).unwrap_or(&[]);
    match t.first() {
        Some(b'{') => {
            crate::find::head_has(head, b"\"cells\"") || crate::find::head_has(head, b"\"nbformat\"")
        }
        Some(b'[') => crate::find::head_has(head, b"\"outputs\""),
        _ => false,
    }
}

/// Tells whether `bytes` start a binary file (an archive, an image, ...) rather than text.
pub fn sniff_binary(bytes: &[u8]) -> Option<InputError> {
    const ARCHIVES: &[(&[u8], &str)] = &[
        (b"\x1f\x8b", "gzip"),
        (b"PK\x03\x04", "zip"),
        (b"BZh", "bzip2"),
        (b"\xfd7zXZ\x00", "xz"),
        (b"\x28\xb5\x2f\xfd", "zstd"),
        (b"7z\xbc\xaf\x27\x1c", "7z"),
    ];
    const OTHER: &[(&[u8], &str)] = &[
        (b"\x89PNG", "PNG"),
        (b"\xff\xd8\xff", "JPEG"),
        (b"GIF8", "GIF"),
        (b"%PDF", "PDF"),
        (b"\x7fELF", "ELF"),
        (b"SQLite format 3", "SQLite"),
    ];
    if let Some((_, k)) = ARCHIVES.iter().find(|(m, _)| bytes.starts_with(m)) {
        return Some(InputError::new(Msg::ErrArchive, &[("format", k)]));
    }
    if let Some((_, k)) = OTHER.iter().find(|(m, _)| bytes.starts_with(m)) {
        return Some(InputError::new(Msg::ErrBinary, &[("format", k)]));
    }
    if utf16_order(bytes).is_some() {
        return None;
    }
    let head = &bytes[..bytes.len().min(65536)];
    if head.len() < 16 {
        return None;
    }
    let control = head.iter().filter(|&&b| b < 0x09 || (0x0e..0x20).contains(&b) && b != 0x1b).count();
    (control * 10 > head.len() * 3).then(|| InputError::new(Msg::ErrBinary, &[("format", &"?")]))
}

/// `Some(true)` for UTF-16 little-endian text, `Some(false)` for big-endian, by BOM or by the
/// pattern of zero bytes that ASCII text has in UTF-16 (PowerShell 5 writes logs that way).
pub fn utf16_order(bytes: &[u8]) -> Option<bool> {
    if bytes.starts_with(b"\xff\xfe") {
        return Some(true);
    }
    if bytes.starts_with(b"\xfe\xff") {
        return Some(false);
    }
    let head = &bytes[..bytes.len().min(1024) & !1];
    if head.len() < 32 {
        return None;
    }
    let pairs = head.len() / 2;
    let odd_zero = head.chunks(2).filter(|p| p[1] == 0 && p[0] != 0).count();
    let even_zero = head.chunks(2).filter(|p| p[0] == 0 && p[1] != 0).count();
    if odd_zero * 10 > pairs * 7 {
        Some(true)
    } else if even_zero * 10 > pairs * 7 {
        Some(false)
    } else {
        None
    }
}

/// Text from bytes as a log is read: UTF-16 when its first bytes say so, else UTF-8 with
/// invalid sequences replaced; without a byte-order mark.
pub fn decode_text(bytes: &[u8]) -> String {
    match utf16_order(bytes) {
        Some(le) => decode_utf16(bytes, le),
        None => String::from_utf8_lossy(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)).into_owned(),
    }
}

/// Decodes UTF-16 text (lossily).
pub fn decode_utf16(bytes: &[u8], little_endian: bool) -> String {
    let body = bytes.strip_prefix(if little_endian { b"\xff\xfe" } else { b"\xfe\xff" }).unwrap_or(bytes);
    let units = body.chunks_exact(2).map(|p| {
        if little_endian {
            u16::from_le_bytes([p[0], p[1]])
        } else {
            u16::from_be_bytes([p[0], p[1]])
        }
    });
    char::decode_utf16(units).map(|r| r.unwrap_or('\u{fffd}')).collect()
}

/// Parses an nbformat 4 notebook, a `{"cells": [...]}` cell list or a bare array of cells.
pub fn parse_notebook(json: &str) -> Result<Notebook, InputError> {
    let json = json.strip_prefix('\u{feff}').unwrap_or(json);
    read_notebook(json).map_err(|e| {
        let msg = if e.eof { Msg::ErrTruncated } else { Msg::ErrNotJson };
        InputError::new(msg, &[("detail", &e)])
    })?
}

/// Reads a notebook or cell list from JSON text in one pass, one cell at a time: each cell is
/// read as a JSON value, turned into a [`Cell`] and dropped, so memory holds the text and the
/// cells, never a value tree of the whole notebook (nbformat stores outputs as arrays of
/// lines; such a tree takes two to three times the file).
///
/// The outer error is the JSON's (syntax, nesting); the inner one its shape. Checks come in a
/// fixed order, whatever the order of the keys: an nbformat 3 notebook, then an old
/// `nbformat`, then `cells` missing or not an array, then the first cell that is wrong.
pub fn read_notebook(json: &str) -> Result<Result<Notebook, InputError>, json::Error> {
    let mut r = json::Reader::new(json);
    let mut host = None;
    let top = if r.at_array() {
        Shape::Array(cells_of(&mut r)?)
    } else if r.at_object() {
        let (mut worksheets, mut nbformat, mut cells) = (false, None, None);
        r.members(|r, key| {
            match &*key {
                "cells" if r.at_array() => cells = Some(Shape::Array(cells_of(r)?)),
                "cells" => {
                    r.value()?;
                    cells = Some(Shape::Other);
                }
                "nbformat" => nbformat = Some(r.value()?.as_u64()),
                "metadata" => {
                    if r.value()?.get("colab").is_some() {
                        host = Some("colab");
                    }
                }
                "host" => {
                    if r.value()?.as_str() == Some("colab") {
                        host = Some("colab");
                    }
                }
                k => {
                    worksheets |= k == "worksheets";
                    r.value()?;
                }
            }
            Ok(())
        })?;
        Shape::Object { worksheets, nbformat, cells: cells.map(Box::new) }
    } else {
        r.value()?;
        Shape::Other
    };
    r.end()?;
    Ok(match top {
        Shape::Array(cells) => cells.map(|cells| Notebook { format: InputFormat::Cells, cells, host }),
        Shape::Object { worksheets, nbformat, cells } => {
            let format = if nbformat.is_some() { InputFormat::Notebook } else { InputFormat::Cells };
            match (worksheets, nbformat.flatten(), cells.map(|c| *c)) {
                (true, ..) => Err(InputError::new(Msg::ErrOldNbformat, &[("version", &3)])),
                (_, Some(n), _) if n < 4 => Err(InputError::new(Msg::ErrOldNbformat, &[("version", &n)])),
                (_, _, Some(Shape::Array(cells))) => cells.map(|cells| Notebook { format, cells, host }),
                (_, _, Some(_)) => Err(InputError::new(
                    Msg::ErrCellField,
                    &[("cell", &"-"), ("field", &"cells"), ("expected", &"array")],
                )),
                (_, _, None) => Err(InputError::new(Msg::ErrNoCells, &[])),
            }
        }
        Shape::Other => Err(InputError::new(Msg::ErrTopLevel, &[])),
    })
}

/// What a level of a notebook holds: the top level, or the value of its `cells`.
enum Shape {
    /// An array of cells (or the first wrong one).
    Array(Result<Vec<Cell>, InputError>),
    /// At the top, an object with nbformat's keys of interest (the others are skipped); its
    /// `nbformat` as a number when it is one.
    Object { worksheets: bool, nbformat: Option<Option<u64>>, cells: Option<Box<Shape>> },
    /// Anything else (read and dropped).
    Other,
}

/// The cells of an array, each read as a value and turned into a [`Cell`] at once; after the
/// first wrong cell the rest is only read.
fn cells_of(r: &mut json::Reader<'_>) -> Result<Result<Vec<Cell>, InputError>, json::Error> {
    let mut cells = Vec::new();
    let mut wrong = None;
    let mut pos = 0;
    r.each(|r| {
        let v = r.value_lines(multiline_key)?;
        if wrong.is_none() {
            match cell(pos, v) {
                Ok(c) => cells.push(c),
                Err(e) => wrong = Some(e),
            }
        }
        pos += 1;
        Ok(())
    })?;
    Ok(match wrong {
        Some(e) => Err(e),
        None => Ok(cells),
    })
}

/// One cell, from its JSON value (`pos` is its place in the list).
fn cell(pos: usize, mut o: Value<'_>) -> Result<Cell, InputError> {
    if !matches!(o, Value::Obj(_)) {
        return Err(cell_field(pos, "cells", "object"));
    }
    let index = match o.get("index") {
        None | Some(Value::Null) => pos as u32,
        Some(i) => i.as_u64().and_then(|i| u32::try_from(i).ok()).ok_or_else(|| cell_field(pos, "index", "number"))?,
    };
    let execution_count = match o.get("execution_count") {
        None | Some(Value::Null) => None,
        Some(n) => Some(n.as_i64().ok_or_else(|| cell_field(pos, "execution_count", "number"))?),
    };
    let cell_type = CellType::of(o.get("cell_type").and_then(Value::as_str).unwrap_or("code"));
    let source = multiline(o.take("source")).ok_or_else(|| cell_field(pos, "source", "string"))?;
    let mut outputs = Vec::new();
    match o.take("outputs") {
        None | Some(Value::Null) => {}
        Some(Value::Arr(list)) => {
            for (oi, out) in list.into_iter().enumerate() {
                let parsed = output(out).map_err(|(field, expected)| {
                    InputError::new(
                        Msg::ErrOutputField,
                        &[("cell", &pos), ("output", &oi), ("field", &field), ("expected", &expected)],
                    )
                })?;
                if let Some(x) = parsed {
                    outputs.push(x);
                }
            }
        }
        Some(_) => return Err(cell_field(pos, "outputs", "array")),
    }
    Ok(Cell { index, execution_count, cell_type, source, outputs })
}

/// The keys whose values nbformat writes as multi-line strings (a cell's source, a stream's
/// text, the text-like types of display data): read as one string when they are a list of
/// lines ([`json::Reader::value_lines`]).
fn multiline_key(key: &str) -> bool {
    matches!(key, "source" | "text" | "image/svg+xml" | "application/javascript") || key.starts_with("text/")
}

/// nbformat keeps multi-line strings either whole or as a list of lines.
fn multiline(v: Option<Value<'_>>) -> Option<String> {
    match v {
        None | Some(Value::Null) => Some(String::new()),
        Some(Value::Str(s)) => Some(s.into_owned()),
        Some(Value::Arr(a)) => {
            let mut s = String::with_capacity(a.iter().map(|p| p.as_str().map_or(0, str::len)).sum());
            for p in a {
                s.push_str(p.as_str()?);
            }
            Some(s)
        }
        Some(_) => None,
    }
}

/// Reads one output; on failure names the field and the JSON type it should have.
fn output(mut o: Value<'_>) -> Result<Option<Output>, (&'static str, &'static str)> {
    if !matches!(o, Value::Obj(_)) {
        return Err(("outputs", "object"));
    }
    let kind =
        o.get("kind").or_else(|| o.get("output_type")).and_then(Value::as_str).ok_or(("output_type", "string"))?;
    let out = match kind {
        "stream" => Output {
            kind: OutputKind::Stream,
            name: o.get("name").and_then(Value::as_str).map(str::to_string),
            text: multiline(o.take("text")).ok_or(("text", "string"))?,
        },
        "error" => {
            let tb = match o.take("traceback") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Arr(a)) => a,
                Some(_) => return Err(("traceback", "array of strings")),
            };
            let text = if tb.is_empty() {
                let ename = o.get("ename").and_then(Value::as_str).unwrap_or("Error");
                let evalue = o.get("evalue").and_then(Value::as_str).unwrap_or("");
                format!("{ename}: {evalue}")
            } else {
                let mut text = String::new();
                for (i, l) in tb.iter().enumerate() {
                    text.push_str(if i > 0 { "\n" } else { "" });
                    text.push_str(l.as_str().ok_or(("traceback", "array of strings"))?);
                }
                text
            };
            Output { kind: OutputKind::Error, name: None, text }
        }
        // What a page adapter could not read (a cross-origin frame, a virtualised cell): no
        // text, only the reason.
        "unreadable" => {
            let reason = match o.get("reason").and_then(Value::as_str) {
                Some("frame") => "frame",
                Some("virtualised") => "virtualised",
                _ => "unknown",
            };
            Output { kind: OutputKind::Unreadable, name: Some(reason.into()), text: String::new() }
        }
        "execute_result" | "display_data" | "text" | "pyout" => {
            let plain = match o.get("data") {
                Some(Value::Obj(_)) => o.take("data").and_then(|mut d| d.take("text/plain")),
                _ => None,
            };
            let text = match plain {
                Some(t) => multiline(Some(t)).ok_or(("text/plain", "string"))?,
                None => multiline(o.take("text")).ok_or(("text", "string"))?,
            };
            Output { kind: OutputKind::Text, name: None, text }
        }
        _ => return Ok(None),
    };
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// encoding_rs's strict GB18030 decoder (the command line's), as the reference.
    fn decodes_strictly(bytes: &[u8]) -> bool {
        let mut dec = encoding_rs::GB18030.new_decoder_without_bom_handling();
        let mut out = vec![0u8; dec.max_utf8_buffer_length_without_replacement(bytes.len()).unwrap()];
        let (res, _, _) = dec.decode_to_utf8_without_replacement(bytes, &mut out, false);
        res == encoding_rs::DecoderResult::InputEmpty
    }

    #[test]
    fn gb18030_is_told_as_the_strict_decoder_tells_it() {
        let (gbk, _, _) = encoding_rs::GB18030.encode("训练 损失 0.5 设备端断言 €𝄞 ✓");
        assert!(is_gb18030(&gbk) && decodes_strictly(&gbk));
        assert!(!is_gb18030("训练 UTF-8".as_bytes()) && !is_gb18030(b"plain ascii"));
        assert!(!is_gb18030(&[0xd1, 0xb5, 0x00, 0xc1]), "a NUL byte");
        // Every byte string of up to four bytes over the bytes that matter, and random longer
        // ones: our verdict is the strict decoder's, wherever the bytes are not UTF-8.
        let bytes = [0x00u8, 0x30, 0x39, 0x3a, 0x40, 0x7e, 0x7f, 0x80, 0x81, 0x84, 0x8f, 0x90, 0xa1, 0xe3, 0xfe, 0xff];
        let mut seen = 0;
        let mut check = |v: &[u8]| {
            let utf8 = matches!(crate::find::utf8_check(v), Ok(()) | Err((_, true)));
            if v.is_empty() || utf8 || v.contains(&0) {
                return;
            }
            assert_eq!(is_gb18030(v), decodes_strictly(v), "{v:02x?}");
            seen += 1;
        };
        for a in bytes {
            for b in bytes {
                for c in bytes {
                    for d in bytes {
                        check(&[a, b, c, d]);
                    }
                    check(&[a, b, c]);
                }
                check(&[a, b]);
            }
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let len = (x % 24) as usize + 1;
            let v: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    bytes[(x % bytes.len() as u64) as usize]
                })
                .collect();
            check(&v);
        }
        assert!(seen > 50_000, "only {seen} strings compared");
    }
    use crate::lang::Lang;

    #[test]
    fn nbformat_outputs() {
        let nb = parse_notebook(
            r##"{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
              {"cell_type": "markdown", "source": ["# title"], "metadata": {}},
              {"cell_type": "code", "execution_count": 3, "source": ["import torch\n", "x = 1"], "metadata": {}, "outputs": [
                {"output_type": "stream", "name": "stderr", "text": ["a\n", "b\n"]},
                {"output_type": "error", "ename": "RuntimeError", "evalue": "boom", "traceback": ["line1", "line2"]},
                {"output_type": "execute_result", "execution_count": 3, "data": {"text/plain": ["42"]}, "metadata": {}},
                {"output_type": "display_data", "data": {"image/png": "iVBOR"}, "metadata": {}}
              ]}]}"##,
        )
        .unwrap();
        assert_eq!(nb.format, InputFormat::Notebook);
        assert_eq!(nb.cells.len(), 2);
        let c = &nb.cells[1];
        assert_eq!((c.index, c.execution_count), (1, Some(3)));
        assert_eq!(c.source, "import torch\nx = 1");
        let texts: Vec<&str> = c.outputs.iter().map(|o| o.text.as_str()).collect();
        assert_eq!(texts, ["a\nb\n", "line1\nline2", "42", ""]);
    }

    #[test]
    fn cell_lists() {
        let nb =
            parse_notebook(r#"[{"index": 5, "outputs": [{"kind": "error", "ename": "E", "evalue": "v"}]}]"#).unwrap();
        assert_eq!(nb.format, InputFormat::Cells);
        assert_eq!(nb.cells[0].index, 5);
        assert_eq!(nb.cells[0].outputs[0].text, "E: v");
    }

    #[test]
    fn clear_errors() {
        let e = parse_notebook(r#"{"cells": [{"outputs": [{"output_type": "stream", "text": "x"#).unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
        let e = parse_notebook(r#"{"cells": 3}"#).unwrap_err();
        assert!(e.to_string().contains("`cells` should be array"), "{e}");
        let e = parse_notebook(r#"{"cells": [{"outputs": [{"text": "x"}]}]}"#).unwrap_err();
        assert!(e.to_string().contains("cell 0, output 0"), "{e}");
        assert!(e.message(Lang::Zh).contains("单元格 0 的输出 0"), "{}", e.message(Lang::Zh));
        let e = parse_notebook(r#"{"nbformat": 3, "worksheets": []}"#).unwrap_err();
        assert!(e.to_string().contains("nbformat 3"), "{e}");
    }

    #[test]
    fn checks_do_not_depend_on_the_order_of_keys() {
        let old = |json: &str| parse_notebook(json).unwrap_err().to_string();
        assert!(old(r#"{"cells": [{"outputs": 3}], "nbformat": 3}"#).contains("nbformat 3"));
        assert!(old(r#"{"cells": 5, "worksheets": [], "nbformat": 4}"#).contains("nbformat 3"));
        assert!(old(r#"{"cells": 5, "nbformat": 4}"#).contains("`cells` should be array"));
        assert!(old(r#"{"metadata": {"cells": []}, "nbformat": 4}"#).contains("no `cells`"));
        // The first wrong cell is named, and what follows it still has to be JSON.
        let e = old(r#"[{"outputs": []}, 7, {"outputs": "x"}]"#);
        assert!(e.contains("cell 1"), "{e}");
        assert!(old(r#"[{"outputs": []}, 7, {"outputs": "#).contains("truncated"));
        assert!(old(r#"{"cells": []} trailing"#).contains("not valid JSON"));
        // The last of duplicate keys counts, as in a JSON object read whole.
        let nb = parse_notebook(r#"{"cells": 1, "cells": [{"source": "a"}], "nbformat": 4}"#).unwrap();
        assert_eq!((nb.format, nb.cells[0].source.as_str()), (InputFormat::Notebook, "a"));
    }

    #[test]
    fn strings_are_moved_whole_and_lines_joined() {
        let nb = parse_notebook(
            r#"{"cells": [{"source": ["a\n", "b"], "outputs": [
                {"output_type": "display_data", "data": {"text/plain": ["x", "y"]}},
                {"output_type": "execute_result", "data": 3, "text": "fallback"},
                {"output_type": "error", "traceback": ["t1", "t2"], "ename": "E"}]}]}"#,
        )
        .unwrap();
        let c = &nb.cells[0];
        assert_eq!(c.source, "a\nb");
        let texts: Vec<&str> = c.outputs.iter().map(|o| o.text.as_str()).collect();
        assert_eq!(texts, ["xy", "fallback", "t1\nt2"]);
    }

    #[test]
    fn sniffing() {
        assert!(looks_like_notebook(b"\n {\"cells\": []}"));
        assert!(looks_like_notebook(br#"[{"index": 0, "outputs": []}]"#));
        assert!(!looks_like_notebook(b"{'epoch': 1, 'loss': 0.3}"));
        assert!(sniff_binary(b"\x1f\x8b\x08\x00rest").unwrap().to_string().contains("compressed file (gzip)"));
        assert!(sniff_binary(&[0u8; 100]).unwrap().is_binary());
        assert_eq!(sniff_binary(b"plain text log with a few words in it\n"), None);
        let utf16: Vec<u8> = "RuntimeError: CUDA error: device-side assert triggered\n"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        assert_eq!(sniff_binary(&utf16), None);
        assert_eq!(utf16_order(&utf16), Some(true));
        assert!(decode_utf16(&utf16, true).starts_with("RuntimeError"));
    }
}
