//! The WebAssembly package's regular-expression engine: the syntax the patterns use (regex's,
//! ASCII classes), compiled to a small program and run by a Pike VM, so a match takes time linear
//! in the text whatever the pattern, as in `regex-lite`, whose place it takes: the same
//! leftmost-first matches and groups (`tests/engines.rs` holds it to `regex` on every pattern and
//! fixture line), in a fifth of the code, with no hash map and no Unicode tables.
//!
//! Syntax: literals (any character; `\` before punctuation), `.` (any character but `\n`),
//! classes `[...]` (ranges, `^`, and `\d \w \s \D \W \S` inside), `\d \w \s` and their
//! negations, `\n \t \r \f \v \xHH \x{H…}`, `^ $ \A \z` (the text's start and end), `\b \B`
//! (ASCII word boundaries), groups `(…)`, `(?:…)`, `(?P<name>…)`, `(?<name>…)`, alternation
//! `|`, and `* + ? {n} {n,} {n,m}`, each lazy with a `?` after it. No flags, no look-around.

use std::cell::RefCell;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

/// Why a pattern does not compile.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(what: &str, at: usize) -> Result<T, Error> {
    Err(Error(format!("{what} at character {at}")))
}

/// Most repetitions a `{n,m}` may ask for, and most instructions a program may have.
const MAX_REPEAT: u32 = 1000;
const MAX_INSTS: usize = 50_000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Look {
    Start,
    End,
    Word,
    NotWord,
}

/// A parsed pattern.
#[derive(Clone, Debug)]
enum Node {
    Empty,
    Char(char),
    /// Any character but `\n`.
    Any,
    /// Sorted, disjoint ranges, and whether the class is negated.
    Class(Vec<(char, char)>, bool),
    Look(Look),
    /// A group: its capture index, if it captures.
    Group(Box<Node>, Option<u32>),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    /// min, max (None: unbounded), greedy.
    Repeat(Box<Node>, u32, Option<u32>, bool),
}

