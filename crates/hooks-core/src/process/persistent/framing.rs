//! Which bytes of a persistent process's stdout are one event's output, and where that output
//! ends. Pure. This is all that is particular to persistent mode: what the bytes of an event
//! decide is read by the per-event reader (`verdict::Reader`), exactly as a per-event hook's
//! whole stdout is, so the two modes never decide differently.
//!
//! The stream is cut into lines (UTF-8, or UTF-16 as Windows PowerShell writes it, decided from
//! its first bytes). An event's output is every line printed while it is in flight, up to and
//! including its answer line and whatever else the process had printed by then, less the lines
//! that answer another event (they carry another event's `hookEventId`). The answer line is:
//! - from a process that has echoed an event's `hookEventId`, the line that echoes this one's;
//! - else the first line that starts with `{` (after blanks, a byte-order mark and, in the CLI
//!   profile, `HOOK_CONTROL<tab>`), whether or not it is valid JSON: the per-event reader
//!   judges it, lenient where the per-event path is.
//!
//! Lines are held back until they end (to tell a late answer from this event's), up to
//! [`LINE_KEEP`] bytes; the rest of a longer line streams through as output unjudged by id.

use crate::verdict::{holds_verdict, Encoding};

/// Longest line held back whole to be judged: longer lines are the event's output, whatever
/// id they carry. It holds the largest answer the per-event reader reads whole with room.
pub const LINE_KEEP: usize = 2 << 20;

/// The field each event line carries for a persistent hook: the event's id.
pub const EVENT_ID_FIELD: &str = "hookEventId";

/// How much of a skipped line a warning quotes, in characters.
const QUOTED: usize = 80;

/// What one ended line is, for the event `id` in flight (`None` between events).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Judged {
    /// Not an answer: the hook's log (it is still the event's output).
    Log,
    /// A complete JSON object ending the line that holds no verdict field and echoes no id
    /// (`{"status":"checking"}`): a JSON log line, the event's output, not its answer (per
    /// event, a later object holding a verdict field would be the verdict).
    ObjectLog,
    /// Ends with a JSON object holding a verdict field, or `{}`, echoing no event id; or
    /// starts with `{` and is not JSON: an answer to whichever event.
    Answer,
    /// Starts with `{` and is the start of a JSON object that goes on past the line (printed
    /// pretty): the answer ends at the line its object closes on.
    Opening,
    /// A JSON object echoing the id of the event in flight.
    Own,
    /// A JSON object echoing another event's id: a late answer, not this event's output.
    Other,
}

/// What a push of bytes found.
#[derive(Debug, Default)]
pub(super) struct Pushed {
    /// The event's answer line has ended.
    pub answered: bool,
    /// The start of the first line skipped as another event's answer, quoted.
    pub stale: Option<String>,
    /// Between events: the start of the first line that is an answer to no event (a JSON
    /// object from a process that does not echo ids, or a broken one), quoted.
    pub unclaimed: Option<String>,
    /// The start of the first JSON object line read as a log line (no verdict field), quoted:
    /// said if the event then goes unanswered.
    pub object_log: Option<String>,
}

/// A persistent process's stdout, cut into lines as it arrives, over its whole life.
#[derive(Debug, Default, Clone)]
pub(super) struct Framing {
    /// The stream's encoding, decided from the event's first bytes: `Some(Some(little
    /// endian))` for UTF-16, `Some(None)` for UTF-8, `None` while undecided.
    utf16: Option<Option<bool>>,
    /// The event's first bytes, held while its encoding is undecided.
    sniffing: Vec<u8>,
    /// Bytes of the stream since it started, for the parity of UTF-16 code units.
    total: u64,
    /// The last byte seen, for a UTF-16 newline cut between two reads.
    prev: u8,
    /// The current line's bytes, held back until it ends (at most [`LINE_KEEP`]).
    line: Vec<u8>,
    /// The current line passed [`LINE_KEEP`]: the rest streams through; whether it started
    /// with `{`.
    long: Option<bool>,
    /// It has answered with an event's id: from then on only the line with the event's own id
    /// is its answer.
    pub echoes_ids: bool,
    /// This event's lines that answer another event, up to [`HELD_MAX`] bytes.
    held: Vec<u8>,
    /// An answer whose object has not closed by the end of its line (pretty-printed, or
    /// longer than [`LINE_KEEP`]): its brackets so far.
    open: Option<Depth>,
}

