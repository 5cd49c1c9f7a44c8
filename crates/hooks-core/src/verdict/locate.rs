//! Where the JSON values are in a hook's stdout, and what verdict fields each object holds:
//! one linear pass over stdout as it streams, of any length, in bounded memory.
//!
//! The rule (a value is "found" exactly when a JSON parser started at its first bracket
//! accepts it, JSON here being what `JSON.parse` accepts plus Python's `NaN`, `Infinity` and
//! `-Infinity`, see lenient.rs) is what a brute-force search would give: try the parser on
//! every slice of stdout that starts with `{` or `[`, keep the values that parse, drop those
//! inside another. This module gets the same answer in one pass:
//!
//! - Outside any value, text is log text: quotes there are not strings, only `{` and `[` count.
//! - Each bracket starts a parse. A parse that reaches a bracket where JSON allows a value
//!   nests it (the two parses agree from there on); the parses that share a stack form a
//!   *phase*. An error in a phase's innermost value is an error for every enclosing one, so
//!   the whole phase ends at once.
//! - A bracket inside a phase's string still starts a parse (`log: ["x {"cancel":true}` holds a
//!   valid object), in a second phase whose strings are where the first one's are not. Every
//!   later quote flips both, so two phases never both read a character as structure, and there
//!   are never more than two: linear time, whatever the input.
//! - `JSON.parse` takes any depth, so a value nested deeper than serde_json's 128 levels is
//!   still a value. A phase keeps its outermost [`MAX_DEPTH`] open values whole (the verdict is
//!   the outermost object, and they record its fields) and its innermost [`MAX_DEPTH`] (a
//!   verdict printed after lines that open arrays never closed); the levels between are two
//!   bits each (object or array, to check the brackets match; whether it opened a line), up to
//!   [`DEEP_LIMIT`] levels. A value with more than [`MAX_DEPTH`] levels open both outside and
//!   inside it is never found on its own, and when it closes, the values found inside the
//!   innermost outer one are dropped with it (it cannot say where it began).
//!
//! Stdout is not kept, so each open object records its verdict fields ([`Key`]) as they stream
//! past: the short ones up to [`SHORT_KEEP`] bytes, the long strings decoded up to
//! [`TEXT_KEEP`] bytes, `overrideInput`'s text up to [`JSON_KEEP`] bytes, the long ones drawing
//! on one [`CAPTURE_BUDGET`] for the whole scan. Of the values found, only what the verdict
//! rule needs is kept: a closing value removes the values inside it (they are no longer
//! maximal), and values no open value can remove any more are summed up (the last object with
//! a verdict field, whether one before it said `"cancel": true`, the objects after it, the last
//! value), so memory stays bounded.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::verdict::{utf16_unit, whole_chars};

/// Open values a phase keeps whole (serde_json's depth: it rejects the 128th level); values
/// opened deeper inside them are only counted.
pub const MAX_DEPTH: usize = 127;
/// Levels of nesting read in all (one bit each beyond [`MAX_DEPTH`]: 1 MiB at most); a value
/// opening deeper makes its phase fail, as a parser out of memory would.
pub const DEEP_LIMIT: usize = 1 << 23;
/// Bytes kept of a short field's value (`cancel`, `review`, `shouldContinue`), and of any
/// number or literal: enough to say what a wrong-typed one was (a float prints in fewer).
pub const SHORT_KEEP: usize = 512;
/// Bytes kept of `contextModification`, `context` and `errorMessage`, decoded: the limit the
/// verdict applies to them (the contract's 50 KB).
pub const TEXT_KEEP: usize = 50_000;
/// Bytes kept of `overrideInput`'s JSON text: a longer one is not read.
pub const JSON_KEEP: usize = 1 << 20;
/// Bytes of long field values (the ones [`TEXT_KEEP`] and [`JSON_KEEP`] bound) held at once,
/// across every object still open or still a candidate. Reached only by dozens of nested
/// objects with long verdict fields; short fields never count against it.
pub const CAPTURE_BUDGET: usize = 4 << 20;
/// Bytes of a key's text looked at: the longest verdict key, escaped, fits.
const KEY_KEEP: usize = 128;
/// Found values kept before those no open value separates are summed up.
const ENTRIES_COMPACT: usize = 1024;

/// What a bracket opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `{`
    Object,
    /// `[`
    Array,
}

/// A complete JSON value: bytes `start..end` of stdout, from its opening to its closing bracket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The byte of its opening bracket.
    pub start: usize,
    /// The byte after its closing bracket.
    pub end: usize,
    /// An object or an array.
    pub kind: Kind,
}

/// A bracket in stdout (at byte `at`, 1-based `line`, `column` in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opener {
    /// Its byte offset in stdout's text.
    pub at: usize,
    /// What it opens.
    pub kind: Kind,
    /// Its line, from 1.
    pub line: usize,
    /// Its column in bytes, from 1.
    pub column: usize,
}

/// The fields of a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// `cancel`
    Cancel,
    /// `shouldContinue`, the older contract's inverse of `cancel`
    ShouldContinue,
    /// `review`
    Review,
    /// `contextModification`
    ContextModification,
    /// `context`, the CLI's name for `contextModification`
    Context,
    /// `errorMessage`
    ErrorMessage,
    /// `overrideInput`
    OverrideInput,
}

impl Key {
    /// Every verdict field, in declaration order.
    pub const ALL: [Key; 7] = [
        Key::Cancel,
        Key::ShouldContinue,
        Key::Review,
        Key::ContextModification,
        Key::Context,
        Key::ErrorMessage,
        Key::OverrideInput,
    ];

    /// The field's name in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Key::Cancel => "cancel",
            Key::ShouldContinue => "shouldContinue",
            Key::Review => "review",
            Key::ContextModification => "contextModification",
            Key::Context => "context",
            Key::ErrorMessage => "errorMessage",
            Key::OverrideInput => "overrideInput",
        }
    }

    /// The field named `name` (its bytes, escapes decoded), if it is one.
    pub fn from_name(name: &[u8]) -> Option<Key> {
        Key::ALL.into_iter().find(|k| k.name().as_bytes() == name)
    }

    /// Bytes kept of this field's string or token.
    fn keep(self) -> usize {
        match self {
            Key::ContextModification | Key::Context | Key::ErrorMessage => TEXT_KEEP,
            _ => SHORT_KEEP,
        }
    }
}

/// What was kept of one verdict field's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Captured {
    /// A string, decoded: its first bytes (whole characters) and its length in bytes. A lone
    /// surrogate escape reads as U+FFFD; the first one and how many there were.
    Text {
        /// Its first bytes, decoded.
        text: String,
        /// Its whole length in bytes, decoded.
        len: usize,
        /// The first lone surrogate escape's code unit.
        lone: Option<u16>,
        /// How many lone surrogate escapes it held.
        lones: usize,
    },
    /// A number or literal as printed (`true`, `1e400`, `NaN`): its first bytes, its length.
    Token {
        /// Its first bytes.
        text: String,
        /// Its whole length in bytes.
        len: usize,
    },
    /// `overrideInput`'s object as printed: its text (all of it when `text.len() == len`).
    Json {
        /// Its first bytes.
        text: String,
        /// Its whole length in bytes.
        len: usize,
    },
    /// An object or array that was not kept.
    Container(Kind),
}

/// The budget of long captures, shared by one scan: bytes taken are given back when dropped.
#[derive(Debug, Default)]
struct Held {
    bytes: usize,
    pool: Option<Arc<AtomicUsize>>,
}

impl Held {
    fn from(pool: &Arc<AtomicUsize>) -> Held {
        Held {
            bytes: 0,
            pool: Some(pool.clone()),
        }
    }

    /// Takes up to `want` bytes; all of them when this capture is not budgeted.
    fn take(&mut self, want: usize) -> usize {
        let Some(pool) = &self.pool else {
            return want;
        };
        // One scan runs on one thread: nothing else moves the pool between these two steps.
        let granted = want.min(pool.load(Ordering::Relaxed));
        pool.fetch_sub(granted, Ordering::Relaxed);
        self.bytes += granted;
        granted
    }

    fn absorb(&mut self, mut other: Held) {
        if self.pool.is_none() {
            self.pool = other.pool.take();
        }
        self.bytes += std::mem::take(&mut other.bytes);
    }

    fn release(&mut self, bytes: usize) {
        let bytes = bytes.min(self.bytes);
        if let Some(pool) = &self.pool {
            pool.fetch_add(bytes, Ordering::Relaxed);
        }
        self.bytes -= bytes;
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.release(self.bytes);
    }
}

/// The verdict fields one object printed at its top level, as kept.
#[derive(Debug, Default)]
pub struct Fields {
    values: [Option<Captured>; 7],
    charged: [usize; 7],
    held: Held,
}

impl Fields {
    /// What was kept of `key`'s value, if the object printed it (its last one).
    pub fn get(&self, key: Key) -> Option<&Captured> {
        self.values[key as usize].as_ref()
    }

    /// Whether its (last) `cancel` is exactly `true`.
    pub fn says_cancel(&self) -> bool {
        matches!(self.get(Key::Cancel), Some(Captured::Token { text, .. }) if text == "true")
    }

    /// A later duplicate replaces the earlier value, as in `JSON.parse`.
    fn put(&mut self, key: Key, value: Captured, held: Held) {
        let k = key as usize;
        let old = std::mem::replace(&mut self.charged[k], held.bytes);
        self.held.release(old);
        self.held.absorb(held);
        self.values[k] = Some(value);
    }
}

/// A complete value; `fields` is set for an object that printed a verdict field.
#[derive(Debug)]
pub struct Found {
    /// Where it is.
    pub span: Span,
    /// Its verdict fields, when it printed one.
    pub fields: Option<Box<Fields>>,
}