/// An instruction of the program.
#[derive(Clone, Debug)]
enum Inst {
    Char(char),
    Any,
    Class(Box<Class>),
    Look(Look),
    /// Go on at both: the first is preferred.
    Split(u32, u32),
    Jmp(u32),
    Save(u32),
    Match,
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    groups: u32,
    names: Vec<(Box<str>, u32)>,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let yes = self.peek() == Some(c);
        self.at += usize::from(yes);
        yes
    }

    fn alt(&mut self, depth: u32) -> Result<Node, Error> {
        if depth > 100 {
            return err("groups nested too deep", self.at);
        }
        let mut branches = vec![self.concat(depth)?];
        while self.eat('|') {
            branches.push(self.concat(depth)?);
        }
        Ok(if branches.len() == 1 { branches.pop().unwrap_or(Node::Empty) } else { Node::Alt(branches) })
    }

    fn concat(&mut self, depth: u32) -> Result<Node, Error> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom(depth)?;
            items.push(self.quantified(atom)?);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(items),
        })
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.at;
        let mut n: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(d);
            self.at += 1;
        }
        (self.at > start).then_some(n)
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, Error> {
        let at = self.at;
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                self.at += 1;
                let Some(min) = self.number() else { return err("a repetition without its count", at) };
                let max = if self.eat(',') { self.number() } else { Some(min) };
                if !self.eat('}') || max.is_some_and(|m| m < min) || min > MAX_REPEAT || max.is_some_and(|m| m > MAX_REPEAT) {
                    return err("a bad repetition {n,m}", at);
                }
                self.at -= 1;
                (min, max)
            }
            _ => return Ok(atom),
        };
        self.at += 1;
        if matches!(atom, Node::Empty | Node::Look(_)) {
            return err("a repetition of nothing", at);
        }
        let greedy = !self.eat('?');
        if matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
            return err("a repetition of a repetition", self.at);
        }
        Ok(Node::Repeat(Box::new(atom), min, max, greedy))
    }

    fn atom(&mut self, depth: u32) -> Result<Node, Error> {
        let at = self.at;
        let c = self.chars[self.at];
        self.at += 1;
        Ok(match c {
            '.' => Node::Any,
            '^' => Node::Look(Look::Start),
            '$' => Node::Look(Look::End),
            '[' => self.class()?,
            '(' => self.group(depth)?,
            '\\' => self.escape(false)?,
            '*' | '+' | '?' | '{' => return err("a repetition of nothing", at),
            c => Node::Char(c),
        })
    }

    fn group(&mut self, depth: u32) -> Result<Node, Error> {
        let at = self.at - 1;
        let index = if self.eat('?') {
            if self.eat(':') {
                None
            } else if self.eat('P') && self.eat('<') || self.eat('<') {
                let start = self.at;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    self.at += 1;
                }
                let name: String = self.chars[start..self.at].iter().collect();
                if name.is_empty() || !self.eat('>') || self.names.iter().any(|(n, _)| **n == *name) {
                    return err("a bad group name", start);
                }
                self.groups += 1;
                self.names.push((name.into(), self.groups));
                Some(self.groups)
            } else {
                return err("flags and look-around are not supported", at);
            }
        } else {
            self.groups += 1;
            Some(self.groups)
        };
        let inner = self.alt(depth + 1)?;
        if !self.eat(')') {
            return err("an unclosed group", at);
        }
        Ok(Node::Group(Box::new(inner), index))
    }

    /// After `\`: a character, a class or an assertion (`in_class`: only the first two).
    fn escape(&mut self, in_class: bool) -> Result<Node, Error> {
        let at = self.at - 1;
        let Some(c) = self.peek() else { return err("a `\\` at the end", at) };
        self.at += 1;
        let class = |ranges: &[(char, char)], negated: bool| Node::Class(ranges.to_vec(), negated);
        Ok(match c {
            'd' | 'D' => class(DIGIT, c == 'D'),
            'w' | 'W' => class(WORD, c == 'W'),
            's' | 'S' => class(SPACE, c == 'S'),
            'n' => Node::Char('\n'),
            't' => Node::Char('\t'),
            'r' => Node::Char('\r'),
            'f' => Node::Char('\u{c}'),
            'v' => Node::Char('\u{b}'),
            'x' => Node::Char(self.hex()?),
            'b' | 'B' | 'A' | 'z' if !in_class => Node::Look(match c {
                'b' => Look::Word,
                'B' => Look::NotWord,
                'A' => Look::Start,
                _ => Look::End,
            }),
            c if c.is_ascii_punctuation() || c == ' ' => Node::Char(c),
            _ => return err("an unknown escape", at),
        })
    }

    fn hex(&mut self) -> Result<char, Error> {
        let at = self.at;
        let braced = self.eat('{');
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) && (braced || self.at - start < 2) {
            self.at += 1;
        }
        let digits: String = self.chars[start..self.at].iter().collect();
        let ok = !digits.is_empty() && (braced || digits.len() == 2) && (!braced || self.eat('}'));
        match u32::from_str_radix(&digits, 16).ok().and_then(char::from_u32) {
            Some(c) if ok => Ok(c),
            _ => err("a bad \\x escape", at),
        }
    }

    fn class(&mut self) -> Result<Node, Error> {
        let at = self.at - 1;
        let negated = self.eat('^');
        let mut ranges: Vec<(char, char)> = Vec::new();
        let mut first = true;
        loop {
            let Some(c) = self.peek() else { return err("an unclosed class", at) };
            self.at += 1;
            if c == ']' && !first {
                break;
            }
            first = false;
            let lo = match c {
                '\\' => match self.escape(true)? {
                    Node::Char(c) => c,
                    Node::Class(set, neg) => {
                        ranges.extend(if neg { complement(&set) } else { set });
                        continue;
                    }
                    _ => return err("an assertion in a class", self.at),
                },
                '[' if self.peek() == Some(':') => return err("POSIX classes are not supported", self.at),
                c => c,
            };
            // A range, unless `-` ends the class.
            if self.peek() == Some('-') && self.chars.get(self.at + 1).is_some_and(|&n| n != ']') {
                self.at += 1;
                let n = self.chars[self.at];
                self.at += 1;
                let hi = if n == '\\' {
                    match self.escape(true)? {
                        Node::Char(c) => c,
                        _ => return err("a class in a range", self.at),
                    }
                } else {
                    n
                };
                if hi < lo {
                    return err("a range out of order", self.at);
                }
                ranges.push((lo, hi));
            } else {
                ranges.push((lo, lo));
            }
        }
        Ok(Node::Class(canonical(ranges), negated))
    }
}