/// How deep a JSON text's brackets are at its end, strings skipped, as it streams.
#[derive(Debug, Default, Clone, Copy)]
struct Depth {
    depth: i64,
    in_string: bool,
    escape: bool,
}

impl Depth {
    fn feed(&mut self, text: &[u8]) {
        for &b in text {
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth -= 1,
                _ => {}
            }
        }
    }

    fn closed(&self) -> bool {
        self.depth <= 0
    }
}

/// The most bytes of other events' answers held for the event in flight.
const HELD_MAX: usize = 2 * LINE_KEEP;

impl Framing {
    /// Takes the next bytes read from stdout: the event's output among them is appended to
    /// `out`. `id` is the event in flight, `None` between events.
    pub(super) fn push(&mut self, bytes: &[u8], id: Option<&str>, out: &mut Vec<u8>) -> Pushed {
        let mut pushed = Pushed::default();
        if self.utf16.is_some() {
            self.cut(bytes, id, out, &mut pushed);
            return pushed;
        }
        // Its encoding is not known yet: held until it is (see `sniffed`), or until the bytes
        // hold the event's answer as the per-event reader will read them.
        self.sniffing.extend_from_slice(bytes);
        let decided =
            sniffed(&self.sniffing, false).or_else(|| self.answers_as_read(id).then_some(None));
        if let Some(utf16) = decided {
            self.utf16 = Some(utf16);
            let held = std::mem::take(&mut self.sniffing);
            self.cut(&held, id, out, &mut pushed);
        }
        pushed
    }

    /// Whether the undecided bytes, cut as the per-event reader reads them were they all the
    /// event printed (its sniff given the event's end: UTF-8 here, as `sniffed` has already
    /// taken UTF-16 on that evidence), hold the answer of the event `id`. Then the event ends
    /// with them, they are its whole output, and the reader reads them so: the decision
    /// agrees with it whatever the bytes ahead of the answer are (a NUL beside a line end, an
    /// invalid byte, which keep `sniffed` waiting for evidence that would only come later).
    fn answers_as_read(&self, id: Option<&str>) -> bool {
        if id.is_none() || Encoding::sniff(&self.sniffing, true) != Some(Encoding::Utf8) {
            return false;
        }
        let mut trial = self.clone();
        trial.utf16 = Some(None);
        let held = std::mem::take(&mut trial.sniffing);
        let mut pushed = Pushed::default();
        trial.cut(&held, id, &mut Vec::new(), &mut pushed);
        pushed.answered
    }

    /// Cuts bytes of a stream whose encoding is known into lines, judging each.
    fn cut(&mut self, mut bytes: &[u8], id: Option<&str>, out: &mut Vec<u8>, pushed: &mut Pushed) {
        while !bytes.is_empty() {
            let end = self.line_end(bytes);
            let (part, rest) = bytes.split_at(end.unwrap_or(bytes.len()));
            self.take_part(part, out);
            bytes = rest;
            if end.is_some() {
                self.end_line(id, out, pushed);
            }
        }
    }

    /// The stream ended or the event is over without its answer: the line begun is judged as
    /// if it had ended.
    pub(super) fn flush(&mut self, id: Option<&str>, out: &mut Vec<u8>) {
        if !self.sniffing.is_empty() {
            self.utf16 = Some(sniffed(&self.sniffing, true).flatten());
            let held = std::mem::take(&mut self.sniffing);
            self.cut(&held, id, out, &mut Pushed::default());
        }
        if !self.line.is_empty() || self.long.is_some() {
            self.end_line(id, out, &mut Pushed::default());
        }
    }

    /// A new event is written: its output's encoding is sniffed from its own first bytes (as
    /// a per-event hook's is), unless a line is still open, and no answer to another event
    /// is held for it.
    pub(super) fn start_event(&mut self) {
        self.held.clear();
        self.open = None;
        if !self.mid_line() {
            self.utf16 = None;
            self.total = 0;
        }
    }

    /// The lines of the event that answer another event (by their id), to be read as its
    /// output when it ends without its own answer: a printed cancel is never dropped.
    pub(super) fn take_held(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }

    /// Whether a line has begun and not ended.
    pub(super) fn mid_line(&self) -> bool {
        !self.line.is_empty() || self.long.is_some() || !self.sniffing.is_empty()
    }