/// What one pass over stdout found.
#[derive(Debug, Default)]
pub struct Scan {
    /// The last complete object, not inside another complete value, holding a verdict field.
    pub keyed: Option<Found>,
    /// Whether an object before `keyed`, also holding a verdict field and inside no other
    /// complete value, printed `"cancel": true` (its own last `cancel`): `keyed` replaced it.
    pub cancel_replaced: bool,
    /// How many objects holding a verdict field, inside no other complete value, printed
    /// `"cancel": true` (their own last `cancel`), `keyed` included: in the CLI profile a
    /// `HOOK_CONTROL` line decides, and these are the cancels it set aside.
    pub cancels: usize,
    /// How many such objects without a verdict field came after `keyed` (all, if none did).
    pub ignored: usize,
    /// The first of those objects.
    pub first_ignored: Option<Span>,
    /// The last complete object not inside another complete value.
    pub last_object: Option<Span>,
    /// The last complete value not inside another complete value.
    pub last_value: Option<Span>,
    /// The first line-opening value that stdout ended inside (it never closed), if any.
    pub unclosed: Option<Opener>,
    /// How many line-opening values stdout ended inside.
    pub unclosed_lines: usize,
    /// The object stdout ended inside, not inside another value, when it printed
    /// `"cancel": true` among its own fields (its last `cancel` so far).
    pub unclosed_cancel: Option<Opener>,
    /// Where a value first opened more than [`DEEP_LIMIT`] levels deep.
    pub too_deep: Option<Opener>,
    /// The last line-opening value that turned out not to be JSON after a valid start.
    pub broken: Option<Opener>,
    /// Where the last character that is not blank ends.
    pub last_nonblank_end: usize,
    /// Bytes scanned.
    pub len: usize,
    /// Every complete value not inside another complete value, in order (tests only: the
    /// scan itself keeps a bounded summary).
    #[cfg(test)]
    pub values: Vec<Span>,
}

/// Characters that never matter around a verdict: whitespace, NUL, and the UTF-8 byte-order
/// mark that Windows PowerShell 5.1 writes at the start of its output.
pub fn is_blank(c: char) -> bool {
    c.is_whitespace() || c == '\0' || c == '\u{feff}'
}

/// Scans `text` at once.
pub fn scan(text: &str) -> Scan {
    let mut scanner = Scanner::default();
    scanner.feed(text);
    scanner.finish()
}

/// The scan of a stream: [`feed`](Scanner::feed) it text as it comes, then
/// [`finish`](Scanner::finish) it.
pub struct Scanner {
    phases: Vec<Phase>,
    spare: Vec<VecDeque<Frame>>,
    out: Out,
    pool: Arc<AtomicUsize>,
    /// Bytes fed so far.
    pos: usize,
    /// Newlines fed so far, and where the current line starts.
    lines: Lines,
    /// Whether the current line holds only blanks so far.
    line_blank: bool,
    last_nonblank_end: usize,
}

impl Default for Scanner {
    fn default() -> Scanner {
        Scanner {
            phases: Vec::with_capacity(2),
            spare: Vec::new(),
            out: Out::default(),
            pool: Arc::new(AtomicUsize::new(CAPTURE_BUDGET)),
            pos: 0,
            lines: Lines::default(),
            line_blank: true,
            last_nonblank_end: 0,
        }
    }
}

/// Newlines so far, and where the current line starts: read by reference only where a value
/// opens (a struct built for every byte and copied whole costs more than the scan itself).
#[derive(Debug, Clone, Copy, Default)]
struct Lines {
    line: usize,
    begin: usize,
}

impl Lines {
    /// 1-based line and column of byte `at` of the current line.
    fn of(&self, at: usize) -> (usize, usize) {
        (self.line + 1, at - self.begin + 1)
    }
}

impl Scanner {
    /// Scans the next part of stdout: whole characters (a decoder's output).
    pub fn feed(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let base = self.pos;
        let mut brackets = Brackets::default();
        let mut i = 0;
        while i < bytes.len() {
            // Fast paths over bytes that cannot change anything: log text up to the next
            // bracket, and the plain characters of the only open string (it began on this
            // line, so the line is already not blank, and it holds no newline).
            if self.phases.is_empty() {
                let end = brackets.next(text, i).unwrap_or(bytes.len());
                if end > i {
                    self.skip_log_text(text, i, end);
                    i = end;
                }
                if i == bytes.len() {
                    break;
                }
                // `log {` then more text: the parse it would start fails at its first token.
                if let Some(fails_at) = dead_bracket(bytes, i) {
                    self.skip_log_text(text, i, fails_at);
                    i = fails_at;
                    continue;
                }
            } else if let [phase] = &mut self.phases[..] {
                if let Lex::Str {
                    key,
                    esc: Esc::None,
                } = phase.lex
                {
                    let plain = first(&bytes[i..], |b| {
                        matches!(b, b'"' | b'\\' | b'{' | b'[' | 0..=0x1f)
                    })
                    .unwrap_or(bytes.len() - i);
                    if plain > 0 {
                        phase.plain(key, &bytes[i..i + plain]);
                        i += plain;
                        if i == bytes.len() {
                            break;
                        }
                    }
                }
            }
            let b = bytes[i];
            let at = base + i;
            let line_start = self.line_blank;
            if b == b'\n' {
                self.lines.line += 1;
                self.lines.begin = at + 1;
                self.line_blank = true;
            } else if self.line_blank && !starts_blank(text, i) {
                self.line_blank = false;
            }

            let mut cx = Ctx {
                at,
                b,
                line_start,
                lines: &self.lines,
                pool: &self.pool,
                out: &mut self.out,
            };
            let mut nested = false;
            let mut p = 0;
            while p < self.phases.len() {
                match self.phases[p].step(&mut cx) {
                    Step::Alive => p += 1,
                    Step::Nested => {
                        nested = true;
                        p += 1;
                    }
                    Step::Done => self.spare.push(self.phases.swap_remove(p).frames),
                    Step::Failed => {
                        let phase = self.phases.swap_remove(p);
                        // `[INFO] ...` fails at its first token: a log line, not broken JSON
                        // (`I` may begin Python's `Infinity`, so a failure right after it counts too).
                        let first_token = phase.frames.len() == 1
                            && (matches!(
                                phase.lex,
                                Lex::Expect(Want::KeyOrEnd | Want::ValueOrEnd)
                            ) || (phase.first_value
                                && matches!(phase.lex, Lex::Word { word, next: 1 } if word[0].is_ascii_uppercase())));
                        let first = phase.frames.iter().find(|f| f.line_start);
                        if let Some(first) = first.filter(|_| !first_token) {
                            if cx.out.broken.is_none_or(|o| o.at < first.start) {
                                cx.out.broken = Some(first.opener());
                            }
                        }
                        // Its frames' captures go back to the budget now, not on reuse.
                        let mut frames = phase.frames;
                        frames.clear();
                        self.spare.push(frames);
                    }
                }
            }
            if !nested && (b == b'{' || b == b'[') {
                let mut frames = self.spare.pop().unwrap_or_default();
                frames.clear();
                let mut phase = Phase::new(frames);
                phase.open(&mut cx);
                self.phases.push(phase);
            }
            debug_assert!(self.phases.len() <= 2, "more than two phases at byte {at}");
            if self.out.recorded {
                self.out.recorded = false;
                self.sum_up();
            }
            i += 1;
        }
        // The last character that is not blank is in the last piece that holds one.
        if let Some(end) = last_nonblank(text, 0, text.len()) {
            self.last_nonblank_end = base + end;
        }
        self.pos += bytes.len();
    }

    /// What the whole stream held.
    pub fn finish(mut self) -> Scan {
        let mut scan = Scan::default();
        // Stdout ended inside these values.
        for phase in &self.phases {
            let mut live = phase.frames.iter().filter(|f| f.line_start);
            let inner = phase.inner.iter().filter(|f| f.line_start).count();
            scan.unclosed_lines += live.clone().count() + phase.deep.lines + inner;
            if let Some(first) = live.next().map(Frame::opener) {
                if scan.unclosed.is_none_or(|o| first.at < o.at) {
                    scan.unclosed = Some(first);
                }
            }
        }
        // The earliest open value is inside no other: the others are inside it.
        let outermost = self
            .phases
            .iter()
            .filter_map(|p| p.frames.front())
            .min_by_key(|f| f.start);
        scan.unclosed_cancel = outermost
            .filter(|f| f.kind == Kind::Object)
            .filter(|f| f.fields.as_ref().is_some_and(|fields| fields.says_cancel()))
            .map(Frame::opener);
        if let Some(all) = self.out.entries.drain(..).reduce(Entry::merge) {
            scan.keyed = all.keyed;
            scan.cancel_replaced = all.cancel_replaced;
            scan.cancels = all.cancels;
            scan.ignored = all.after;
            scan.first_ignored = all.first_after;
            scan.last_object = all.last_object;
            scan.last_value = Some(all.last_value);
        }
        scan.too_deep = self.out.too_deep;
        scan.broken = self.out.broken;
        scan.last_nonblank_end = self.last_nonblank_end;
        scan.len = self.pos;
        #[cfg(test)]
        {
            scan.values = std::mem::take(&mut self.out.values);
        }
        scan
    }

    /// Bytes of the capture budget not in use (tests watch it come back).
    #[cfg(test)]
    fn budget_left(&self) -> usize {
        self.pool.load(Ordering::Relaxed)
    }

    /// Log text `from..to` (no bracket in it): lines and blanks only.
    fn skip_log_text(&mut self, text: &str, from: usize, to: usize) {
        // (`str::find` of one ASCII character is the standard library's memchr.)
        let start = text.ceil_char_boundary(from).min(to);
        let mut last_newline = None;
        let mut at = start;
        while let Some(n) = text[at..to].find('\n') {
            self.lines.line += 1;
            last_newline = Some(at + n);
            at += n + 1;
        }
        match last_newline {
            Some(n) => {
                self.lines.begin = self.pos + n + 1;
                self.line_blank = all_blank(text, n + 1, to);
            }
            None => self.line_blank = self.line_blank && all_blank(text, from, to),
        }
    }

    /// Sums up the newest found values with the ones before them while no open value starts
    /// between them (no close can then remove one without the other); from time to time, all
    /// of them, since values that fail open gaps that nothing else merges.
    fn sum_up(&mut self) {
        while self.out.entries.len() >= 2 {
            let n = self.out.entries.len();
            let (a, b) = (self.out.entries[n - 2].first, self.out.entries[n - 1].first);
            if self.open_between(a, b) {
                break;
            }
            if let (Some(later), Some(earlier)) = (self.out.entries.pop(), self.out.entries.pop()) {
                self.out.entries.push(earlier.merge(later));
            }
        }
        if self.out.entries.len() > ENTRIES_COMPACT {
            let entries = std::mem::take(&mut self.out.entries);
            let mut kept: Vec<Entry> = Vec::with_capacity(entries.len() / 2);
            for mut entry in entries {
                while let Some(prev) = kept.last() {
                    if self.open_between(prev.first, entry.first) {
                        break;
                    }
                    if let Some(prev) = kept.pop() {
                        entry = prev.merge(entry);
                    }
                }
                kept.push(entry);
            }
            self.out.entries = kept;
        }
    }