const DIGIT: &[(char, char)] = &[('0', '9')];
const WORD: &[(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
const SPACE: &[(char, char)] = &[('\t', '\r'), (' ', ' ')];

fn canonical(mut v: Vec<(char, char)>) -> Vec<(char, char)> {
    // The engine's one sort (a `sort_unstable` here would be a second copy of the sort code).
    crate::order::sort_by_key(&mut v, |&(lo, hi)| (u64::from(lo), u64::from(hi)));
    let mut out: Vec<(char, char)> = Vec::with_capacity(v.len());
    for (lo, hi) in v {
        match out.last_mut() {
            Some(last) if lo as u32 <= last.1 as u32 + 1 => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// Every character not in the sorted, disjoint `set`.
fn complement(set: &[(char, char)]) -> Vec<(char, char)> {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(lo, hi) in set {
        if (lo as u32) > next {
            out.extend(char::from_u32(next).zip(char::from_u32(lo as u32 - 1)));
        }
        next = hi as u32 + 1;
    }
    if next <= 0x10FFFF {
        out.extend(char::from_u32(next).or(Some('\u{e000}')).zip(Some(char::MAX)));
    }
    out
}

/// A class as the program tests it: ASCII characters by a bitmap, the others by a binary search
/// of the ranges.
#[derive(Clone, Debug)]
struct Class {
    ascii: [u64; 2],
    ranges: Box<[(char, char)]>,
    negated: bool,
}

impl Class {
    fn new(ranges: &[(char, char)], negated: bool) -> Class {
        let mut ascii = [0u64; 2];
        for c in (0..128u8).filter(|&b| in_class(ranges, b as char)) {
            ascii[usize::from(c >> 6)] |= 1 << (c & 63);
        }
        Class { ascii, ranges: ranges.into(), negated }
    }

    fn has(&self, c: char) -> bool {
        let n = c as u32;
        let inside = if n < 128 { self.ascii[(n >> 6) as usize] >> (n & 63) & 1 == 1 } else { in_class(&self.ranges, c) };
        inside != self.negated
    }
}

fn in_class(set: &[(char, char)], c: char) -> bool {
    set.binary_search_by(|&(lo, hi)| {
        if hi < c {
            std::cmp::Ordering::Less
        } else if lo > c {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    })
    .is_ok()
}

struct Compiler {
    prog: Vec<Inst>,
}

impl Compiler {
    fn pc(&self) -> u32 {
        self.prog.len() as u32
    }

    fn push(&mut self, i: Inst) -> Result<u32, Error> {
        if self.prog.len() >= MAX_INSTS {
            return err("a pattern too large", 0);
        }
        self.prog.push(i);
        Ok(self.pc() - 1)
    }

    fn node(&mut self, n: &Node) -> Result<(), Error> {
        match n {
            Node::Empty => {}
            Node::Char(c) => _ = self.push(Inst::Char(*c))?,
            Node::Any => _ = self.push(Inst::Any)?,
            Node::Class(set, neg) => _ = self.push(Inst::Class(Box::new(Class::new(set, *neg))))?,
            Node::Look(l) => _ = self.push(Inst::Look(*l))?,
            Node::Group(inner, index) => {
                if let Some(i) = index {
                    self.push(Inst::Save(2 * i))?;
                }
                self.node(inner)?;
                if let Some(i) = index {
                    self.push(Inst::Save(2 * i + 1))?;
                }
            }
            Node::Concat(items) => {
                for i in items {
                    self.node(i)?;
                }
            }
            Node::Alt(branches) => {
                let mut jumps = Vec::new();
                for (k, b) in branches.iter().enumerate() {
                    if k + 1 < branches.len() {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.node(b)?;
                        jumps.push(self.push(Inst::Jmp(0))?);
                        let next = self.pc();
                        self.prog[split as usize] = Inst::Split(split + 1, next);
                    } else {
                        self.node(b)?;
                    }
                }
                let end = self.pc();
                for j in jumps {
                    self.prog[j as usize] = Inst::Jmp(end);
                }
            }
            Node::Repeat(inner, min, max, greedy) => self.repeat(inner, *min, *max, *greedy)?,
        }
        Ok(())
    }

    fn split(&mut self, at: u32, on: u32, out: u32, greedy: bool) {
        self.prog[at as usize] = if greedy { Inst::Split(on, out) } else { Inst::Split(out, on) };
    }

    fn repeat(&mut self, inner: &Node, min: u32, max: Option<u32>, greedy: bool) -> Result<(), Error> {
        for _ in 0..min {
            self.node(inner)?;
        }
        match max {
            None => {
                // L: split(body, out); body; jmp L
                let split = self.push(Inst::Split(0, 0))?;
                self.node(inner)?;
                self.push(Inst::Jmp(split))?;
                let out = self.pc();
                self.split(split, split + 1, out, greedy);
            }
            Some(max) => {
                // Each optional copy: split(body, end); body
                let mut splits = Vec::new();
                for _ in min..max {
                    splits.push(self.push(Inst::Split(0, 0))?);
                    self.node(inner)?;
                }
                let end = self.pc();
                for s in splits {
                    self.split(s, s + 1, end, greedy);
                }
            }
        }
        Ok(())
    }
}

/// A compiled pattern.
pub struct Regex {
    prog: Box<[Inst]>,
    /// The group of each name, and the names by group (index 0: the whole match).
    names: Arc<[(Box<str>, u32)]>,
    slots: usize,
    /// The pattern starts with `^` or `\A`: tried at the text's start only.
    anchored: bool,
    /// The bytes a match can start with, when the program says: while no thread is alive, the
    /// search skips to the next of them (with memchr when there is one).
    starts: Option<Starts>,
    /// For each instruction, the instructions that consume (and `Match`) it reaches without
    /// consuming, in priority order, when no assertion is on the way: a search that keeps only
    /// the whole match's bounds follows these lists instead of walking the program.
    reach: Box<[Option<Box<[u32]>>]>,
}

impl Regex {
    pub fn new(pattern: &str) -> Result<Regex, Error> {
        let mut p = Parser { chars: pattern.chars().collect(), at: 0, groups: 0, names: Vec::new() };
        let node = p.alt(0)?;
        if p.at < p.chars.len() {
            return err("an unopened `)`", p.at);
        }
        let anchored = matches!(first(&node), Some(Node::Look(Look::Start)));
        let mut c = Compiler { prog: Vec::new() };
        c.push(Inst::Save(0))?;
        c.node(&node)?;
        c.push(Inst::Save(1))?;
        c.push(Inst::Match)?;
        let starts = first_bytes(&c.prog);
        let reach = (0..c.prog.len() as u32).map(|pc| reach(&c.prog, pc)).collect();
        Ok(Regex { prog: c.prog.into(), names: p.names.into(), slots: 2 * (p.groups as usize + 1), anchored, starts, reach })
    }

    /// Groups, the whole match included.
    pub fn captures_len(&self) -> usize {
        self.slots / 2
    }

    pub fn is_match(&self, hay: &str) -> bool {
        self.search(hay, 0, &mut [None, None])
    }

    pub fn find<'h>(&self, hay: &'h str) -> Option<Match<'h>> {
        let mut s = [None, None];
        self.search(hay, 0, &mut s).then(|| Match::of(hay, &s, 0)).flatten()
    }

    pub fn find_iter<'r, 'h>(&'r self, hay: &'h str) -> impl Iterator<Item = Match<'h>> + 'r
    where
        'h: 'r,
    {
        self.captures_iter(hay).filter_map(|c| c.get(0))
    }

    pub fn captures<'h>(&self, hay: &'h str) -> Option<Captures<'h>> {
        self.captures_at(hay, 0)
    }

    /// The first match at or after `start`: found with the whole match's bounds alone, then its
    /// groups by a second run from where it starts (so a long text without a match costs what
    /// `is_match` costs).
    fn captures_at<'h>(&self, hay: &'h str, start: usize) -> Option<Captures<'h>> {
        let mut bounds = [None, None];
        if !self.search(hay, start, &mut bounds) {
            return None;
        }
        let mut slots = vec![None; self.slots];
        slots[..2].copy_from_slice(&bounds);
        if self.slots > 2 {
            let from = bounds[0].unwrap_or(start);
            VM.with(|vm| vm.borrow_mut().run(self, hay, from, &mut slots, true));
        }
        Some(Captures { hay, slots, names: self.names.clone() })
    }

    /// Every match, left to right, none overlapping (after an empty match the search goes on a
    /// character later).
    pub fn captures_iter<'r, 'h>(&'r self, hay: &'h str) -> impl Iterator<Item = Captures<'h>> + 'r
    where
        'h: 'r,
    {
        let mut at = Some(0);
        std::iter::from_fn(move || {
            let c = self.captures_at(hay, at?)?;
            let (s, e) = (c.slots[0].unwrap_or(0), c.slots[1].unwrap_or(0));
            at = if e > s { Some(e) } else { hay[e..].chars().next().map(|ch| e + ch.len_utf8()) };
            Some(c)
        })
    }

    /// Runs the program from `start`: the leftmost-first match's groups into `out` (as many as
    /// it has room for).
    fn search(&self, hay: &str, start: usize, out: &mut [Option<usize>]) -> bool {
        if self.anchored && start > 0 {
            return false;
        }
        VM.with(|vm| vm.borrow_mut().run(self, hay, start, out, false))
    }
}

