//! What the runner keeps of a hook's stdout as it streams through, in bounded memory: its
//! encoding, the scan of all of it ([`Scanner`]), its first and last MiB of text (to read the
//! verdict object whole and to quote what went wrong), and in the CLI profile its last
//! `HOOK_CONTROL` line (and how many said `"cancel": true`).

use std::collections::VecDeque;

use crate::discovery::Profile;
use crate::verdict::{self, is_js_space, Verdict};
use crate::verdict::{whole_chars, Decoder, Encoding, Utf16Later};
use crate::verdict::{BlockSpotter, Scan, Scanner, Spotted};

/// Bytes of text kept from the start of stdout.
pub const HEAD_KEEP: usize = 1 << 20;
/// Bytes of text kept from the end of stdout.
pub const TAIL_KEEP: usize = 1 << 20;
/// Longest `HOOK_CONTROL` line read, in bytes.
pub const CONTROL_KEEP: usize = 1 << 20;

/// How a `HOOK_CONTROL` line starts (after the blanks the Cline SDK trims).
pub const CONTROL_PREFIX: &str = "HOOK_CONTROL\t";

/// Reads stdout chunk by chunk: [`feed`](Reader::feed) it, then [`finish`](Reader::finish) it.
pub struct Reader {
    decoder: Decoder,
    scratch: String,
    /// Taken from the tail when it first drops bytes: until then the tail holds all of it.
    head: Option<String>,
    head_keep: usize,
    tail: VecDeque<u8>,
    tail_keep: usize,
    scanner: Scanner,
    control: Option<ControlLines>,
    raw_len: u64,
    utf16_later: Utf16Later,
    profile: Profile,
    /// A Claude settings handler's: spots a block anywhere in stdout (see
    /// [`Reader::spotting_blocks`]).
    spotter: Option<BlockSpotter>,
}

/// What was kept of stdout once it ended.
pub struct Kept {
    /// The encoding stdout was decoded from.
    pub encoding: Encoding,
    /// The first bytes of the text (up to the reader's head window; empty when the tail
    /// holds all of it), on character boundaries.
    pub head: String,
    /// The last bytes of the text (up to the reader's tail window), on character boundaries.
    pub tail: String,
    /// Where `tail` starts in the text, in bytes.
    pub tail_start: usize,
    /// What the scan of all of the text found.
    pub scan: Scan,
    /// The CLI profile's `HOOK_CONTROL` lines, if stdout held any.
    pub control: Option<Control>,
    /// Bytes printed, before decoding.
    pub raw_len: u64,
    /// Where output read as UTF-8 turned to UTF-16 JSON, if it did.
    pub utf16_later: Option<u64>,
    /// Whose conventions the verdict follows (which of `context` and `contextModification`
    /// wins).
    pub profile: Profile,
    /// The block a Claude settings handler printed anywhere in stdout, when its reader spotted
    /// blocks.
    pub spotted: Option<Spotted>,
}

/// What the `HOOK_CONTROL` lines said.
#[derive(Debug, Default)]
pub struct Control {
    /// The verdict of the last line that held a JSON object, and whether text followed it.
    pub last: Option<(Verdict, bool)>,
    /// Why the latest line after that one is not usable, if one is not.
    pub broken_later: Option<String>,
    /// How many lines holding a JSON object said `"cancel": true` (the object's own last
    /// `cancel`), `last` included: when `last` does not block, the cancels it replaced.
    pub cancels: usize,
}

impl Reader {
    /// A reader for a hook of `profile` (the CLI's reads `HOOK_CONTROL` lines), keeping
    /// [`HEAD_KEEP`] and [`TAIL_KEEP`] bytes of text.
    pub fn new(profile: Profile) -> Reader {
        Reader::with_windows(profile, HEAD_KEEP, TAIL_KEEP)
    }