    /// Where the first line in `bytes` ends (just past its `\n` or `\r`: a bare `\r` ends a
    /// line too, and the `\n` of a `\r\n` then ends an empty one), if it does; counts the
    /// bytes up to there (or all of them).
    fn line_end(&mut self, bytes: &[u8]) -> Option<usize> {
        let end = match self.utf16 {
            Some(Some(little_endian)) => {
                // A code unit ends at an odd offset of the stream.
                let mut prev = self.prev;
                let mut found = None;
                for (k, &b) in bytes.iter().enumerate() {
                    if (self.total + k as u64) % 2 == 1 {
                        let unit = if little_endian {
                            u16::from_le_bytes([prev, b])
                        } else {
                            u16::from_be_bytes([prev, b])
                        };
                        if unit == 0x0A || unit == 0x0D {
                            found = Some(k + 1);
                            break;
                        }
                    }
                    prev = b;
                }
                found
            }
            _ => bytes
                .iter()
                .position(|&b| b == b'\n' || b == b'\r')
                .map(|k| k + 1),
        };
        let taken = end.unwrap_or(bytes.len());
        self.total += taken as u64;
        if taken > 0 {
            self.prev = bytes[taken - 1];
        }
        end
    }

    /// Holds back a piece of the current line, or streams it once the line is long.
    fn take_part(&mut self, part: &[u8], out: &mut Vec<u8>) {
        if self.long.is_some() {
            if let Some(depth) = &mut self.open {
                depth.feed(part);
            }
            out.extend_from_slice(part);
            return;
        }
        if self.line.len() + part.len() <= LINE_KEEP {
            self.line.extend_from_slice(part);
            return;
        }
        // Its start says whether it is an answer attempt.
        let first = if self.line.is_empty() {
            part
        } else {
            &self.line[..]
        };
        let start = self.decode(&first[..first.len().min(64)]);
        let starts_with_brace = answer_text(&start).is_some();
        self.long = Some(starts_with_brace);
        // A long answer is followed to its closing brace as it streams.
        if starts_with_brace && self.open.is_none() {
            self.open = Some(Depth::default());
        }
        if let Some(depth) = &mut self.open {
            depth.feed(&self.line);
            depth.feed(part);
        }
        out.append(&mut self.line);
        out.extend_from_slice(part);
    }

    /// The current line ended: judged, and given to the event's output unless it is another
    /// event's answer.
    fn end_line(&mut self, id: Option<&str>, out: &mut Vec<u8>, pushed: &mut Pushed) {
        let long = self.long.take();
        let line = std::mem::take(&mut self.line);
        // A long line was streamed and judged by its start; a kept one is decoded once here,
        // unless it holds no `{` byte (in UTF-8 or UTF-16) and no answer is open: a log line.
        let text = match long {
            None if self.open.is_some() || line.contains(&b'{') => Some(self.decode(&line)),
            _ => None,
        };
        // An answer spread over lines goes on to the line its object closes on.
        if let Some(mut depth) = self.open.take() {
            if let Some(text) = &text {
                depth.feed(text.as_bytes());
            }
            if depth.closed() {
                pushed.answered |= id.is_some();
            } else if text.as_deref().is_some_and(|t| self.answers_alone(t, id)) {
                // What opened was not an answer (`{` alone, a log line cut short): a line that
                // answers on its own ends the event, as the per-event reader takes it.
                pushed.answered |= id.is_some();
            } else {
                self.open = Some(depth);
            }
            out.extend_from_slice(&line);
            return;
        }
        let Some(text) = text else {
            out.extend_from_slice(&line);
            return;
        };
        let judged = judge(&text, id);
        if matches!(judged, Judged::Own | Judged::Other) {
            self.echoes_ids = true;
        }
        match (judged, id) {
            (Judged::Opening, _) => {
                let mut depth = Depth::default();
                depth.feed(text.as_bytes());
                self.open = Some(depth);
                if id.is_none() && !self.echoes_ids {
                    pushed.unclaimed.get_or_insert_with(|| quote(&text));
                }
            }
            (Judged::Other, Some(_)) => {
                pushed.stale.get_or_insert_with(|| quote(&text));
                if self.held.len() + line.len() <= HELD_MAX {
                    self.held.extend_from_slice(&line);
                }
                return;
            }
            (Judged::ObjectLog, _) => {
                pushed.object_log.get_or_insert_with(|| quote(&text));
            }
            (Judged::Own, Some(_)) => pushed.answered = true,
            (Judged::Answer, Some(_)) if !self.echoes_ids => pushed.answered = true,
            (Judged::Answer, None) if !self.echoes_ids => {
                pushed.unclaimed.get_or_insert_with(|| quote(&text));
            }
            _ => {}
        }
        out.extend_from_slice(&line);
    }