/// The instructions that consume (and `Match`) `pc` reaches without consuming, in priority
/// order; `None` when an assertion is on the way (it depends on where the text is) or there are
/// too many to be worth keeping.
fn reach(prog: &[Inst], pc: u32) -> Option<Box<[u32]>> {
    let (mut out, mut seen, mut stack) = (Vec::new(), vec![false; prog.len()], vec![pc]);
    while let Some(pc) = stack.pop() {
        if std::mem::replace(&mut seen[pc as usize], true) {
            continue;
        }
        match &prog[pc as usize] {
            Inst::Jmp(to) => stack.push(*to),
            Inst::Split(a, b) => stack.extend([*b, *a]),
            Inst::Save(_) => stack.push(pc + 1),
            Inst::Look(_) => return None,
            _ => out.push(pc),
        }
        if out.len() > 64 {
            return None;
        }
    }
    Some(out.into())
}

/// The bytes a match can start with (a character's first UTF-8 byte), when the program says:
/// every instruction it reaches from its start without consuming must be a character or a
/// class of ASCII characters (an assertion is passed as if it held; a match of nothing, `.` or
/// a negated class give `None`).
fn first_bytes(prog: &[Inst]) -> Option<Starts> {
    let (mut set, mut seen, mut stack) = ([0u64; 4], vec![false; prog.len()], vec![0u32]);
    let mut add = |b: u8| set[usize::from(b >> 6)] |= 1 << (b & 63);
    while let Some(pc) = stack.pop() {
        if std::mem::replace(&mut seen[pc as usize], true) {
            continue;
        }
        match &prog[pc as usize] {
            Inst::Jmp(to) => stack.push(*to),
            Inst::Split(a, b) => stack.extend([*a, *b]),
            Inst::Save(_) | Inst::Look(_) => stack.push(pc + 1),
            Inst::Char(c) => add(c.encode_utf8(&mut [0; 4]).as_bytes()[0]),
            Inst::Class(class) if !class.negated && class.ranges.iter().all(|&(_, hi)| hi.is_ascii()) => {
                class.ranges.iter().for_each(|&(lo, hi)| (lo as u8..=hi as u8).for_each(&mut add));
            }
            _ => return None,
        }
    }
    let count: u32 = set.iter().map(|w| w.count_ones()).sum();
    let one = (count == 1).then(|| (0..=255u8).find(|&b| set[usize::from(b >> 6)] >> (b & 63) & 1 == 1)).flatten();
    Some(Starts { set, one })
}