    /// A reader keeping `head_keep` and `tail_keep` bytes of text (tests use small windows).
    pub fn with_windows(profile: Profile, head_keep: usize, tail_keep: usize) -> Reader {
        Reader {
            decoder: Decoder::default(),
            scratch: String::new(),
            head: None,
            head_keep,
            tail: VecDeque::new(),
            tail_keep,
            scanner: Scanner::default(),
            control: (profile == Profile::Cli).then(ControlLines::default),
            raw_len: 0,
            utf16_later: Utf16Later::default(),
            profile,
            spotter: None,
        }
    }

    /// The same reader, spotting a block (`"decision": "block"`...) anywhere in stdout, for a
    /// Claude settings handler whose stdout may be too long to keep whole.
    pub fn spotting_blocks(mut self) -> Reader {
        self.spotter = Some(BlockSpotter::default());
        self
    }

    /// Reads the next bytes of stdout, cut anywhere (inside a character too).
    pub fn feed(&mut self, bytes: &[u8]) {
        self.raw_len += bytes.len() as u64;
        self.utf16_later.feed(bytes);
        let mut scratch = std::mem::take(&mut self.scratch);
        let text = self.decoder.decode(bytes, &mut scratch);
        self.take(text);
        self.scratch = scratch;
    }

    /// Stdout ended: what was kept of it, for [`read`](crate::verdict::read).
    pub fn finish(mut self) -> Kept {
        let mut scratch = std::mem::take(&mut self.scratch);
        self.decoder.finish(&mut scratch);
        self.take(&scratch);
        let control = self.control.take().and_then(ControlLines::finish);
        let mut tail: Vec<u8> = self.tail.into();
        // The window may begin inside a character: start at the next whole one.
        let skip = tail.iter().take_while(|&&b| b & 0xC0 == 0x80).count();
        tail.drain(..skip);
        let tail = String::from_utf8(tail)
            .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned());
        let scan = self.scanner.finish();
        Kept {
            encoding: self.decoder.encoding(),
            head: self.head.unwrap_or_default(),
            tail_start: scan.len.saturating_sub(tail.len()),
            tail,
            scan,
            control,
            raw_len: self.raw_len,
            utf16_later: self.utf16_later.found,
            profile: self.profile,
            spotted: self.spotter.and_then(BlockSpotter::finish),
        }
    }

    fn take(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let bytes = text.as_bytes();
        let new = &bytes[bytes.len().saturating_sub(self.tail_keep)..];
        let overflow = (self.tail.len() + new.len()).saturating_sub(self.tail_keep);
        if self.head.is_none() && self.tail.len() + bytes.len() > self.tail_keep {
            self.head = Some(self.start_of(text));
        }
        self.tail.drain(..overflow);
        self.tail.extend(new);
        self.scanner.feed(text);
        if let Some(spotter) = &mut self.spotter {
            spotter.feed(text);
        }
        if let Some(control) = &mut self.control {
            control.feed(text);
        }
    }
}

impl Reader {
    /// The first bytes of stdout, while the tail still holds all of it before `text`.
    fn start_of(&self, text: &str) -> String {
        let (a, b) = self.tail.as_slices();
        let mut head = Vec::with_capacity(self.head_keep);
        for part in [a, b, text.as_bytes()] {
            let take = part.len().min(self.head_keep - head.len());
            head.extend_from_slice(&part[..take]);
        }
        // The window may end inside a character.
        whole_chars(head)
    }
}

impl Kept {
    /// Text `start..end` of stdout, when one kept window holds all of it.
    pub fn text(&self, start: usize, end: usize) -> Option<&str> {
        if end <= self.head.len() {
            return self.head.get(start..end);
        }
        let from = start.checked_sub(self.tail_start)?;
        self.tail.get(from..end - self.tail_start)
    }

    /// The text from `start` to the end of stdout, when kept.
    pub fn rest(&self, start: usize) -> Option<&str> {
        self.tail.get(start.checked_sub(self.tail_start)?..)
    }
}

/// Where in a line the `HOOK_CONTROL` reader is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Line {
    /// At its start, or among the blanks JavaScript's `trim` removes.
    #[default]
    Start,
    /// This many bytes of the prefix matched.
    Prefix(usize),
    /// In a control line's payload.
    Payload,
    /// In any other line.
    Skip,
}