    /// Whether a line inside an answer that has not closed answers the event on its own: it
    /// echoes the event's id, or (from a process that does not echo ids) ends with an object
    /// holding a verdict field.
    fn answers_alone(&self, text: &str, id: Option<&str>) -> bool {
        let Some(Some(object)) = ending_object(text) else {
            return false;
        };
        match of_object(&object, id) {
            Judged::Own => true,
            // `{}` alone is a line of a pretty-printed value as often as an answer.
            Judged::Answer => !self.echoes_ids && holds_verdict(&object),
            _ => false,
        }
    }

    /// A line's text, as the stream is encoded (a cut character read as U+FFFD).
    fn decode(&self, bytes: &[u8]) -> String {
        match self.utf16 {
            Some(Some(little_endian)) => {
                let units = bytes.chunks_exact(2).map(|pair| {
                    let pair = [pair[0], pair[1]];
                    if little_endian {
                        u16::from_le_bytes(pair)
                    } else {
                        u16::from_be_bytes(pair)
                    }
                });
                char::decode_utf16(units)
                    .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                    .collect()
            }
            _ => String::from_utf8_lossy(bytes).into_owned(),
        }
    }
}

/// The encoding of an event's output from its first bytes `held` (`Some(little endian)` for
/// UTF-16, `None` for UTF-8), once they decide it: the per-event reader's sniff, given its
/// window or the event's end (`complete`), or UTF-16 on the evidence so far; or UTF-8 once a
/// line has ended without a NUL byte (UTF-16 text of ASCII is full of them): ended before the
/// first NUL byte and the byte just ahead of it (the other half of a little-endian unit,
/// `\r\0`), where no UTF-16 character can start, so the per-event sniff reads that start as
/// UTF-8 whatever follows. A NUL printed after it (a stray byte in a later line) does not
/// un-end it. A BOM or a short line written alone so waits for what follows it, and an answer
/// in UTF-8 does not wait (nor does one behind bytes this rule waits on: see
/// `Framing::answers_as_read`). Pure.
fn sniffed(held: &[u8], complete: bool) -> Option<Option<bool>> {
    let utf16 = |encoding| match encoding {
        Encoding::Utf16 { little_endian, .. } => Some(little_endian),
        Encoding::Utf8 => None,
    };
    if let Some(encoding) = Encoding::sniff(held, complete) {
        return Some(utf16(encoding));
    }
    if let Some(Encoding::Utf16 { little_endian, .. }) = Encoding::sniff(held, true) {
        return Some(Some(little_endian));
    }
    let before_utf16 = held
        .iter()
        .position(|&b| b == 0)
        .map_or(held.len(), |nul| nul.saturating_sub(1));
    let line_ended = held[..before_utf16]
        .iter()
        .any(|&b| b == b'\n' || b == b'\r');
    line_ended.then_some(None)
}

/// The text of an answer attempt: the line from its `{` on, when it starts with one after
/// blanks, a byte-order mark and the CLI's control tag (in either profile: the per-event
/// reader finds the object behind the tag in both, as a verdict the line ends with).
fn answer_text(line: &str) -> Option<&str> {
    let start = line.trim_start_matches([' ', '\t', '\u{feff}']);
    let start = start
        .strip_prefix(crate::verdict::CONTROL_PREFIX)
        .unwrap_or(start);
    start.starts_with('{').then_some(start)
}

/// Judges one ended line for the event `id` in flight. An answer is found as the per-event
/// reader finds a verdict: a JSON object the line ends with, wherever it starts (after log
/// text, a control tag, a stray byte). Pure.
pub(super) fn judge(line: &str, id: Option<&str>) -> Judged {
    let opens = answer_text(line);
    if let Some(text) = opens {
        match serde_json::from_str::<JsonObject>(text.trim_end()) {
            Ok(object) => return of_object(&object, id),
            // Cut short at the line's end: a pretty-printed object goes on.
            Err(err) if err.is_eof() => return Judged::Opening,
            Err(_) => {}
        }
    }
    match ending_object(line) {
        Some(Some(object)) => of_object(&object, id),
        // JSON that only `JSON.parse`'s lenient kin reads (NaN): an answer all the same.
        Some(None) => Judged::Answer,
        // A line that starts as an object and is not one is an attempt at an answer, decided
        // as the same output per event; anything else is log.
        None if opens.is_some() => Judged::Answer,
        None => Judged::Log,
    }
}