/// The bytes a match can start with: a set, and the byte itself when it is the only one.
struct Starts {
    set: [u64; 4],
    one: Option<u8>,
}

impl Starts {
    fn has(&self, b: u8) -> bool {
        self.set[usize::from(b >> 6)] >> (b & 63) & 1 == 1
    }

    /// The next place at or after `at` where a match may start.
    fn next(&self, hay: &str, at: usize) -> Option<usize> {
        let b = &hay.as_bytes()[at..];
        // (memchr2 and memchr3 would bring their own SIMD searchers into the package: 3 KB.)
        let found = match self.one {
            Some(x) => memchr::memchr(x, b),
            None => b.iter().position(|&c| self.has(c)),
        };
        found.map(|i| at + i)
    }
}

/// The first thing a pattern looks at, through groups and concatenations.
fn first(n: &Node) -> Option<&Node> {
    match n {
        Node::Group(inner, _) => first(inner),
        Node::Concat(items) => items.first().and_then(first),
        other => Some(other),
    }
}

/// The threads of one step: which instructions are live, in priority order, each with its
/// groups so far.
#[derive(Default)]
struct Threads {
    dense: Vec<u32>,
    sparse: Vec<u32>,
    slots: Vec<Option<usize>>,
}

impl Threads {
    fn reset(&mut self, insts: usize, slots: usize) {
        self.dense.clear();
        if self.sparse.len() < insts {
            self.sparse.resize(insts, 0);
        }
        if self.slots.len() < insts * slots {
            self.slots.resize(insts * slots, None);
        }
    }