/// Finds the `HOOK_CONTROL` lines as stdout streams (each line trimmed as the Cline SDK trims
/// it) and judges each at its end.
#[derive(Debug, Default)]
struct ControlLines {
    line: Line,
    payload: String,
    too_long: bool,
    seen: bool,
    control: Control,
}

impl ControlLines {
    fn feed(&mut self, text: &str) {
        let mut rest = text;
        while !rest.is_empty() {
            match self.line {
                Line::Skip => match rest.find('\n') {
                    Some(n) => {
                        rest = &rest[n + 1..];
                        self.line = Line::Start;
                    }
                    None => return,
                },
                Line::Start => {
                    rest = rest.trim_start_matches(|c: char| c != '\n' && is_js_space(c));
                    match rest.as_bytes().first() {
                        None => return,
                        Some(b'\n') => rest = &rest[1..],
                        Some(_) => self.line = Line::Prefix(0),
                    }
                }
                Line::Prefix(matched) => {
                    let want = &CONTROL_PREFIX.as_bytes()[matched..];
                    let same = rest
                        .bytes()
                        .zip(want.iter())
                        .take_while(|(a, b)| a == *b)
                        .count();
                    if same == want.len() {
                        rest = &rest[same..];
                        self.line = Line::Payload;
                        self.payload.clear();
                        self.too_long = false;
                    } else if same == rest.len() {
                        self.line = Line::Prefix(matched + same);
                        return;
                    } else {
                        self.line = Line::Skip;
                    }
                }
                Line::Payload => {
                    let end = rest.find('\n');
                    let part = &rest[..end.unwrap_or(rest.len())];
                    if self.payload.len() + part.len() > CONTROL_KEEP {
                        self.too_long = true;
                    } else if !self.too_long {
                        self.payload.push_str(part);
                    }
                    let Some(n) = end else { return };
                    self.end_line();
                    rest = &rest[n + 1..];
                    self.line = Line::Start;
                }
            }
        }
    }

    fn end_line(&mut self) {
        let payload = self.payload.trim_end_matches(is_js_space);
        // `HOOK_CONTROL<tab>` and blanks: trimmed, the tab goes too, so it is no control line.
        if payload.is_empty() && !self.too_long {
            return;
        }
        self.seen = true;
        let judged = if self.too_long {
            Err(format!(
                "printed a HOOK_CONTROL line longer than {} MiB, more than the runner reads of one",
                CONTROL_KEEP >> 20
            ))
        } else {
            verdict::control_payload(payload)
        };
        match judged {
            Ok(verdict) => {
                let cancel = verdict.0.object.as_ref().and_then(|o| o.get("cancel"));
                if cancel == Some(&serde_json::Value::Bool(true)) {
                    self.control.cancels += 1;
                }
                self.control.last = Some(verdict);
                self.control.broken_later = None;
            }
            Err(why) => self.control.broken_later = Some(why),
        }
    }