/// The complete JSON object `line` ends with (only blanks after it), if there is one: the
/// last value the per-event reader's scanner finds in the line; its fields when serde reads
/// it. Pure.
fn ending_object(line: &str) -> Option<Option<JsonObject>> {
    let scan = crate::verdict::scan(line);
    let span = scan
        .last_value
        .filter(|v| v.kind == crate::verdict::Kind::Object && v.end >= scan.last_nonblank_end)?;
    Some(serde_json::from_str(&line[span.start..span.end]).ok())
}

type JsonObject = serde_json::Map<String, serde_json::Value>;

/// What a complete JSON object ending a line is, by its top-level fields.
fn of_object(object: &JsonObject, id: Option<&str>) -> Judged {
    match object.get(EVENT_ID_FIELD) {
        Some(serde_json::Value::String(echoed)) if Some(echoed.as_str()) == id => Judged::Own,
        Some(serde_json::Value::String(_)) => Judged::Other,
        _ if holds_verdict(object) || object.keys().all(|k| k == EVENT_ID_FIELD) => Judged::Answer,
        _ => Judged::ObjectLog,
    }
}

/// The start of a line, quoted for a sentence.
pub(super) fn quote(text: &str) -> String {
    let text = text.trim_end();
    let shown: String = text.chars().take(QUOTED).collect();
    let more = if shown.len() < text.len() { "..." } else { "" };
    format!("`{shown}{more}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push_all(framing: &mut Framing, chunks: &[&[u8]], id: &str) -> (Vec<u8>, Pushed) {
        let mut out = Vec::new();
        let mut last = Pushed::default();
        for chunk in chunks {
            let pushed = framing.push(chunk, Some(id), &mut out);
            last.answered |= pushed.answered;
            last.stale = last.stale.or(pushed.stale);
        }
        (out, last)
    }

    #[test]
    fn an_answer_line_ends_the_event_and_log_lines_before_it_are_its_output() {
        let mut framing = Framing::default();
        let (out, pushed) = push_all(&mut framing, &[b"checking\n{\"cancel\":", b"true}\n"], "1");
        assert!(pushed.answered);
        assert_eq!(out, b"checking\n{\"cancel\":true}\n");
        assert!(!framing.mid_line());
    }

    #[test]
    fn a_line_without_its_newline_is_held_until_it_ends_or_is_flushed() {
        let mut framing = Framing::default();
        let (out, pushed) = push_all(&mut framing, &[b"{\"cancel\":true}"], "1");
        assert!(!pushed.answered);
        assert!(out.is_empty());
        assert!(framing.mid_line());
        let mut out = Vec::new();
        framing.flush(Some("1"), &mut out);
        assert_eq!(out, b"{\"cancel\":true}");
    }

    #[test]
    fn a_pretty_printed_answer_ends_at_the_line_its_object_closes_on() {
        let mut framing = Framing::default();
        let pretty = b"{\n  \"data\": [\"}\", {\"cancel\": false}],\n  \"cancel\": true\n}\n";
        let mut out = Vec::new();
        let last = pretty.len() - 2;
        let pushed = framing.push(&pretty[..last], Some("1"), &mut out);
        assert!(!pushed.answered, "answered before its object closed");
        let pushed = framing.push(&pretty[last..], Some("1"), &mut out);
        assert!(pushed.answered);
        assert_eq!(out, pretty);
        assert!(framing.open.is_none());
        // Junk that is not the start of an object ends at its line.
        let (_, pushed) = push_all(&mut framing, &[b"{oops, not json\n"], "2");
        assert!(pushed.answered);
        // A long pretty answer is followed as it streams.
        let big = format!(
            "{{\n\"x\": \"{}\",\n\"cancel\": true\n}}\n",
            "a".repeat(LINE_KEEP + 10)
        );
        let (out, pushed) = push_all(&mut framing, &[big.as_bytes()], "3");
        assert!(pushed.answered);
        assert_eq!(out, big.as_bytes());
    }

    #[test]
    fn a_bare_carriage_return_ends_a_line() {
        let mut framing = Framing::default();
        let (out, pushed) = push_all(&mut framing, &[b"{\"cancel\":true}\r"], "1");
        assert!(pushed.answered);
        assert_eq!(out, b"{\"cancel\":true}\r");
        assert!(!framing.mid_line());
        // The \n of a \r\n ends an empty line: log.
        let (out, pushed) = push_all(&mut framing, &[b"\n"], "1");
        assert!(!pushed.answered);
        assert_eq!(out, b"\n");
    }

    #[test]
    fn another_events_answer_is_held_for_an_event_that_ends_without_its_own() {
        let mut framing = Framing::default();
        let late = b"{\"cancel\":true,\"hookEventId\":\"1\"}\n";
        let (out, _) = push_all(&mut framing, &[late], "2");
        assert!(out.is_empty());
        assert_eq!(framing.take_held(), late);
        push_all(&mut framing, &[late], "2");
        framing.start_event();
        assert!(framing.take_held().is_empty());
    }

    #[test]
    fn each_event_is_sniffed_for_utf16_on_its_own() {
        let mut framing = Framing::default();
        push_all(&mut framing, &[b"{\"a\":1}\n"], "1");
        framing.start_event();
        let bytes: Vec<u8> = "{\"cancel\":true}\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let (out, pushed) = push_all(&mut framing, &[&bytes], "2");
        assert!(pushed.answered);
        assert_eq!(out, bytes);
    }

    #[test]
    fn ids_in_the_content_never_make_the_answer_anothers() {
        // Only the answer's own top-level field counts.
        let line = r#"{"cancel":true,"echo":{"hookEventId":"99"},"note":"hookEventId"}"#;
        assert_eq!(judge(line, Some("7")), Judged::Answer);
        let own = r#"{"cancel":true,"hookEventId":"7"}"#;
        assert_eq!(judge(own, Some("7")), Judged::Own);
        let other = r#"{"cancel":false,"hookEventId":"6"}"#;
        assert_eq!(judge(other, Some("7")), Judged::Other);
        let number = r#"{"cancel":true,"hookEventId":7}"#;
        assert_eq!(judge(number, Some("7")), Judged::Answer);
    }

    #[test]
    fn a_late_answer_is_not_the_events_output_and_is_said() {
        let mut framing = Framing::default();
        let (out, pushed) = push_all(
            &mut framing,
            &[b"{\"cancel\":false,\"hookEventId\":\"1\"}\n{\"cancel\":true,\"hookEventId\":\"2\"}\n"],
            "2",
        );
        assert!(pushed.answered);
        assert_eq!(out, b"{\"cancel\":true,\"hookEventId\":\"2\"}\n");
        assert!(pushed.stale.unwrap().contains("\"1\""));
    }

    #[test]
    fn once_it_echoes_ids_an_id_less_object_is_log() {
        let mut framing = Framing::default();
        push_all(&mut framing, &[b"{\"hookEventId\":\"1\"}\n"], "1");
        let (out, pushed) = push_all(&mut framing, &[b"{\"status\":\"checking\"}\n"], "2");
        assert!(!pushed.answered);
        assert_eq!(out, b"{\"status\":\"checking\"}\n");
        let (_, pushed) = push_all(
            &mut framing,
            &[b"{\"cancel\":true,\"hookEventId\":\"2\"}\n"],
            "2",
        );
        assert!(pushed.answered);
    }

    #[test]
    fn the_control_tag_starts_an_answer() {
        let line = "HOOK_CONTROL\t{\"cancel\":true}";
        assert_eq!(judge(line, Some("1")), Judged::Answer);
        assert_eq!(judge(line, Some("1")), Judged::Answer);
        assert_eq!(judge("  \u{feff}{oops", Some("1")), Judged::Answer);
        assert_eq!(judge("value: {x}", Some("1")), Judged::Log);
    }

    #[test]
    fn utf16_lines_are_cut_at_their_newline_units_across_reads() {
        let text = "{\"cancel\":true}\r\nnext";
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        let mut framing = Framing::default();
        // Cut inside the newline's code unit.
        let cut = 2 + 2 * "{\"cancel\":true}\r".len() + 1;
        let (out, pushed) = push_all(&mut framing, &[&bytes[..cut], &bytes[cut..]], "1");
        assert!(pushed.answered);
        assert_eq!(out, &bytes[..cut + 1]);
        assert!(framing.mid_line());
    }

    #[test]
    fn a_line_longer_than_kept_streams_through_and_still_answers() {
        let mut framing = Framing::default();
        let big = format!(
            "{{\"x\":\"{}\",\"cancel\":true}}\n",
            "a".repeat(LINE_KEEP + 10)
        );
        let (out, pushed) = push_all(&mut framing, &[big.as_bytes()], "1");
        assert!(pushed.answered);
        assert_eq!(out, big.as_bytes());
    }

    #[test]
    fn between_events_an_object_from_a_process_without_ids_is_unclaimed() {
        let mut framing = Framing::default();
        let mut out = Vec::new();
        let pushed = framing.push(b"log\n{\"cancel\":true}\n", None, &mut out);
        assert!(pushed.unclaimed.is_some());
        let mut framing = Framing {
            echoes_ids: true,
            ..Framing::default()
        };
        let pushed = framing.push(b"{\"cancel\":true}\n", None, &mut out);
        assert!(pushed.unclaimed.is_none());
    }

    #[test]
    fn a_big_pretty_answer_read_in_chunks_ends_at_its_last_line() {
        let mut text = String::from("{\n  \"data\": [\n");
        for i in 0..100000 {
            text.push_str(&format!(
                "    {{\n      \"cancel\": false,\n      \"line\": {i}\n    }},\n"
            ));
        }
        text.push_str("    {}\n  ],\n  \"cancel\": true\n}\n");
        let mut framing = Framing::default();
        let mut out = Vec::new();
        let bytes = text.as_bytes();
        let mut answered_at = None;
        for (k, chunk) in bytes.chunks(65536).enumerate() {
            let pushed = framing.push(chunk, Some("1"), &mut out);
            if pushed.answered && answered_at.is_none() {
                answered_at = Some(k);
            }
        }
        assert_eq!(answered_at, Some(bytes.len() / 65536));
    }

    #[test]
    fn a_json_log_line_is_output_and_the_answer_is_the_object_holding_a_verdict_field() {
        let mut framing = Framing::default();
        let mut out = Vec::new();
        let log = framing.push(b"{\"status\":\"checking\"}\n", Some("1"), &mut out);
        assert!(!log.answered, "a JSON log line is not the answer");
        assert!(log.object_log.unwrap().contains("checking"));
        let answer = framing.push(b"HOOK_CONTROL\t{\"cancel\":true}\n", Some("1"), &mut out);
        assert!(answer.answered);
        assert_eq!(judge("{}", Some("1")), Judged::Answer, "{{}} allows");
        assert_eq!(judge(r#"{"cancel":false}"#, Some("1")), Judged::Answer);
        assert_eq!(judge(r#"{"log":"x"}"#, Some("1")), Judged::ObjectLog);
    }

    #[test]
    fn an_answer_is_found_where_the_per_event_reader_finds_it_at_the_end_of_its_line() {
        for line in [
            "working...{\"cancel\":true}",
            "log HOOK_CONTROL\t{\"cancel\":true}",
            "HOOK_CONTROL {\"cancel\":true}",
            "\u{fffd}{\"cancel\":true}  ",
            "{\"a\":1} {\"cancel\":true}",
        ] {
            assert_eq!(judge(line, Some("1")), Judged::Answer, "{line}");
        }
        assert_eq!(judge("see {\"cancel\":true} above", Some("1")), Judged::Log);
        assert_eq!(
            judge("x{\"cancel\":true,\"hookEventId\":\"1\"}", Some("1")),
            Judged::Own
        );
    }

    #[test]
    fn an_opening_that_never_closes_gives_way_to_a_line_that_answers_on_its_own() {
        for opening in [&b"{\n"[..], b"{\"status\":\"working\"\n"] {
            let mut framing = Framing::default();
            let (_, pushed) = push_all(&mut framing, &[opening], "1");
            assert!(!pushed.answered);
            let (_, pushed) = push_all(&mut framing, &[b"  \"x\": 1,\n", b"{}\n"], "1");
            assert!(!pushed.answered, "{{}} alone is a line of a pretty value");
            let (_, pushed) = push_all(&mut framing, &[b"{\"cancel\":true}\n"], "1");
            assert!(pushed.answered);
            assert!(framing.open.is_none());
        }
    }

    #[test]
    fn utf16_is_recognised_when_its_first_write_is_too_short_to_tell() {
        let utf16 =
            |text: &str| -> Vec<u8> { text.encode_utf16().flat_map(u16::to_le_bytes).collect() };
        let answer = utf16("{\"cancel\":true}\n");
        for first in [vec![0xFF, 0xFE], utf16("ok\n"), answer[..2].to_vec()] {
            let mut framing = Framing::default();
            let rest = if first == answer[..2] {
                answer[2..].to_vec()
            } else {
                answer.clone()
            };
            let (_, pushed) = push_all(&mut framing, &[&first], "1");
            assert!(!pushed.answered);
            let (_, pushed) = push_all(&mut framing, &[&rest], "1");
            assert!(pushed.answered, "first write {first:?}");
        }
        // UTF-8 is known at its first line's end: an answer does not wait.
        let mut framing = Framing::default();
        let (_, pushed) = push_all(&mut framing, &[b"{\"cancel\":true}\n"], "1");
        assert!(pushed.answered);
        // Undecided bytes are read at the event's end.
        let mut framing = Framing::default();
        push_all(&mut framing, &[&[0xFF, 0xFE]], "1");
        let mut out = Vec::new();
        framing.flush(Some("1"), &mut out);
        assert_eq!(out, [0xFF, 0xFE]);
    }

    #[test]
    fn a_nul_byte_after_a_line_has_ended_does_not_hold_the_answer_back() {
        // UTF-8 lines, then a NUL byte later in the same write (as the parity test's c153
        // printed): the line ended before any NUL, so the stream is UTF-8 at once, as the
        // per-event reader reads it, and the answer ends the event.
        let bytes =
            b"-1e309\r\n{\"contextModification\":\"from a piece\"}\n-\r\n\0{ \"status\": {  } \r\n";
        assert_eq!(bytes.len(), 70);
        let mut framing = Framing::default();
        let (out, pushed) = push_all(&mut framing, &[bytes], "1");
        assert!(pushed.answered);
        assert_eq!(out, bytes);
        // UTF-16 whose first unit is a line end is still waited for: the `\r` beside its NUL
        // byte ends no UTF-8 line.
        let utf16: Vec<u8> = "\r\n{\"cancel\":true}\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let mut framing = Framing::default();
        let (_, pushed) = push_all(&mut framing, &[&utf16[..3]], "1");
        assert!(!pushed.answered);
        assert_eq!(framing.utf16, None);
        let (_, pushed) = push_all(&mut framing, &[&utf16[3..]], "1");
        assert!(pushed.answered);
        assert_eq!(framing.utf16, Some(Some(true)));
    }

    #[test]
    fn an_answer_in_bytes_the_reader_reads_as_utf8_ends_the_event_whatever_precedes_it() {
        // The parity test's c186 (seed 1360605944, cli profile): a line starting with an
        // invalid byte, a NUL byte just past its line end, then lines read as UTF-8 and the
        // answer, in one write shorter than the sniff window. Per event these bytes are UTF-8
        // and decide contextModification "from a piece"; the line ended before the byte ahead
        // of the NUL does not count (`\n\0` could be a UTF-16 unit), so only the answer, found
        // as the reader will read these bytes, decides the stream.
        let bytes: &[u8] = b"\xc3true\n\x00[{\"contextModification\":\"\t\\u12\\\"\",\"contextModification\":-12},[{}]]\n{\"status\":\"logged\"}\r\ntrue\xc301\n {\"contextModification\":\"from a piece\"}\r\n";
        assert_eq!(bytes.len(), 144);
        assert_eq!(Encoding::sniff(bytes, true), Some(Encoding::Utf8));
        let mut framing = Framing::default();
        let (out, pushed) = push_all(&mut framing, &[bytes], "1");
        assert!(pushed.answered, "the answer line was not seen");
        assert_eq!(out, bytes);
        assert_eq!(framing.utf16, Some(None));
        // The same bytes in two writes: the first holds no answer and waits; the second ends it.
        let cut = bytes.len() - 10;
        let mut framing = Framing::default();
        let (_, pushed) = push_all(&mut framing, &[&bytes[..cut]], "1");
        assert!(!pushed.answered);
        assert_eq!(framing.utf16, None);
        let (_, pushed) = push_all(&mut framing, &[&bytes[cut..]], "1");
        assert!(pushed.answered);
        // A NUL byte first (no line can end before it): the answer still ends the event.
        let leading = b"\0true\r\n{\"contextModification\":\"from a piece\"}\r\ny,\"],1\r\n";
        let mut framing = Framing::default();
        let (_, pushed) = push_all(&mut framing, &[leading], "1");
        assert!(pushed.answered);
        // Between events nothing is an answer: the bytes still wait for evidence.
        let mut framing = Framing::default();
        assert!(framing
            .push(bytes, None, &mut Vec::new())
            .unclaimed
            .is_none());
        assert_eq!(framing.utf16, None);
        // What the per-event reader decides from the event's output, as from the same bytes
        // printed per event.
        let verdict = crate::verdict::parse(&out, crate::discovery::Profile::Cli);
        assert_eq!(verdict.context_modification, "from a piece");
        assert!(!verdict.cancel);
    }
}