    fn contains(&self, pc: u32) -> bool {
        let i = self.sparse[pc as usize] as usize;
        i < self.dense.len() && self.dense[i] == pc
    }

    fn insert(&mut self, pc: u32) {
        self.sparse[pc as usize] = self.dense.len() as u32;
        self.dense.push(pc);
    }
}

/// What a search works in, kept between searches (the package runs on one thread).
#[derive(Default)]
struct Vm {
    now: Threads,
    next: Threads,
    /// The groups being built while following the instructions that consume nothing.
    caps: Vec<Option<usize>>,
    stack: Vec<Frame>,
}

enum Frame {
    Pc(u32),
    /// Put a group's slot back as it was.
    Restore(u32, Option<usize>),
}

thread_local! {
    static VM: RefCell<Vm> = RefCell::default();
}

fn word_byte(b: Option<&u8>) -> bool {
    b.is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

fn look(l: Look, hay: &str, at: usize) -> bool {
    let b = hay.as_bytes();
    match l {
        Look::Start => at == 0,
        Look::End => at == hay.len(),
        Look::Word | Look::NotWord => {
            let edge = word_byte(at.checked_sub(1).and_then(|i| b.get(i))) != word_byte(b.get(at));
            edge == (l == Look::Word)
        }
    }
}

impl Vm {
    /// The leftmost-first match at or after `start` (`here`: starting at `start` only).
    fn run(&mut self, re: &Regex, hay: &str, start: usize, out: &mut [Option<usize>], here: bool) -> bool {
        let anchored = here || re.anchored;
        // Only the groups the caller asks for are kept (is_match and find: the whole match).
        let (n, k) = (re.prog.len(), out.len().min(re.slots));
        self.now.reset(n, k);
        self.next.reset(n, k);
        self.caps.clear();
        self.caps.resize(k, None);
        let mut matched = false;
        let mut at = start;
        loop {
            if !matched && self.now.dense.is_empty() && !anchored {
                // Nothing alive: on to the next place a match may start.
                match re.starts.as_ref().map(|s| s.next(hay, at)) {
                    Some(Some(next)) => at = next,
                    Some(None) => break,
                    None => {}
                }
            }
            if !matched && (at == start || !anchored) {
                self.caps.iter_mut().for_each(|s| *s = None);
                if k == 2 {
                    self.caps[0] = Some(at); // the program's first instruction saves it
                }
                self.add(re, hay, 0, at, k, false);
            }
            if self.now.dense.is_empty() {
                break;
            }
            let c = match hay.as_bytes().get(at) {
                Some(&b) if b < 0x80 => Some(b as char),
                Some(_) => hay[at..].chars().next(),
                None => None,
            };
            let next_at = at + c.map_or(1, char::len_utf8);
            for i in 0..self.now.dense.len() {
                let pc = self.now.dense[i];
                let ok = match (&re.prog[pc as usize], c) {
                    (Inst::Match, _) => {
                        out[..k].copy_from_slice(&self.now.slots[pc as usize * k..pc as usize * k + k]);
                        matched = true;
                        break; // the threads after it have lower priority
                    }
                    (Inst::Char(want), Some(c)) => *want == c,
                    (Inst::Any, Some(c)) => c != '\n',
                    (Inst::Class(class), Some(c)) => class.has(c),
                    _ => false,
                };
                if ok {
                    let row = pc as usize * k;
                    self.caps.copy_from_slice(&self.now.slots[row..row + k]);
                    self.add(re, hay, pc + 1, next_at, k, true);
                }
            }
            std::mem::swap(&mut self.now, &mut self.next);
            self.next.dense.clear();
            if at >= hay.len() {
                break;
            }
            at = next_at;
        }
        self.now.dense.clear();
        matched
    }

    /// Adds the thread at `pc` to the step's list (`next`: the next step's) with the groups in
    /// `caps`: by the instruction's reach list when only the bounds are kept, else by walking.
    fn add(&mut self, re: &Regex, hay: &str, pc: u32, at: usize, k: usize, next: bool) {
        let list = if next { &mut self.next } else { &mut self.now };
        match re.reach[pc as usize].as_deref() {
            Some(targets) if k <= 2 => {
                for &t in targets {
                    if list.contains(t) {
                        continue;
                    }
                    list.insert(t);
                    let row = t as usize * k;
                    list.slots[row..row + k].copy_from_slice(&self.caps);
                    // The one `Save` a bounds-only search keeps on the way: the end, before `Match`.
                    if k == 2 && matches!(re.prog[t as usize], Inst::Match) {
                        list.slots[row + 1] = Some(at);
                    }
                }
            }
            _ => add(list, &mut self.stack, &mut self.caps, re, hay, pc, at, k),
        }
    }
}

/// Adds the thread at `pc` and every instruction it reaches without consuming a character, in
/// priority order, each with the groups it has (`caps`, put back as it was after).
#[allow(clippy::too_many_arguments)]
fn add(list: &mut Threads, stack: &mut Vec<Frame>, caps: &mut [Option<usize>], re: &Regex, hay: &str, pc: u32, at: usize, k: usize) {
    stack.push(Frame::Pc(pc));
    while let Some(f) = stack.pop() {
        let pc = match f {
            Frame::Restore(slot, v) => {
                caps[slot as usize] = v;
                continue;
            }
            Frame::Pc(pc) => pc,
        };
        if list.contains(pc) {
            continue;
        }
        list.insert(pc);
        match &re.prog[pc as usize] {
            Inst::Jmp(to) => stack.push(Frame::Pc(*to)),
            Inst::Split(a, b) => {
                stack.push(Frame::Pc(*b));
                stack.push(Frame::Pc(*a));
            }
            Inst::Save(slot) if (*slot as usize) < k => {
                stack.push(Frame::Restore(*slot, caps[*slot as usize]));
                caps[*slot as usize] = Some(at);
                stack.push(Frame::Pc(pc + 1));
            }
            Inst::Save(_) => stack.push(Frame::Pc(pc + 1)),
            Inst::Look(l) => {
                if look(*l, hay, at) {
                    stack.push(Frame::Pc(pc + 1));
                }
            }
            _ => {
                let row = pc as usize * k;
                list.slots[row..row + k].copy_from_slice(caps);
            }
        }
    }
}

/// A match: where it is in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match<'h> {
    hay: &'h str,
    start: usize,
    end: usize,
}