    /// Whether an open value starts in `a+1..=b`: its close would remove values from `b` on
    /// but not from `a`.
    fn open_between(&self, a: usize, b: usize) -> bool {
        self.phases.iter().any(|p| {
            [&p.frames, &p.inner].into_iter().any(|frames| {
                let k = frames.partition_point(|f| f.start <= a);
                frames.get(k).is_some_and(|f| f.start <= b)
            })
        })
    }
}

/// Where the next `{` and `[` of a chunk are, each found once with the standard library's
/// memchr (`str::find` of an ASCII character): fast in every build, and linear, since a
/// position is only looked for again once it is passed.
#[derive(Default)]
struct Brackets {
    brace: Option<Option<usize>>,
    square: Option<Option<usize>>,
}

impl Brackets {
    /// The first `{` or `[` at or after byte `from` of `text`.
    fn next(&mut self, text: &str, from: usize) -> Option<usize> {
        // Continuation bytes are never brackets: start at a character.
        let from = text.ceil_char_boundary(from);
        let find = |slot: &mut Option<Option<usize>>, c: char| match *slot {
            Some(Some(at)) if at >= from => Some(at),
            Some(None) => None,
            _ => {
                let found = text[from..].find(c).map(|n| from + n);
                *slot = Some(found);
                found
            }
        };
        let brace = find(&mut self.brace, '{');
        let square = find(&mut self.square, '[');
        match (brace, square) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// For a bracket at `bytes[i]` outside any value: where the parse it starts would fail at
/// its first token (blanks skipped), when that byte is in `bytes` and is not a bracket that
/// starts a parse of its own. Such a parse changes nothing: the bracket is log text.
fn dead_bracket(bytes: &[u8], i: usize) -> Option<usize> {
    let mut k = i + 1;
    while k < bytes.len() && matches!(bytes[k], b' ' | b'\t' | b'\n' | b'\r') {
        k += 1;
    }
    let next = *bytes.get(k)?;
    let alive = match bytes[i] {
        b'{' => matches!(next, b'"' | b'}' | b'{' | b'['),
        _ => matches!(
            next,
            b']' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' | b'N' | b'I' | b'{' | b'['
        ),
    };
    (!alive).then_some(k)
}

/// Where the first byte of `bytes` that `hit` is: the first 16 bytes one by one (most runs
/// are short: a one-character string), then 32 at a time (a test of a whole block compiles to
/// vector instructions; a long string is mostly such blocks).
#[inline]
fn first(bytes: &[u8], hit: impl Fn(u8) -> bool) -> Option<usize> {
    let head = bytes.len().min(16);
    if let Some(n) = bytes[..head].iter().position(|&b| hit(b)) {
        return Some(n);
    }
    let mut blocks = bytes[head..].chunks_exact(32);
    let mut offset = head;
    for block in &mut blocks {
        if block.iter().fold(false, |any, &b| any | hit(b)) {
            return block.iter().position(|&b| hit(b)).map(|n| offset + n);
        }
        offset += 32;
    }
    blocks
        .remainder()
        .iter()
        .position(|&b| hit(b))
        .map(|n| offset + n)
}

/// Whether `text[from..to]` is blank; `from` may be inside a character already judged.
fn all_blank(text: &str, from: usize, to: usize) -> bool {
    let from = text.ceil_char_boundary(from).min(to);
    text[from..to].chars().all(is_blank)
}

/// Where the last character of `text[from..to]` that is not blank ends, if there is one.
fn last_nonblank(text: &str, from: usize, to: usize) -> Option<usize> {
    let from = text.ceil_char_boundary(from).min(to);
    text[from..to]
        .char_indices()
        .rev()
        .find(|(_, c)| !is_blank(*c))
        .map(|(k, c)| from + k + c.len_utf8())
}

/// [`is_blank`] for an ASCII byte.
#[inline]
fn ascii_blank(b: u8) -> bool {
    b.is_ascii_whitespace() || b == 0x0b || b == 0
}

/// Whether the character starting at byte `i` is blank (continuation bytes belong to a
/// character already judged, so they keep the line as it was).
#[inline]
fn starts_blank(text: &str, i: usize) -> bool {
    let b = text.as_bytes()[i];
    if b < 0x80 {
        return ascii_blank(b);
    }
    if b & 0xC0 == 0x80 {
        return true;
    }
    text.get(i..)
        .and_then(|rest| rest.chars().next())
        .is_some_and(is_blank)
}

fn kind_of(b: u8) -> Kind {
    if b == b'{' {
        Kind::Object
    } else {
        Kind::Array
    }
}

#[derive(Debug)]
struct Frame {
    start: usize,
    kind: Kind,
    line_start: bool,
    line: usize,
    column: usize,
    /// The verdict fields read so far, once one appears (objects only).
    fields: Option<Box<Fields>>,
}

impl Frame {
    fn opener(&self) -> Opener {
        Opener {
            at: self.start,
            kind: self.kind,
            line: self.line,
            column: self.column,
        }
    }
}

/// Found values, as the verdict rule needs them: a run of values that only a close could
/// have told apart, summed up.
#[derive(Debug)]
struct Entry {
    /// Where its first value starts: a close at or before it removes the whole entry.
    first: usize,
    last_value: Span,
    last_object: Option<Span>,
    keyed: Option<Found>,
    /// Whether an object before `keyed` held a verdict field and said `"cancel": true`: one
    /// flag, not the objects, so an entry stays small however many verdicts it sums up.
    cancel_replaced: bool,
    /// How many of its objects holding a verdict field said `"cancel": true`: a count, not
    /// the objects.
    cancels: usize,
    /// Objects without a verdict field after `keyed` (all of them, without one).
    after: usize,
    first_after: Option<Span>,
}

impl Entry {
    fn of(found: Found) -> Entry {
        let span = found.span;
        let object = span.kind == Kind::Object;
        let plain = object && found.fields.is_none();
        let cancels = usize::from(found.fields.as_deref().is_some_and(Fields::says_cancel));
        Entry {
            first: span.start,
            last_value: span,
            last_object: object.then_some(span),
            keyed: found.fields.is_some().then_some(found),
            cancel_replaced: false,
            cancels,
            after: usize::from(plain),
            first_after: plain.then_some(span),
        }
    }

    fn merge(mut self, later: Entry) -> Entry {
        self.last_value = later.last_value;
        self.last_object = later.last_object.or(self.last_object);
        self.cancels += later.cancels;
        if later.keyed.is_some() {
            let cancelled = self.keyed.as_ref().and_then(|k| k.fields.as_deref());
            self.cancel_replaced = self.cancel_replaced
                || cancelled.is_some_and(Fields::says_cancel)
                || later.cancel_replaced;
            self.keyed = later.keyed;
            self.after = later.after;
            self.first_after = later.first_after;
        } else {
            self.after += later.after;
            self.first_after = self.first_after.or(later.first_after);
        }
        self
    }
}

/// What the phases report.
#[derive(Debug, Default)]
struct Out {
    entries: Vec<Entry>,
    /// Set when a value was found, until the scanner sums up.
    recorded: bool,
    too_deep: Option<Opener>,
    broken: Option<Opener>,
    #[cfg(test)]
    values: Vec<Span>,
}

impl Out {
    /// A value closed: the values recorded earlier that it contains are no longer maximal.
    /// Maximal values never contain one another, so sorted by end they are sorted by start too.
    fn record(&mut self, found: Found) {
        let start = found.span.start;
        while self.entries.last().is_some_and(|e| e.first >= start) {
            self.entries.pop();
        }
        #[cfg(test)]
        {
            while self.values.last().is_some_and(|v| v.start >= start) {
                self.values.pop();
            }
            self.values.push(found.span);
        }
        self.entries.push(Entry::of(found));
        self.recorded = true;
    }

    /// Drops the values found that start after `floor`.
    fn drop_after(&mut self, floor: usize) {
        while self.entries.last().is_some_and(|e| e.first > floor) {
            self.entries.pop();
        }
        #[cfg(test)]
        while self.values.last().is_some_and(|v| v.start > floor) {
            self.values.pop();
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    Text,
    Token,
    Json,
}

/// A verdict field's value being read.
#[derive(Debug)]
struct Capture {
    key: Key,
    what: Pending,
    /// Where the value starts (a `Json` value ends when the object opened there closes).
    start: usize,
    bytes: Vec<u8>,
    len: usize,
    keep: usize,
    /// Set once a byte could not be kept: later ones are not kept either.
    stopped: bool,
    held: Held,
    /// A leading surrogate waiting for its trailing one; the first lone one; how many.
    high: Option<u16>,
    lone: Option<u16>,
    lones: usize,
}

impl Capture {
    fn new(key: Key, what: Pending, start: usize, pool: &Arc<AtomicUsize>) -> Capture {
        let keep = if what == Pending::Json {
            JSON_KEEP
        } else {
            key.keep()
        };
        Capture {
            key,
            what,
            start,
            bytes: Vec::new(),
            len: 0,
            keep,
            stopped: false,
            held: if keep > SHORT_KEEP {
                Held::from(pool)
            } else {
                Held::default()
            },
            high: None,
            lone: None,
            lones: 0,
        }
    }

    fn store(&mut self, data: &[u8]) {
        self.len += data.len();
        if self.stopped {
            return;
        }
        let want = data.len().min(self.keep - self.bytes.len());
        let granted = self.held.take(want);
        self.bytes.extend_from_slice(&data[..granted]);
        self.stopped = granted < data.len();
    }

    /// Bytes as printed (a token, or JSON text).
    fn raw(&mut self, data: &[u8]) {
        self.store(data);
    }

    /// Plain characters of a string.
    fn text(&mut self, data: &[u8]) {
        self.flush_high();
        self.store(data);
    }

    /// A character a simple escape stands for.
    fn escaped(&mut self, c: char) {
        self.flush_high();
        self.store(c.encode_utf8(&mut [0; 4]).as_bytes());
    }

    /// A `\uXXXX` escape.
    fn unit(&mut self, unit: u16) {
        let mut high = self.high.take();
        utf16_unit(unit, &mut high, |c| match c {
            Ok(c) => self.escaped(c),
            Err(lone) => self.lone_surrogate(lone),
        });
        self.high = high;
    }

    fn flush_high(&mut self) {
        if let Some(lead) = self.high.take() {
            self.lone_surrogate(lead);
        }
    }

    fn lone_surrogate(&mut self, unit: u16) {
        self.lone.get_or_insert(unit);
        self.lones += 1;
        self.escaped(char::REPLACEMENT_CHARACTER);
    }

    fn finish(mut self) -> (Key, Captured, Held) {
        self.flush_high();
        // A capture cut at its limit may end inside a character.
        let text = whole_chars(std::mem::take(&mut self.bytes));
        let len = self.len;
        let captured = match self.what {
            Pending::Text => Captured::Text {
                text,
                len,
                lone: self.lone,
                lones: self.lones,
            },
            Pending::Token => Captured::Token { text, len },
            Pending::Json => Captured::Json { text, len },
        };
        (self.key, captured, std::mem::take(&mut self.held))
    }
}

/// Parses that share one stack: `frames` holds the values still open, outermost first.
struct Phase {
    frames: VecDeque<Frame>,
    lex: Lex,
    /// The levels open beyond `frames`: the innermost ones whole (`inner`), the ones between
    /// as bits (`deep`).
    deep: Deep,
    inner: VecDeque<Frame>,
    /// The key being read (as printed, up to [`KEY_KEEP`] bytes), and whether it had escapes.
    key: Vec<u8>,
    key_escaped: bool,
    key_long: bool,
    /// The verdict field whose value comes next.
    member: Option<Key>,
    /// The string or token value of a verdict field being read (innermost object's), and an
    /// `overrideInput` object being read (boxed: most phases never read one).
    value: Option<Box<Capture>>,
    json: Option<Box<Capture>>,
    /// Whether the value being read is the first of its array.
    first_value: bool,
}

/// Where the innermost open value is, token-wise.
#[derive(Debug, Clone, Copy)]
enum Lex {
    Expect(Want),
    Str { key: bool, esc: Esc },
    Num(Num),
    Word { word: &'static [u8], next: usize },
}

/// Which token the grammar allows next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    KeyOrEnd,
    Key,
    Colon,
    ValueOrEnd,
    Value,
    CommaOrEnd,
}

/// Inside a string: plain text, after `\`, or in the 4 hex digits of `\u`. Any `\u` escape
/// is accepted, a lone surrogate too, as `JSON.parse` accepts it.
#[derive(Debug, Clone, Copy)]
enum Esc {
    None,
    Backslash,
    Hex { left: u8, code: u16 },
}

/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, by the part just read. Any
/// magnitude is accepted, as `JSON.parse` accepts `1e400`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ExpSign,
    Exp,
}

/// The scan around one byte, as the phases read it (each in turn): the byte, and the
/// scanner's state they read (`lines`, the capture budget) and report to (`out`).
struct Ctx<'s> {
    /// The byte's offset in stdout's text.
    at: usize,
    b: u8,
    /// Whether only blanks come before it on its line.
    line_start: bool,
    lines: &'s Lines,
    pool: &'s Arc<AtomicUsize>,
    out: &'s mut Out,
}

enum Step {
    Alive,
    /// The byte was a bracket that opened a value inside this phase.
    Nested,
    /// The outermost open value closed: nothing is left open.
    Done,
    /// The byte is not JSON here: every open value of the phase is invalid.
    Failed,
}

/// Levels open beyond a phase's kept frames: how many, and two bits each: an object, and
/// opened at the start of a line (to count the lines that open a value never closed).
#[derive(Debug, Default)]
struct Deep {
    len: usize,
    objects: Vec<u64>,
    line_starts: Vec<u64>,
    /// How many open levels start a line.
    lines: usize,
}

impl Deep {
    fn push(&mut self, kind: Kind, line_start: bool) {
        let (word, bit) = (self.len / 64, self.len % 64);
        if word == self.objects.len() {
            self.objects.push(0);
            self.line_starts.push(0);
        }
        let mask = 1u64 << bit;
        for (bits, set) in [
            (&mut self.objects, kind == Kind::Object),
            (&mut self.line_starts, line_start),
        ] {
            if set {
                bits[word] |= mask;
            } else {
                bits[word] &= !mask;
            }
        }
        self.lines += usize::from(line_start);
        self.len += 1;
    }

    /// Closes the innermost counted level; `false` when there is none.
    fn pop(&mut self) -> bool {
        if self.len == 0 {
            return false;
        }
        self.len -= 1;
        if Deep::bit(&self.line_starts, self.len) {
            self.lines -= 1;
        }
        true
    }

    fn top(&self) -> Option<Kind> {
        let k = self.len.checked_sub(1)?;
        Some(if Deep::bit(&self.objects, k) {
            Kind::Object
        } else {
            Kind::Array
        })
    }

    fn bit(bits: &[u64], k: usize) -> bool {
        bits.get(k / 64).is_some_and(|w| w >> (k % 64) & 1 == 1)
    }
}

impl Phase {
    fn new(frames: VecDeque<Frame>) -> Phase {
        Phase {
            frames,
            lex: Lex::Expect(Want::Value),
            deep: Deep::default(),
            inner: VecDeque::new(),
            key: Vec::new(),
            key_escaped: false,
            key_long: false,
            member: None,
            value: None,
            json: None,
            first_value: false,
        }
    }

    #[inline]
    fn step(&mut self, cx: &mut Ctx) -> Step {
        let b = cx.b;
        if let Some(json) = &mut self.json {
            json.raw(&[b]);
        }
        match self.lex {
            Lex::Str { key, esc } => self.string(key, esc, b),
            Lex::Word { word, next } => {
                if word[next] != b {
                    return Step::Failed;
                }
                if let Some(value) = &mut self.value {
                    value.raw(&[b]);
                }
                if next + 1 == word.len() {
                    self.lex = Lex::Expect(Want::CommaOrEnd);
                    self.end_value();
                } else {
                    self.lex = Lex::Word {
                        word,
                        next: next + 1,
                    };
                }
                Step::Alive
            }
            Lex::Num(part) => {
                let next = match (part, b) {
                    // Python's `-Infinity`.
                    (Num::Minus, b'I') => {
                        if let Some(value) = &mut self.value {
                            value.raw(&[b]);
                        }
                        self.lex = Lex::Word {
                            word: b"Infinity",
                            next: 1,
                        };
                        return Step::Alive;
                    }
                    (Num::Minus, b'0') => Some(Num::Zero),
                    (Num::Minus, b'1'..=b'9') => Some(Num::Int),
                    (Num::Int, b'0'..=b'9') => Some(Num::Int),
                    (Num::Zero | Num::Int, b'.') => Some(Num::Dot),
                    (Num::Dot | Num::Frac, b'0'..=b'9') => Some(Num::Frac),
                    (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Some(Num::E),
                    (Num::E, b'+' | b'-') => Some(Num::ExpSign),
                    (Num::E | Num::ExpSign | Num::Exp, b'0'..=b'9') => Some(Num::Exp),
                    _ => None,
                };
                if let Some(part) = next {
                    if let Some(value) = &mut self.value {
                        value.raw(&[b]);
                    }
                    self.lex = Lex::Num(part);
                    return Step::Alive;
                }
                // (A digit after a leading zero, `01`, then fails as a missing comma.)
                if !matches!(part, Num::Zero | Num::Int | Num::Frac | Num::Exp) {
                    return Step::Failed;
                }
                self.end_value();
                self.structure(Want::CommaOrEnd, cx)
            }
            Lex::Expect(want) => self.structure(want, cx),
        }
    }

    /// Plain characters of the string being read (the fast path's run).
    fn plain(&mut self, key: bool, run: &[u8]) {
        if let Some(json) = &mut self.json {
            json.raw(run);
        }
        if key {
            self.key_bytes(run);
        } else if let Some(value) = &mut self.value {
            value.text(run);
        }
    }

    fn key_bytes(&mut self, bytes: &[u8]) {
        if self.key.len() + bytes.len() > KEY_KEEP {
            self.key_long = true;
        } else {
            self.key.extend_from_slice(bytes);
        }
    }

    fn string(&mut self, key: bool, esc: Esc, b: u8) -> Step {
        let esc = match esc {
            Esc::None => match b {
                b'"' => {
                    if key {
                        self.end_key();
                    } else {
                        self.end_value();
                    }
                    self.lex = Lex::Expect(if key { Want::Colon } else { Want::CommaOrEnd });
                    return Step::Alive;
                }
                b'\\' => {
                    if key {
                        self.key_escaped = true;
                        self.key_bytes(&[b]);
                    }
                    Esc::Backslash
                }
                // Raw control characters (a newline above all) never occur in a JSON string.
                0..=0x1f => return Step::Failed,
                _ => {
                    self.plain_byte(key, b);
                    Esc::None
                }
            },
            Esc::Backslash => {
                let c = match b {
                    b'"' | b'\\' | b'/' => b as char,
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => '\0',
                    _ => return Step::Failed,
                };
                if key {
                    self.key_bytes(&[b]);
                }
                if b == b'u' {
                    Esc::Hex { left: 4, code: 0 }
                } else {
                    if let (false, Some(value)) = (key, &mut self.value) {
                        value.escaped(c);
                    }
                    Esc::None
                }
            }
            Esc::Hex { left, code } => {
                let Some(digit) = (b as char).to_digit(16) else {
                    return Step::Failed;
                };
                if key {
                    self.key_bytes(&[b]);
                }
                let code = code << 4 | digit as u16;
                if left > 1 {
                    Esc::Hex {
                        left: left - 1,
                        code,
                    }
                } else {
                    if let (false, Some(value)) = (key, &mut self.value) {
                        value.unit(code);
                    }
                    Esc::None
                }
            }
        };
        self.lex = Lex::Str { key, esc };
        Step::Alive
    }

    fn plain_byte(&mut self, key: bool, b: u8) {
        if key {
            self.key_bytes(&[b]);
        } else if let Some(value) = &mut self.value {
            value.text(&[b]);
        }
    }

    /// A key ended: is it a verdict field of the innermost object?
    fn end_key(&mut self) {
        // A key of an object nested beyond the kept frames is no verdict field.
        let key = if self.key_long || self.innermost().is_none() {
            None
        } else if !self.key_escaped {
            Key::from_name(&self.key)
        } else {
            let quoted = [&b"\""[..], &self.key, b"\""].concat();
            serde_json::from_slice::<String>(&quoted)
                .ok()
                .and_then(|name| Key::from_name(name.as_bytes()))
        };
        self.member = key;
        if key.is_some() {
            if let Some(frame) = self.innermost() {
                frame.fields.get_or_insert_with(Box::default);
            }
        }
    }

    /// The string or token value of a verdict field ended: the innermost object keeps it.
    fn end_value(&mut self) {
        if let Some(value) = self.value.take() {
            let (key, captured, held) = value.finish();
            if let Some(fields) = self.innermost().and_then(|f| f.fields.as_mut()) {
                fields.put(key, captured, held);
            }
        }
    }

    /// The innermost open value, unless it is one kept as bits only.
    fn innermost(&mut self) -> Option<&mut Frame> {
        if !self.inner.is_empty() {
            return self.inner.back_mut();
        }
        if self.deep.len > 0 {
            return None;
        }
        self.frames.back_mut()
    }

    /// A byte between tokens, where the grammar wants `want`.
    fn structure(&mut self, want: Want, cx: &mut Ctx) -> Step {
        let b = cx.b;
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            self.lex = Lex::Expect(want);
            return Step::Alive;
        }
        let top = match self.inner.back() {
            Some(frame) => Some(frame.kind),
            None => self
                .deep
                .top()
                .or_else(|| self.frames.back().map(|f| f.kind)),
        };
        let next = match (want, b) {
            (Want::KeyOrEnd | Want::Key, b'"') => {
                self.key.clear();
                self.key_escaped = false;
                self.key_long = false;
                Lex::Str {
                    key: true,
                    esc: Esc::None,
                }
            }
            (Want::KeyOrEnd, b'}') | (Want::CommaOrEnd, b'}') if top == Some(Kind::Object) => {
                return self.close(cx)
            }
            (Want::ValueOrEnd, b']') | (Want::CommaOrEnd, b']') if top == Some(Kind::Array) => {
                return self.close(cx)
            }
            (Want::Colon, b':') => Lex::Expect(Want::Value),
            (Want::CommaOrEnd, b',') => Lex::Expect(if top == Some(Kind::Object) {
                Want::Key
            } else {
                Want::Value
            }),
            (Want::Value | Want::ValueOrEnd, _) => {
                self.first_value = want == Want::ValueOrEnd;
                return self.value(cx);
            }
            _ => return Step::Failed,
        };
        self.lex = next;
        Step::Alive
    }

    fn value(&mut self, cx: &mut Ctx) -> Step {
        let b = cx.b;
        let member = self.member.take();
        let (at, pool) = (cx.at, cx.pool);
        let capture = |what| member.map(|key| Box::new(Capture::new(key, what, at, pool)));
        self.lex = match b {
            b'{' | b'[' => {
                let kind = kind_of(b);
                if let Some(key) = member {
                    // One `overrideInput` is read at a time: every byte is kept once.
                    if key == Key::OverrideInput && kind == Kind::Object && self.json.is_none() {
                        self.json = capture(Pending::Json).map(|mut json| {
                            json.raw(b"{");
                            json
                        });
                    } else if let Some(fields) = self.innermost().and_then(|f| f.fields.as_mut()) {
                        fields.put(key, Captured::Container(kind), Held::default());
                    }
                }
                if !self.open(cx) {
                    return Step::Failed;
                }
                return Step::Nested;
            }
            b'"' => {
                self.value = capture(Pending::Text);
                Lex::Str {
                    key: false,
                    esc: Esc::None,
                }
            }
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' | b'N' | b'I' => {
                self.value = capture(Pending::Token).map(|mut token| {
                    token.raw(&[b]);
                    token
                });
                let word = |word| Lex::Word { word, next: 1 };
                match b {
                    b'-' => Lex::Num(Num::Minus),
                    b'0' => Lex::Num(Num::Zero),
                    b'1'..=b'9' => Lex::Num(Num::Int),
                    b't' => word(b"true"),
                    b'f' => word(b"false"),
                    b'n' => word(b"null"),
                    // Python's `NaN` and `Infinity`.
                    b'N' => word(b"NaN"),
                    _ => word(b"Infinity"),
                }
            }
            _ => return Step::Failed,
        };
        Step::Alive
    }

    /// Opens the value whose bracket is `cx.b`; `false` when it would be more than
    /// [`DEEP_LIMIT`] levels deep. (Inlined, as `close`: with the context behind a reference,
    /// 1 MiB of `[` took 10% longer when they were calls.)
    #[inline(always)]
    fn open(&mut self, cx: &mut Ctx) -> bool {
        let (at, kind, line_start) = (cx.at, kind_of(cx.b), cx.line_start);
        self.lex = Lex::Expect(match kind {
            Kind::Object => Want::KeyOrEnd,
            Kind::Array => Want::ValueOrEnd,
        });
        let (line, column) = cx.lines.of(at);
        if self.frames.len() + self.deep.len + self.inner.len() >= DEEP_LIMIT {
            cx.out.too_deep.get_or_insert(Opener {
                at,
                kind,
                line,
                column,
            });
            return false;
        }
        let frame = Frame {
            start: at,
            kind,
            line_start,
            line,
            column,
            fields: None,
        };
        if self.frames.len() < MAX_DEPTH {
            self.frames.push_back(frame);
            return true;
        }
        self.inner.push_back(frame);
        if self.inner.len() > MAX_DEPTH {
            // The outermost inner value becomes bits: where it began is forgotten.
            if let Some(middle) = self.inner.pop_front() {
                if self.json.as_ref().is_some_and(|j| j.start == middle.start) {
                    self.json = None;
                }
                self.deep.push(middle.kind, middle.line_start);
            }
        }
        true
    }

    /// Closes the innermost open value at the bracket `cx.b`.
    #[inline(always)]
    fn close(&mut self, cx: &mut Ctx) -> Step {
        let (at, out) = (cx.at, &mut *cx.out);
        let frame = match self.inner.pop_back() {
            Some(frame) => frame,
            None if self.deep.pop() => {
                // A level kept as bits closes: it holds what was found since it opened, and
                // what was found inside the innermost outer value before it is dropped too.
                let floor = self.frames.back().map_or(0, |f| f.start);
                out.drop_after(floor);
                self.lex = Lex::Expect(Want::CommaOrEnd);
                return Step::Alive;
            }
            None => match self.frames.pop_back() {
                Some(frame) => frame,
                None => return Step::Failed,
            },
        };
        if self.json.as_ref().is_some_and(|j| j.start == frame.start) {
            if let Some(json) = self.json.take() {
                let (key, captured, held) = json.finish();
                if let Some(fields) = self.innermost().and_then(|f| f.fields.as_mut()) {
                    fields.put(key, captured, held);
                }
            }
        }
        out.record(Found {
            span: Span {
                start: frame.start,
                end: at + 1,
                kind: frame.kind,
            },
            fields: frame.fields,
        });
        if self.frames.is_empty() {
            Step::Done
        } else {
            self.lex = Lex::Expect(Want::CommaOrEnd);
            Step::Alive
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::Profile;
    use crate::verdict;
    use crate::verdict::decode_all;
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    /// JSON read the obvious way, by recursive descent: strict JSON (what serde_json accepts)
    /// or, `lenient`, what `JSON.parse` accepts plus Python's `NaN`, `Infinity`, `-Infinity`,
    /// each oddity read as `lenient` reads it. Gives the value and where it ends. Slow, and
    /// obviously right; checked against serde_json on strict JSON below.
    struct Reference<'a> {
        text: &'a str,
        lenient: bool,
        /// Whether the last parse reached the end of the text still valid (a value never
        /// closed), and the last `cancel` its outermost object read: `Some(true)` for `true`.
        ended: std::cell::Cell<bool>,
        root_cancel: std::cell::Cell<Option<bool>>,
    }

    impl Reference<'_> {
        fn at(&self, i: usize) -> Option<u8> {
            if i >= self.text.len() {
                self.ended.set(true);
            }
            self.text.as_bytes().get(i).copied()
        }

        fn blanks(&self, mut i: usize) -> usize {
            while matches!(self.at(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                i += 1;
            }
            i
        }

        /// The value starting at `i`, inside `depth` open containers.
        fn value(&self, i: usize, depth: usize) -> Option<(Value, usize)> {
            let rest = &self.text[i..];
            let word = |w: &str, v: Value| {
                if w.starts_with(rest) && rest.len() < w.len() {
                    self.ended.set(true);
                }
                rest.starts_with(w).then(|| (v, i + w.len()))
            };
            match self.at(i)? {
                // serde_json's limit; `JSON.parse` has none.
                b'{' | b'[' if depth == MAX_DEPTH && !self.lenient => None,
                b'{' => {
                    let mut map = Map::new();
                    let mut j = self.blanks(i + 1);
                    if self.at(j) == Some(b'}') {
                        return Some((Value::Object(map), j + 1));
                    }
                    loop {
                        let (key, k) = self.string(j)?;
                        let k = self.blanks(k);
                        (self.at(k)? == b':').then_some(())?;
                        let v = self.blanks(k + 1);
                        let root_cancel = depth == 0 && key == "cancel";
                        // The scan records a container as soon as it opens.
                        if root_cancel && matches!(self.at(v), Some(b'{' | b'[')) {
                            self.root_cancel.set(Some(false));
                        }
                        let (value, k) = self.value(v, depth + 1)?;
                        // A number is known to end only at the byte after it.
                        let numeric = matches!(self.at(v), Some(b'-' | b'0'..=b'9'))
                            && !self.text[v..].starts_with("-I");
                        if root_cancel && !(numeric && k == self.text.len()) {
                            self.root_cancel.set(Some(value == Value::Bool(true)));
                        }
                        map.insert(key, value);
                        let k = self.blanks(k);
                        match self.at(k)? {
                            b',' => j = self.blanks(k + 1),
                            b'}' => return Some((Value::Object(map), k + 1)),
                            _ => return None,
                        }
                    }
                }
                b'[' => {
                    let mut items = Vec::new();
                    let mut j = self.blanks(i + 1);
                    if self.at(j) == Some(b']') {
                        return Some((Value::Array(items), j + 1));
                    }
                    loop {
                        let (value, k) = self.value(j, depth + 1)?;
                        items.push(value);
                        let k = self.blanks(k);
                        match self.at(k)? {
                            b',' => j = self.blanks(k + 1),
                            b']' => return Some((Value::Array(items), k + 1)),
                            _ => return None,
                        }
                    }
                }
                b'"' => self.string(i).map(|(s, end)| (Value::String(s), end)),
                b't' => word("true", Value::Bool(true)),
                b'f' => word("false", Value::Bool(false)),
                b'n' => word("null", Value::Null),
                b'N' if self.lenient => word("NaN", Value::Null),
                b'I' if self.lenient => word("Infinity", Value::Null),
                b'-' if self.lenient && rest.starts_with("-I") => word("-Infinity", Value::Null),
                b'-' | b'0'..=b'9' => self.number(i),
                _ => None,
            }
        }

        fn digits(&self, mut i: usize) -> usize {
            while matches!(self.at(i), Some(b'0'..=b'9')) {
                i += 1;
            }
            i
        }

        fn number(&self, i: usize) -> Option<(Value, usize)> {
            let mut j = if self.at(i) == Some(b'-') { i + 1 } else { i };
            j = match self.at(j)? {
                b'0' => j + 1,
                b'1'..=b'9' => self.digits(j),
                _ => return None,
            };
            if self.at(j) == Some(b'.') {
                let k = self.digits(j + 1);
                (k > j + 1).then_some(())?;
                j = k;
            }
            if matches!(self.at(j), Some(b'e' | b'E')) {
                j += 1;
                if matches!(self.at(j), Some(b'+' | b'-')) {
                    j += 1;
                }
                let k = self.digits(j);
                (k > j).then_some(())?;
                j = k;
            }
            let token = &self.text[i..j];
            if token.parse::<f64>().ok()?.is_infinite() {
                return self.lenient.then_some((Value::Null, j));
            }
            Some((serde_json::from_str(token).ok()?, j))
        }

        fn hex(&self, i: usize) -> Option<u16> {
            let cut = self.text.get(i..).filter(|rest| rest.len() < 4);
            if cut.is_some_and(|rest| rest.chars().all(|c| c.is_ascii_hexdigit())) {
                self.ended.set(true);
            }
            let digits = self.text.get(i..i + 4)?;
            digits
                .chars()
                .all(|c| c.is_ascii_hexdigit())
                .then_some(())?;
            u16::from_str_radix(digits, 16).ok()
        }

        fn string(&self, i: usize) -> Option<(String, usize)> {
            (self.at(i)? == b'"').then_some(())?;
            let mut out = String::new();
            let mut j = i + 1;
            loop {
                match self.at(j)? {
                    b'"' => return Some((out, j + 1)),
                    0..=0x1f => return None,
                    b'\\' => {
                        let simple = match self.at(j + 1)? {
                            b'"' => '"',
                            b'\\' => '\\',
                            b'/' => '/',
                            b'b' => '\u{8}',
                            b'f' => '\u{c}',
                            b'n' => '\n',
                            b'r' => '\r',
                            b't' => '\t',
                            b'u' => '\0',
                            _ => return None,
                        };
                        if self.at(j + 1) != Some(b'u') {
                            out.push(simple);
                            j += 2;
                            continue;
                        }
                        let unit = self.hex(j + 2)?;
                        j += 6;
                        let trail = || {
                            (self.text[j..].starts_with("\\u"))
                                .then(|| self.hex(j + 2))
                                .flatten()
                                .filter(|t| (0xDC00..=0xDFFF).contains(t))
                        };
                        match unit {
                            0xD800..=0xDBFF => match trail() {
                                Some(t) => {
                                    let code = 0x10000
                                        + ((u32::from(unit) - 0xD800) << 10)
                                        + (u32::from(t) - 0xDC00);
                                    out.push(char::from_u32(code)?);
                                    j += 6;
                                }
                                None if self.lenient => out.push('\u{fffd}'),
                                None => return None,
                            },
                            0xDC00..=0xDFFF if self.lenient => out.push('\u{fffd}'),
                            0xDC00..=0xDFFF => return None,
                            _ => out.push(char::from_u32(u32::from(unit))?),
                        }
                    }
                    _ => {
                        let c = self.text[j..].chars().next()?;
                        out.push(c);
                        j += c.len_utf8();
                    }
                }
            }
        }
    }

    /// The reference's answer: from every `{` or `[`, the value the lenient reader reads there
    /// (if it reads one), minus those inside another.
    fn oracle(text: &str) -> Vec<(usize, usize, Kind, Value)> {
        let reference = Reference {
            text,
            lenient: true,
            ended: Default::default(),
            root_cancel: Default::default(),
        };
        let mut valid = Vec::new();
        for (start, _) in text.match_indices(['{', '[']) {
            if let Some((value, end)) = reference.value(start, 0) {
                let kind = if value.is_object() {
                    Kind::Object
                } else {
                    Kind::Array
                };
                valid.push((start, end, kind, value));
            }
        }
        let inside = |v: &(usize, usize, Kind, Value), w: &(usize, usize, Kind, Value)| {
            (v.0, v.1) != (w.0, w.1) && w.0 <= v.0 && v.1 <= w.1
        };
        valid
            .iter()
            .filter(|v| !valid.iter().any(|w| inside(v, w)))
            .cloned()
            .collect()
    }

    /// Whether the earliest bracket whose parse reaches the end of the text still valid (the
    /// outermost value never closed) opens an object whose own last `cancel` was `true`.
    fn oracle_unclosed_cancel(text: &str) -> bool {
        let reference = Reference {
            text,
            lenient: true,
            ended: Default::default(),
            root_cancel: Default::default(),
        };
        for (start, _) in text.match_indices(['{', '[']) {
            reference.ended.set(false);
            reference.root_cancel.set(None);
            if reference.value(start, 0).is_none() && reference.ended.get() {
                return text[start..].starts_with('{') && reference.root_cancel.get() == Some(true);
            }
        }
        false
    }

    /// The objects among the maximal values that hold a verdict field, in order.
    fn oracle_keyed(values: &[(usize, usize, Kind, Value)]) -> Vec<&Map<String, Value>> {
        values
            .iter()
            .filter_map(|v| v.3.as_object())
            .filter(|o| Key::ALL.iter().any(|k| o.contains_key(k.name())))
            .collect()
    }

    /// Whether an object's own `cancel` is exactly `true`.
    fn oracle_says_cancel(object: &Map<String, Value>) -> bool {
        object.get("cancel") == Some(&Value::Bool(true))
    }

    /// The verdict the rule picks among the maximal values: the last object holding a verdict
    /// field, else the last object.
    fn oracle_verdict(values: &[(usize, usize, Kind, Value)]) -> Option<Map<String, Value>> {
        let last_object = values.iter().filter_map(|v| v.3.as_object()).next_back();
        oracle_keyed(values)
            .last()
            .copied()
            .or(last_object)
            .cloned()
    }

    /// Whether an object holding a verdict field, before the last one that does, has its own
    /// `cancel` exactly `true`: the cancel the rule replaced.
    fn oracle_cancel_replaced(values: &[(usize, usize, Kind, Value)]) -> bool {
        oracle_keyed(values)
            .split_last()
            .is_some_and(|(_, before)| before.iter().any(|o| oracle_says_cancel(o)))
    }

    /// How many objects holding a verdict field have their own `cancel` exactly `true`.
    fn oracle_cancels(values: &[(usize, usize, Kind, Value)]) -> usize {
        oracle_keyed(values)
            .into_iter()
            .filter(|o| oracle_says_cancel(o))
            .count()
    }

    fn json_string() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "[a-z {}\\[\\]:,]{0,6}",
            Just("\\\"".to_owned()),
            Just("\\\\".to_owned()),
            Just("\\n".to_owned()),
            Just("\\u00e9".to_owned()),
            Just("\\ud83d\\ude00".to_owned()),
            Just("\\ud83d".to_owned()),
            Just("\\ud800\\ud800".to_owned()),
            Just("\\udc00x".to_owned()),
            Just("\\x".to_owned()),
            Just("\\u12".to_owned()),
            Just("é中".to_owned()),
            Just("\t".to_owned()),
        ];
        prop::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()))
    }

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => json_string(),
            2 => Just("\"cancel\"".to_owned()),
            1 => Just("\"errorMessage\"".to_owned()),
            1 => Just("\"c\\u0061ncel\"".to_owned()),
            1 => Just("\"status\"".to_owned()),
        ]
    }

    fn number() -> impl Strategy<Value = String> {
        prop_oneof![
            "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,3})?([eE][+-]?[0-9]{1,3})?",
            Just("1e999".to_owned()),
            Just("-1e309".to_owned()),
            Just("0e99999".to_owned()),
            Just("1e-400".to_owned()),
            Just("01".to_owned()),
            Just("1.".to_owned()),
            Just("-".to_owned()),
        ]
    }

    /// JSON text, mostly valid, compact or pretty (`sep`), with a few invalid tokens and the
    /// lenient ones mixed in.
    fn json(sep: &'static str) -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            6 => json_string(),
            6 => number(),
            2 => Just("true".to_owned()),
            1 => Just("false".to_owned()),
            1 => Just("null".to_owned()),
            1 => Just("tru".to_owned()),
            1 => Just("NaN".to_owned()),
            1 => Just("Infinity".to_owned()),
            1 => Just("-Infinity".to_owned()),
            1 => Just("nan".to_owned()),
            1 => Just("-Inf".to_owned()),
        ];
        leaf.prop_recursive(4, 24, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(move |items| format!("[{}]", items.join(&format!(",{sep}")))),
                prop::collection::vec((key(), inner), 0..4).prop_map(move |members| {
                    let members: Vec<String> = members
                        .iter()
                        .map(|(k, v)| format!("{k}:{sep}{v}"))
                        .collect();
                    format!("{{{sep}{}{sep}}}", members.join(&format!(",{sep}")))
                }),
            ]
        })
    }

    /// One piece of stdout: a log line, a value (maybe cut short), a verdict, deep nesting...
    fn piece() -> impl Strategy<Value = Vec<u8>> {
        let text = prop_oneof![
            4 => "[a-z \"{}\\[\\]:,\\\\1]{0,16}",
            4 => json(""),
            3 => json("\n  "),
            2 => (json(" "), any::<prop::sample::Index>())
                .prop_map(|(s, cut)| s[..s.floor_char_boundary(cut.index(s.len() + 1))].to_owned()),
            3 => prop_oneof![
                Just("{\"cancel\":true}"),
                Just("{\"cancel\": false}"),
                Just("{\"status\":\"logged\"}"),
                Just("{\"cancel\":true,\"score\":NaN,\"e\":\"\\ud83d\"}"),
            ]
            .prop_map(str::to_owned),
            1 => Just("HOOK_CONTROL\t{\"cancel\":false}".to_owned()),
            1 => Just("log: ".to_owned()),
        ];
        let noise: BoxedStrategy<&'static [u8]> = prop_oneof![
            Just(&b""[..]),
            Just(&b"\0"[..]),
            Just("\u{feff}".as_bytes()),
            Just(&b"\xff"[..]),
            Just(&b"\xc3"[..]),
            Just(&b" "[..]),
        ]
        .boxed();
        let end = prop_oneof![Just("\n"), Just("\r\n"), Just(""), Just(" ")];
        (noise, text, end)
            .prop_map(|(noise, text, end)| [noise, text.as_bytes(), end.as_bytes()].concat())
    }

    /// Pieces, one of them maybe nested around serde_json's limit (at most one: the scan
    /// finds values at any depth up to [`MAX_DEPTH`] levels inside and outside them, which
    /// the reference does not model).
    fn stdout() -> impl Strategy<Value = Vec<u8>> {
        let deep = prop::option::weighted(
            0.2,
            (110usize..135, 110usize..135)
                .prop_map(|(open, close)| format!("{}{{}}{}", "[".repeat(open), "]".repeat(close))),
        );
        (
            prop::collection::vec(piece(), 1..7),
            deep,
            any::<prop::sample::Index>(),
        )
            .prop_map(|(mut pieces, deep, at)| {
                if let Some(deep) = deep {
                    pieces.insert(at.index(pieces.len() + 1), deep.into_bytes());
                }
                pieces.concat()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 3_000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Issue 10 B1, issue 18: the one-pass locator finds exactly the values the
        /// brute-force reference finds (oddities `JSON.parse` and Python print included), and
        /// the parsed verdict is the reference's last object holding a verdict field.
        #[test]
        fn the_locator_agrees_with_brute_force(bytes in stdout()) {
            let (text, _) = decode_all(&bytes);
            let expected = oracle(&text);
            let found: Vec<(usize, usize, Kind)> =
                scan(&text).values.iter().map(|v| (v.start, v.end, v.kind)).collect();
            let spans: Vec<(usize, usize, Kind)> = expected.iter().map(|v| (v.0, v.1, v.2)).collect();
            prop_assert_eq!(&found, &spans, "{:?}", text);

            let mut object = oracle_verdict(&expected);
            let verdict = verdict::parse(&bytes, Profile::Extension);
            let unclosed_cancel = oracle_unclosed_cancel(&text);
            prop_assert_eq!(scan(&text).unclosed_cancel.is_some(), unclosed_cancel, "{:?}", text);
            let cancel = unclosed_cancel
                || object.as_ref().is_some_and(|o| o.get("cancel") == Some(&Value::Bool(true)));
            if unclosed_cancel && object.is_none() {
                object = Some(Map::from_iter([("cancel".to_owned(), Value::Bool(true))]));
            }
            // Deeper than serde_json reads, the output holds the verdict fields only.
            if object.as_ref().is_none_or(|o| levels(&Value::Object(o.clone())) <= MAX_DEPTH) {
                prop_assert_eq!(&verdict.object, &object, "{:?}", text);
            }
            prop_assert_eq!(verdict.cancel, cancel, "{:?}", text);

            // A replaced cancel is flagged exactly when the reference replaced one, and named
            // when the operation then goes ahead.
            let replaced = oracle_cancel_replaced(&expected);
            prop_assert_eq!(scan(&text).cancel_replaced, replaced, "{:?}", text);
            prop_assert_eq!(scan(&text).cancels, oracle_cancels(&expected), "{:?}", text);
            let named = verdict.warnings.iter().any(|w| w.contains("but a later JSON object with"));
            prop_assert_eq!(named, replaced && !cancel, "{:?}", text);
        }

        /// The reference is serde_json itself on strict JSON: from every bracket both read the
        /// same value to the same end, or both refuse.
        #[test]
        fn the_strict_reference_is_serde_json(bytes in stdout()) {
            let (text, _) = decode_all(&bytes);
            let strict = Reference {
                text: &text,
                lenient: false,
                    ended: Default::default(),
                root_cancel: Default::default(),
            };
            for (start, _) in text.match_indices(['{', '[']) {
                let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
                let serde = match values.next() {
                    Some(Ok(value)) => Some((value, start + values.byte_offset())),
                    _ => None,
                };
                prop_assert_eq!(strict.value(start, 0), serde, "{:?} at {}", text, start);
            }
        }

        /// Fed in pieces, as stdout arrives, the scan finds what it finds at once.
        #[test]
        fn a_stream_in_pieces_scans_as_a_whole(
            bytes in stdout(),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        ) {
            let (text, _) = decode_all(&bytes);
            let whole = format!("{:?}", scan(&text));
            let mut at: Vec<usize> = cuts
                .iter()
                .map(|c| text.floor_char_boundary(c.index(text.len() + 1)))
                .collect();
            at.sort_unstable();
            let mut scanner = Scanner::default();
            let mut from = 0;
            for to in at.into_iter().chain([text.len()]) {
                scanner.feed(&text[from..to]);
                from = to;
            }
            prop_assert_eq!(format!("{:?}", scanner.finish()), whole, "{:?}", text);
        }
    }

    #[test]
    fn a_bracket_inside_a_broken_string_still_starts_a_value() {
        let values = scan("log: [\"x {\"cancel\":true}").values;
        assert_eq!(
            values,
            vec![Span {
                start: 9,
                end: 24,
                kind: Kind::Object
            }]
        );
    }

    #[test]
    fn values_that_overlap_are_both_kept() {
        // `["{"]` is an array; `{"]":1}` starting inside it is an object: neither holds the other.
        let found: Vec<_> = scan("[\"{\"]\":1}")
            .values
            .iter()
            .map(|v| (v.start, v.end))
            .collect();
        assert_eq!(found, vec![(0, 5), (2, 9)]);
        assert_eq!(oracle("[\"{\"]\":1}").len(), 2);
    }

    /// Issue 18 item 1: what `JSON.parse` accepts and Python prints are values.
    #[test]
    fn oddities_are_values() {
        for text in [
            r#"{"cancel":true,"errorMessage":"\ud83d"}"#,
            r#"{"cancel":true,"e":"\udc00\ud83d\ud83d\ude00"}"#,
            r#"{"cancel":true,"n":1e400,"m":-1E+999,"big":99999999999999999999999999999}"#,
            r#"{"cancel":true,"score":NaN,"hi":Infinity,"lo":-Infinity}"#,
            r#"[NaN,-Infinity,{"cancel":true}]"#,
        ] {
            let found = scan(text);
            assert_eq!(found.values.len(), 1, "{text}");
            assert_eq!(found.values[0].end, text.len(), "{text}");
        }
        for text in [
            r#"{"a":nan}"#,
            r#"{"a":-Inf}"#,
            r#"{"a":NaN1}"#,
            r#"{"a":"\u12"}"#,
        ] {
            assert!(scan(text).values.is_empty(), "{text}");
        }
    }

    fn levels(value: &Value) -> usize {
        match value {
            Value::Array(items) => 1 + items.iter().map(levels).max().unwrap_or(0),
            Value::Object(map) => 1 + map.values().map(levels).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// Issue 18 B1: nesting deeper than serde_json reads is still JSON, found whole with the
    /// outer object's fields, in one pass and a bit per level beyond the kept frames.
    #[test]
    fn deep_values_are_found_with_their_fields() {
        let n = 1_000_000;
        let text = format!(
            "log\n{{\"cancel\":true,\"d\":{}{}{}{},\"errorMessage\":\"x\"}}",
            "[{\"a\":".repeat(n / 2),
            "{\"cancel\":false}",
            "}]".repeat(n / 2),
            ""
        );
        let mut scanner = Scanner::default();
        let innermost = text.find("{\"cancel\":false").unwrap();
        scanner.feed(&text[..innermost]);
        let phase = &scanner.phases[0];
        // The outer object, then `n` levels: the outermost and innermost kept, bits between.
        assert_eq!(
            (phase.frames.len(), phase.deep.len, phase.inner.len()),
            (MAX_DEPTH, n + 1 - 2 * MAX_DEPTH, MAX_DEPTH)
        );
        assert!(phase.deep.objects.len() <= n / 64 + 1);
        scanner.feed(&text[innermost..]);
        let found = scanner.finish();
        assert_eq!(found.values.len(), 1);
        assert_eq!(
            (found.values[0].start, found.values[0].end),
            (4, text.len())
        );
        let fields = found.keyed.unwrap().fields.unwrap();
        assert!(
            matches!(fields.get(Key::Cancel), Some(Captured::Token { text, .. }) if text == "true")
        );
        assert_eq!(text_of(fields.get(Key::ErrorMessage)), ("x", 1));
        // Brackets that do not match are found however deep they are.
        assert!(scan(&format!("{}{{]{}", "[".repeat(500), "]".repeat(500)))
            .values
            .is_empty());
        // Beyond the limit a phase fails, as a parser out of memory would, and says where.
        let found = scan(&"[".repeat(DEEP_LIMIT + 1));
        assert_eq!(found.too_deep.map(|o| o.at), Some(DEEP_LIMIT));
        assert!(found.unclosed.is_none());
    }

    fn keyed(text: &str) -> Found {
        scan(text).keyed.expect("an object with a verdict field")
    }

    fn text_of(c: Option<&Captured>) -> (&str, usize) {
        match c {
            Some(Captured::Text { text, len, .. }) => (text, *len),
            other => panic!("not a string: {other:?}"),
        }
    }

    #[test]
    fn verdict_fields_are_kept_as_they_stream_past() {
        let found = keyed(concat!(
            r#"{"cancel":true,"errorMessage":"a\"b\\\u00e9\ud83d\ude00 \ud83d!","x":{"cancel":false,"errorMessage":"inner"},"#,
            r#""review":"yes","overrideInput":{"p":[1,{"q":"}"}]},"context":5e999,"shouldContinue":[1],"c\u006fntext":-Infinity}"#
        ));
        let fields = found.fields.as_ref().unwrap();
        assert_eq!(
            fields.get(Key::Cancel),
            Some(&Captured::Token {
                text: "true".into(),
                len: 4
            })
        );
        match fields.get(Key::ErrorMessage) {
            Some(Captured::Text {
                text,
                len,
                lone,
                lones,
            }) => {
                assert_eq!(text, "a\"b\\é😀 \u{fffd}!");
                assert_eq!(*len, text.len());
                assert_eq!((*lone, *lones), (Some(0xd83d), 1));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(text_of(fields.get(Key::Review)), ("yes", 3));
        assert_eq!(
            fields.get(Key::OverrideInput),
            Some(&Captured::Json {
                text: r#"{"p":[1,{"q":"}"}]}"#.into(),
                len: 19
            })
        );
        // A duplicate (here escaped) replaces the first, as in JSON.parse.
        assert_eq!(
            fields.get(Key::Context),
            Some(&Captured::Token {
                text: "-Infinity".into(),
                len: 9
            })
        );
        assert_eq!(
            fields.get(Key::ShouldContinue),
            Some(&Captured::Container(Kind::Array))
        );
        assert_eq!(fields.get(Key::ContextModification), None);
    }

    /// Issue 18 item 2: the verdict fields of nested objects never stand in for the outer
    /// object's, whichever comes first.
    #[test]
    fn nested_verdict_fields_stay_with_their_object() {
        let found = keyed(r#"{"data":[{"cancel":false},{"errorMessage":"no"}],"cancel":true}"#);
        assert_eq!(found.span.start, 0);
        let fields = found.fields.unwrap();
        assert!(
            matches!(fields.get(Key::Cancel), Some(Captured::Token { text, .. }) if text == "true")
        );
        assert_eq!(fields.get(Key::ErrorMessage), None);
        // An outer object with no verdict field of its own hides its inner ones.
        let found = scan(r#"{"data":{"cancel":true}}"#);
        assert!(found.keyed.is_none());
        assert_eq!(found.last_object.map(|s| s.start), Some(0));
    }

    #[test]
    fn long_fields_keep_their_limit_and_their_length() {
        let long = "é".repeat(TEXT_KEEP);
        let found = keyed(&format!(
            r#"{{"contextModification":"{long}","cancel":true}}"#
        ));
        let (text, len) = text_of(found.fields.as_ref().unwrap().get(Key::ContextModification));
        assert_eq!(len, long.len());
        assert_eq!(text.len(), TEXT_KEEP);
        let token = format!("1{}", "0".repeat(SHORT_KEEP + 100));
        let found = keyed(&format!(r#"{{"cancel":{token}}}"#));
        assert_eq!(
            found.fields.unwrap().get(Key::Cancel),
            Some(&Captured::Token {
                text: token[..SHORT_KEEP].to_owned(),
                len: token.len()
            })
        );
    }

    #[test]
    fn ignored_objects_after_the_verdict_are_counted() {
        let found = scan("{\"cancel\":true}\n{\"status\":\"logged\"}\n[1]\n{}\n");
        assert_eq!(found.keyed.map(|f| f.span.start), Some(0));
        assert_eq!(found.ignored, 2);
        assert_eq!(found.first_ignored.map(|s| s.start), Some(16));
        assert_eq!(found.last_object.map(|s| s.start), Some(40));
        assert_eq!(found.last_value.map(|s| s.kind), Some(Kind::Object));
    }

    /// A `"cancel": true` replaced by a later object holding a verdict field is flagged, in
    /// one bit however many verdicts came before; objects without a verdict field, values
    /// inside others, and a cancel that is not its object's own last one are not.
    #[test]
    fn a_replaced_cancel_is_flagged() {
        for (text, replaced) in [
            ("{\"cancel\":true}\n{\"contextModification\":\"x\"}", true),
            (
                "{\"cancel\":true}\nlog\n{\"a\":1}\n{\"cancel\":false}",
                true,
            ),
            ("{\"cancel\":true} {\"cancel\":true}", true),
            (
                "{\"cancel\":true}\n{\"errorMessage\":\"x\"}\n{\"status\":1}",
                true,
            ),
            // Found inside an array that later fails, summed up apart from the object before.
            (
                "{\"a\":1}\nlog [{\"cancel\":true},{\"errorMessage\":\"y\"} x\n",
                true,
            ),
            (
                "{\"cancel\":true}\nlog [{\"a\":1},{\"errorMessage\":\"y\"} x\n",
                true,
            ),
            ("{\"cancel\":true}\n{\"status\":\"logged\"}", false),
            ("{\"cancel\":false}\n{\"cancel\":true}", false),
            (
                "{\"cancel\":true,\"cancel\":false}\n{\"errorMessage\":\"x\"}",
                false,
            ),
            ("{\"cancel\":\"true\"}\n{\"errorMessage\":\"x\"}", false),
            (
                "{\"log\":{\"cancel\":true}}\n{\"errorMessage\":\"x\"}",
                false,
            ),
            ("[{\"cancel\":true}, {\"errorMessage\":\"x\"}]", false),
            (
                "{\"d\":[{\"cancel\":true},{\"cancel\":false}],\"errorMessage\":\"x\"}",
                false,
            ),
        ] {
            assert_eq!(scan(text).cancel_replaced, replaced, "{text}");
        }
        // Within a value that closes later, the values found inside it go, flag and all.
        let mut scanner = Scanner::default();
        scanner.feed("[{\"cancel\":true},\n{\"errorMessage\":\"x\"}");
        scanner.feed("]\n{\"errorMessage\":\"y\"}\n");
        let found = scanner.finish();
        assert!(!found.cancel_replaced);
        assert_eq!(found.cancels, 0);
        // Thousands of verdicts, summed up as they come: the flag survives every merge.
        let mut scanner = Scanner::default();
        scanner.feed("log: [\n{\"cancel\":true}\n");
        for _ in 0..5_000 {
            scanner.feed("{\"cancel\":false}\n");
        }
        let found = scanner.finish();
        assert!(found.cancel_replaced);
        assert_eq!(found.cancels, 1);
        assert_eq!(found.keyed.map(|k| k.span.start), Some(7 + 16 + 17 * 4_999));
    }

    /// Every `"cancel": true` of an object holding a verdict field and inside no other value
    /// is counted, the last one's too, a `HOOK_CONTROL` line's object like any other (the CLI
    /// profile's reader tells those apart); cancels in strings, nested values, arrays, text,
    /// or overridden by a later duplicate are not.
    #[test]
    fn the_cancels_inside_no_other_value_are_counted() {
        for (text, cancels) in [
            ("{\"cancel\":true}", 1),
            (
                "{\"cancel\":true}\n{\"cancel\":false}\n{\"cancel\":true}",
                2,
            ),
            ("{\"cancel\":true}\nHOOK_CONTROL\t{\"cancel\":true}\n", 2),
            ("log: {\"cancel\":true} {\"a\":1}", 1),
            ("{\"cancel\":false}\n{\"status\":\"cancel\"}", 0),
            (
                "{\"log\":\"{\\\"cancel\\\":true}\",\"errorMessage\":\"x\"}",
                0,
            ),
            ("{\"log\":{\"cancel\":true}}", 0),
            ("[{\"cancel\":true}]", 0),
            ("{\"cancel\":true,\"cancel\":false}", 0),
            ("{\"cancel\":\"true\"}", 0),
            ("cancel: true\n\"cancel\": true\n", 0),
        ] {
            assert_eq!(scan(text).cancels, cancels, "{text}");
        }
    }

    /// The capture budget comes back as values are superseded, and only what can still be
    /// the verdict holds it.
    #[test]
    fn the_capture_budget_is_given_back() {
        let message = "m".repeat(40_000);
        let mut scanner = Scanner::default();
        scanner.feed("log: [\n");
        for _ in 0..1_000 {
            scanner.feed(&format!("{{\"errorMessage\":\"{message}\"}},"));
        }
        assert!(scanner.budget_left() >= CAPTURE_BUDGET - 2 * 40_000);
        let found = scanner.finish().keyed.unwrap();
        assert_eq!(
            text_of(found.fields.as_ref().unwrap().get(Key::ErrorMessage)).1,
            40_000
        );

        // 100 nested objects with long fields exceed the budget: the outer ones, read first,
        // keep theirs whole, the inner ones are cut short, and nothing is lost for good.
        let message = "m".repeat(TEXT_KEEP);
        let mut scanner = Scanner::default();
        let pool = scanner.pool.clone();
        let text = format!("{{\"errorMessage\":\"{message}\",\"a\":").repeat(100);
        scanner.feed(&text);
        assert_eq!(scanner.budget_left(), 0);
        scanner.feed(&format!("1{}", "}".repeat(100)));
        let scan = scanner.finish();
        let fields = scan.keyed.as_ref().unwrap().fields.as_ref().unwrap();
        assert_eq!(
            text_of(fields.get(Key::ErrorMessage)),
            (&message[..], TEXT_KEEP)
        );
        drop(scan);
        assert_eq!(pool.load(Ordering::Relaxed), CAPTURE_BUDGET);
    }

    /// Lines and columns count from the start of the stream, across pieces.
    #[test]
    fn openers_know_their_line_and_column() {
        let mut scanner = Scanner::default();
        scanner.feed("log\nmore lo");
        scanner.feed("g\n  {\"cancel\": tr");
        let scan = scanner.finish();
        assert_eq!(
            scan.unclosed,
            Some(Opener {
                at: 15,
                kind: Kind::Object,
                line: 3,
                column: 3
            })
        );
        assert_eq!(scan.last_nonblank_end, 28);
    }
}