    fn finish(mut self) -> Option<Control> {
        if self.line == Line::Payload {
            self.end_line();
        }
        self.seen.then_some(self.control)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn kept(chunks: &[&[u8]], head: usize, tail: usize) -> Kept {
        let mut reader = Reader::with_windows(Profile::Cli, head, tail);
        for chunk in chunks {
            reader.feed(chunk);
        }
        reader.finish()
    }

    #[test]
    fn the_first_and_last_bytes_are_kept_on_character_boundaries() {
        let kept = kept(&["ab€".as_bytes(), "cd€ef".as_bytes()], 4, 6);
        assert_eq!(kept.head, "ab");
        assert_eq!(kept.tail, "d€ef");
        assert_eq!(kept.tail_start, 6);
        assert_eq!(kept.text(7, 10), Some("€"));
        assert_eq!(kept.text(0, 2), Some("ab"));
        assert_eq!(kept.text(1, 7), None);
        assert_eq!(kept.rest(10), Some("ef"));
        assert_eq!(kept.scan.len, 12);
        assert_eq!(kept.raw_len, 12);
    }

    #[test]
    fn control_lines_are_found_across_chunks_and_judged_at_their_end() {
        let kept = kept(
            &[
                b"log\n  \xef\xbb\xbfHOOK_CON",
                b"TROL\t{\"cancel\":true}  \r\nHOOK_CONTROL\t\nHOOK_CONTROLX\t{}\n",
                b"HOOK_CONTROL\t{\"cancel\": tr",
            ],
            1 << 20,
            1 << 20,
        );
        let control = kept.control.unwrap();
        let (verdict, trailing) = control.last.unwrap();
        assert!(verdict.cancel);
        assert!(!trailing);
        assert!(control.broken_later.unwrap().contains("not valid JSON"));
        assert_eq!(control.cancels, 1);
        assert!(kept_no_control().is_none());
    }

    fn kept_no_control() -> Option<Control> {
        kept(&[b"HOOK_CONTROL\t  \nlog HOOK_CONTROL\t{}\n"], 64, 64).control
    }

    /// Each usable line whose own `cancel` is `true` is counted, across chunks; cancels in
    /// strings, nested objects, arrays, broken lines or overridden by a duplicate are not.
    #[test]
    fn the_cancels_of_control_lines_are_counted() {
        let text = concat!(
            "HOOK_CONTROL\t{\"cancel\":true}\n",
            "HOOK_CONTROL\t{\"cancel\":false}\n",
            "  HOOK_CONTROL\t{\"cancel\": true, \"errorMessage\": \"no\"} \r\n",
            "HOOK_CONTROL\t{\"log\":\"\\\"cancel\\\": true\",\"d\":{\"cancel\":true}}\n",
            "HOOK_CONTROL\t[{\"cancel\":true}]\n",
            "HOOK_CONTROL\t{\"cancel\":true,\"cancel\":false}\n",
            "HOOK_CONTROL\t{\"cancel\":\"true\"}\n",
            "log HOOK_CONTROL\t{\"cancel\":true}\n",
            "{\"cancel\":true}\n",
            "HOOK_CONTROL\t{\"cancel\":tr",
        );
        for chunk in [1, 7, text.len()] {
            let mut reader = Reader::with_windows(Profile::Cli, 16, 16);
            for piece in text.as_bytes().chunks(chunk) {
                reader.feed(piece);
            }
            let control = reader.finish().control.unwrap();
            assert_eq!(control.cancels, 2, "{chunk}");
        }
    }

    #[test]
    fn a_control_line_too_long_to_read_is_broken() {
        let long = format!(
            "HOOK_CONTROL\t{{\"cancel\":true,\"x\":\"{}\"}}\n",
            "x".repeat(CONTROL_KEEP)
        );
        let control = kept(&[long.as_bytes()], 64, 64).control.unwrap();
        assert!(control.last.is_none());
        assert!(control.broken_later.unwrap().contains("longer than 1 MiB"));
    }

    /// Issue 13: a control line indented with any blank JavaScript's `trim` removes carries
    /// the verdict, its cancel included, wherever the chunks of stdout are cut.
    #[test]
    fn an_indented_control_line_carries_its_cancel() {
        for indent in [
            "  ", "\t", " \t ", "\u{a0}", "\u{feff}", "\u{3000}", "\r", "\u{2028}",
        ] {
            let text = format!(
                "log\n{indent}HOOK_CONTROL\t{{\"cancel\": true, \"errorMessage\": \"no\"}}{indent}\n{{\"cancel\": false}}\n"
            );
            for chunk in [1, 2, 5, text.len()] {
                let mut reader = Reader::with_windows(Profile::Cli, 16, 16);
                for piece in text.as_bytes().chunks(chunk) {
                    reader.feed(piece);
                }
                let v = verdict::read(reader.finish());
                assert!(v.cancel, "{text:?} in pieces of {chunk}");
                assert_eq!(
                    (v.error_message.as_str(), v.problem),
                    ("no", None),
                    "{text:?}"
                );
            }
        }
        // NEL and a zero-width space are no blanks to JavaScript: such a line is a log line.
        for indent in ["\u{85}", "\u{200b}"] {
            let text = format!("{indent}HOOK_CONTROL\t{{\"cancel\": true}}\n");
            assert!(
                kept(&[text.as_bytes()], 64, 64).control.is_none(),
                "{text:?}"
            );
        }
    }

    /// The Cline SDK's reading of control lines: stdout split at `\n`, each line trimmed as
    /// JavaScript trims, those starting `HOOK_CONTROL<tab>` kept, the last one's rest parsed
    /// with `JSON.parse`. Whether there was one, and the object of the last one that starts
    /// with a JSON object. Where the SDK drops all of the hook's output because its last
    /// control line is broken, or has text after its object (`\u{85}` is no blank to it), ours
    /// keeps the last usable line and fails the hook: a cancel is never lost.
    fn sdk_control(text: &str) -> (bool, Option<Value>) {
        let payloads: Vec<&str> = text
            .trim_matches(is_js_space)
            .split('\n')
            .map(|line| line.trim_matches(is_js_space))
            .filter_map(|line| line.strip_prefix(CONTROL_PREFIX))
            .collect();
        let last = payloads.iter().rev().find_map(|p| {
            let first = serde_json::Deserializer::from_str(p)
                .into_iter::<Value>()
                .next();
            first.and_then(Result::ok).filter(Value::is_object)
        });
        (!payloads.is_empty(), last)
    }

    fn blank() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "", " ", "\t", " \t", "\r", "\u{b}", "\u{c}", "\u{a0}", "\u{feff}", "\u{3000}",
            "\u{2028}", "\u{85}", "\u{200b}",
        ])
    }

    fn body() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "HOOK_CONTROL\t{\"cancel\":true}",
            "HOOK_CONTROL\t{\"cancel\":false}",
            "HOOK_CONTROL\t {\"cancel\": true, \"errorMessage\": \"x\"}",
            "HOOK_CONTROL\t{\"context\":\"c\"}",
            "HOOK_CONTROL\t{\"cancel\":tr",
            "HOOK_CONTROL\t[1]",
            "HOOK_CONTROL\t\"x\"",
            "HOOK_CONTROL\t",
            "HOOK_CONTROL {\"cancel\":true}",
            "HOOK_CONTROLX\t{\"cancel\":true}",
            "log HOOK_CONTROL\t{\"cancel\":true}",
            "{\"cancel\":false}",
            "log",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 2_000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Issue 13: the control lines found, and the cancel of the last usable one, are the
        /// SDK's, whatever blanks surround the lines and wherever the chunks are cut.
        #[test]
        fn control_lines_are_read_as_the_sdk_reads_them(
            lines in prop::collection::vec((blank(), body(), blank()), 1..6),
            chunk in 1usize..24,
        ) {
            let text: String = lines
                .iter()
                .map(|(before, body, after)| format!("{before}{body}{after}"))
                .collect::<Vec<_>>()
                .join("\n");
            let (any, last) = sdk_control(&text);
            let mut reader = Reader::with_windows(Profile::Cli, 1 << 20, 1 << 20);
            for piece in text.as_bytes().chunks(chunk) {
                reader.feed(piece);
            }
            let kept = reader.finish();
            prop_assert_eq!(kept.control.is_some(), any, "{:?}", text);
            let ours = kept.control.as_ref().and_then(|c| c.last.as_ref());
            prop_assert_eq!(ours.and_then(|(v, _)| v.object.clone()), last.clone().and_then(|v| match v {
                Value::Object(map) => Some(map),
                _ => None,
            }), "{:?}", text);
            if let Some(last) = last {
                let cancel = last.get("cancel") == Some(&Value::Bool(true));
                prop_assert_eq!(verdict::read(kept).cancel, cancel, "{:?}", text);
            }
        }
    }
}