impl<'h> Match<'h> {
    fn of(hay: &'h str, slots: &[Option<usize>], group: usize) -> Option<Match<'h>> {
        match (slots.get(2 * group), slots.get(2 * group + 1)) {
            (Some(Some(start)), Some(Some(end))) => Some(Match { hay, start: *start, end: *end }),
            _ => None,
        }
    }

    pub fn start(&self) -> usize {
        self.start
    }

    pub fn end(&self) -> usize {
        self.end
    }

    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    pub fn as_str(&self) -> &'h str {
        &self.hay[self.start..self.end]
    }
}

/// The groups of a match.
pub struct Captures<'h> {
    hay: &'h str,
    slots: Vec<Option<usize>>,
    names: Arc<[(Box<str>, u32)]>,
}

impl<'h> Captures<'h> {
    pub fn get(&self, group: usize) -> Option<Match<'h>> {
        Match::of(self.hay, &self.slots, group)
    }

    pub fn name(&self, name: &str) -> Option<Match<'h>> {
        let (_, g) = self.names.iter().find(|(n, _)| &**n == name)?;
        self.get(*g as usize)
    }

    pub fn len(&self) -> usize {
        self.slots.len() / 2
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Every group, the whole match first.
    pub fn iter(&self) -> impl Iterator<Item = Option<Match<'h>>> + '_ {
        (0..self.len()).map(|g| self.get(g))
    }
}

impl std::ops::Index<&str> for Captures<'_> {
    type Output = str;
    fn index(&self, name: &str) -> &str {
        self.name(name).map_or_else(|| panic!("no group {name}"), |m| m.as_str())
    }
}

impl std::ops::Index<usize> for Captures<'_> {
    type Output = str;
    fn index(&self, group: usize) -> &str {
        self.get(group).map_or_else(|| panic!("no group {group}"), |m| m.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(p: &str, h: &str) -> Option<Vec<Option<(usize, usize)>>> {
        let r = Regex::new(p).unwrap_or_else(|e| panic!("{p}: {e}"));
        r.captures(h).map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect())
    }

    #[test]
    fn leftmost_first_with_groups() {
        assert_eq!(spans("a|ab", "ab"), Some(vec![Some((0, 1))]));
        assert_eq!(spans("ab|a", "ab"), Some(vec![Some((0, 2))]));
        assert_eq!(spans("(a+?)(a*)", "aaa"), Some(vec![Some((0, 3)), Some((0, 1)), Some((1, 3))]));
        assert_eq!(spans("(?P<x>\\d+)-(?P<y>\\d+)?", "a 12- b"), Some(vec![Some((2, 5)), Some((2, 4)), None]));
        assert_eq!(spans("x*", "abc"), Some(vec![Some((0, 0))]));
        assert_eq!(spans("^b", "ab"), None);
        assert_eq!(spans("b$", "ab\n"), None);
        assert_eq!(spans("\\bcu\\b", "a.cu x"), Some(vec![Some((2, 4))]));
        assert_eq!(spans("[^\\]\\s]+", "ab]c"), Some(vec![Some((0, 2))]));
        assert_eq!(spans("a{2,3}", "aaaa"), Some(vec![Some((0, 3))]));
        assert_eq!(spans("a{2,}?", "aaaa"), Some(vec![Some((0, 2))]));
        assert_eq!(spans("设备[端侧]的?", "x 设备端"), Some(vec![Some((2, 11))]));
        assert_eq!(spans("(a|b)*c", "ababc"), Some(vec![Some((0, 5)), Some((3, 4))]));
        assert_eq!(spans(".", "\n"), None);
        assert_eq!(spans("[\\x22']", "say \"x"), Some(vec![Some((4, 5))]));
    }

    #[test]
    fn iterators_and_names() {
        let r = Regex::new("(?P<n>\\d)").unwrap();
        let all: Vec<&str> = r.captures_iter("a1b22").map(|c| c.name("n").unwrap().as_str()).collect();
        assert_eq!(all, ["1", "2", "2"]);
        assert_eq!(Regex::new("").unwrap().captures_iter("ab").count(), 3);
        assert_eq!(&Regex::new("(?P<k>[a-z]+)=").unwrap().captures("x key=1").unwrap()["k"], "key");
        assert_eq!(Regex::new("a(b)?").unwrap().captures_len(), 2);
    }

    #[test]
    fn bad_patterns_are_errors_not_panics() {
        for p in ["(", ")", "[a", "a{3,1}", "*", "a**", "\\", "(?i)a", "(?=a)", "a{99999}", "\\q", "[b-a]", "(?P<x>a)(?P<x>b)"] {
            assert!(Regex::new(p).is_err(), "{p}");
        }
    }

    #[test]
    fn the_first_bytes_skip_only_where_no_match_can_start() {
        let starts = |p: &str| Regex::new(p).unwrap().starts.map(|s| (0..=255u8).filter(|&b| s.has(b)).collect::<Vec<u8>>());
        assert_eq!(starts("(?:Assert|Dev)ion").as_deref(), Some(&b"AD"[..]));
        assert_eq!(starts("x?y").as_deref(), Some(&b"xy"[..]));
        assert_eq!(starts("[ab]|a|\\d").as_deref(), Some(&b"0123456789ab"[..]));
        assert_eq!(starts("\\bab").as_deref(), Some(&b"a"[..]));
        assert_eq!(starts("设备"), Some(vec![0xe8]));
        assert_eq!(Regex::new("x").unwrap().starts.and_then(|s| s.one), Some(b'x'));
        for p in ["a*", ".x", "[^a]", "[é]", "a|"] {
            assert!(Regex::new(p).unwrap().starts.is_none(), "{p}");
        }
        assert_eq!(spans("\\bab", "xab ab"), Some(vec![Some((4, 6))]));
        assert_eq!(spans("(?:Assert|Dev)ion", "..Devion"), Some(vec![Some((2, 8))]));
        assert_eq!(spans("设备端", "x 设备端"), Some(vec![Some((2, 11))]));
    }

    #[test]
    fn time_is_linear_in_the_text() {
        // A pattern that backtracks badly in a backtracking engine.
        let r = Regex::new("(a*)*b").unwrap();
        assert!(!r.is_match(&"a".repeat(20_000)));
    }
}
