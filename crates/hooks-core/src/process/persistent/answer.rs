//! What a persistent hook's stdout says, line by line: its lines cut from the stream in
//! bounded memory, and each line judged as the answer to the event in flight (a JSON object),
//! a log line, or a broken answer (a line that starts with `{` and is not one). Pure.

use crate::discovery::Profile;
use crate::verdict::{self, Verdict, MAX_DEPTH};

/// Longest stdout line kept whole, in bytes: an answer longer than this fails its event. It
/// holds the largest verdict a per-event hook's is read whole from (a 1 MiB `overrideInput`
/// and the 50 KB texts) with room to spare; the rest of a longer line is skipped, unread.
pub const ANSWER_LINE_MAX: usize = 2 << 20;

/// How much of a broken answer line a failure sentence quotes, in characters.
const QUOTED: usize = 80;

/// One line of stdout, its ending (`\n`, `\r\n`) removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Line {
    /// Its bytes, the first [`ANSWER_LINE_MAX`] of them when it was longer.
    pub bytes: Vec<u8>,
    /// It was longer than the cap: the rest was skipped.
    pub cut: bool,
}

/// Cuts a stream into lines as it arrives, holding at most `cap` bytes of a line.
#[derive(Debug)]
pub(super) struct LineSplitter {
    partial: Vec<u8>,
    cut: bool,
    cap: usize,
}

impl LineSplitter {
    pub(super) fn new(cap: usize) -> LineSplitter {
        LineSplitter {
            partial: Vec::new(),
            cut: false,
            cap,
        }
    }

    /// Takes the next bytes; the lines they end, in order.
    pub(super) fn push(&mut self, mut bytes: &[u8]) -> Vec<Line> {
        let mut lines = Vec::new();
        while !bytes.is_empty() {
            let end = bytes.iter().position(|&b| b == b'\n');
            let part = &bytes[..end.unwrap_or(bytes.len())];
            let room = self.cap.saturating_sub(self.partial.len());
            if part.len() > room {
                self.cut = true;
            }
            self.partial
                .extend_from_slice(&part[..part.len().min(room)]);
            let Some(end) = end else { break };
            bytes = &bytes[end + 1..];
            let mut line = std::mem::take(&mut self.partial);
            if line.last() == Some(&b'\r') && !self.cut {
                line.pop();
            }
            lines.push(Line {
                bytes: line,
                cut: std::mem::replace(&mut self.cut, false),
            });
        }
        lines
    }

    /// Whether a line has begun and not ended.
    #[cfg(test)]
    fn pending(&self) -> bool {
        !self.partial.is_empty() || self.cut
    }
}

/// What one stdout line is.
#[derive(Debug)]
pub(super) enum Said {
    /// A JSON object: the answer, read as a per-event hook's stdout is (same fields, same caps,
    /// a field of the wrong type in [`Verdict::problem`]).
    Answer(Box<Verdict>),
    /// Starts with `{` but is not a JSON object that ends the line: the event in flight fails
    /// with this sentence.
    Broken(String),
    /// Anything else: the hook's log.
    Log,
}

/// Whether `line` (not an answer) holds a JSON object that prints `"cancel": true`, as the
/// per-event reader finds one in a hook's stdout (`gate: {"cancel": true}`, an answer cut at
/// the line cap): a printed cancel is never dropped, even from a line that is not an answer.
pub(super) fn printed_cancel(line: &Line, profile: Profile) -> bool {
    let mentions = line.bytes.windows(b"cancel".len()).any(|w| w == b"cancel");
    mentions && verdict::parse(&line.bytes, profile).cancel
}

/// Judges one line. A line is an answer attempt when it starts with `{` after blanks (spaces,
/// tabs, and a UTF-8 byte-order mark, which some Windows tools put before their first line);
/// then it must be exactly one JSON object (as `JSON.parse` reads it, Python's `NaN` too).
pub(super) fn classify(line: &Line, profile: Profile) -> Said {
    let start = line
        .bytes
        .iter()
        .position(|&b| !matches!(b, b' ' | b'\t'))
        .map_or(&[][..], |at| &line.bytes[at..]);
    let start = start.strip_prefix("\u{feff}".as_bytes()).unwrap_or(start);
    // The CLI's control line carries its answer after the tag.
    let start = match profile {
        Profile::Cli => start.strip_prefix(b"HOOK_CONTROL\t").unwrap_or(start),
        Profile::Extension => start,
    };
    if start.first() != Some(&b'{') {
        return Said::Log;
    }
    if line.cut {
        return Said::Broken(format!(
            "printed an answer line longer than {} MiB, more than is read of one (it starts {}); keep each answer on one line under that size",
            ANSWER_LINE_MAX >> 20,
            quote(start)
        ));
    }
    let Ok(text) = std::str::from_utf8(start) else {
        return Said::Broken(format!(
            "printed a line that starts with {{ but is not valid UTF-8, so it is not a JSON answer: {}; print each answer as one JSON object on one line of UTF-8",
            quote(start)
        ));
    };
    match verdict::error_of(text) {
        None => Said::Answer(Box::new(verdict::parse(text.as_bytes(), profile))),
        // Deeper than serde_json reads, but whole (`JSON.parse` reads any depth): the scan
        // behind the per-event reader judges it.
        Some(_) if deep_and_whole(text) => {
            Said::Answer(Box::new(verdict::parse(text.as_bytes(), profile)))
        }
        Some(err) => Said::Broken(format!(
            "printed a line that starts with {{ but is not valid JSON ({err}): {}; print each answer as one JSON object on one line, and anything else as a line that does not start with {{ (or on stderr)",
            quote(start)
        )),
    }
}

/// Whether `text` nests deeper than serde_json reads and its first bracket closes at its end.
fn deep_and_whole(text: &str) -> bool {
    match verdict::nesting(text) {
        (deepest, Some(end)) => deepest > MAX_DEPTH && text[end..].trim().is_empty(),
        _ => false,
    }
}

/// The start of a line, quoted for a sentence.
pub(super) fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(QUOTED * 4)]);
    let shown: String = text.chars().take(QUOTED).collect();
    let more = if shown.len() < text.len() || bytes.len() > QUOTED * 4 {
        "..."
    } else {
        ""
    };
    format!("`{shown}{more}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Line {
        Line {
            bytes: text.as_bytes().to_vec(),
            cut: false,
        }
    }

    #[test]
    fn lines_are_cut_at_newlines_across_pushes_without_their_endings() {
        let mut split = LineSplitter::new(100);
        assert!(split.push(b"one\r\ntw").len() == 1);
        assert!(split.pending());
        let lines = split.push(b"o\n\nthree\n");
        let texts: Vec<&[u8]> = lines.iter().map(|l| &l.bytes[..]).collect();
        assert_eq!(texts, [&b"two"[..], b"", b"three"]);
        assert!(!split.pending());
    }

    #[test]
    fn a_line_past_the_cap_keeps_its_start_and_says_it_was_cut() {
        let mut split = LineSplitter::new(4);
        assert!(split.push(b"abcdefgh").is_empty());
        assert!(split.pending());
        let lines = split.push(b"ij\nok\n");
        assert_eq!(
            lines,
            [
                Line {
                    bytes: b"abcd".to_vec(),
                    cut: true
                },
                Line {
                    bytes: b"ok".to_vec(),
                    cut: false
                }
            ]
        );
    }

    #[test]
    fn an_object_line_is_the_answer_read_like_a_per_event_verdict() {
        let said = classify(
            &line(r#"  {"cancel": true, "contextModification": "ctx"}"#),
            Profile::Extension,
        );
        let Said::Answer(verdict) = said else {
            panic!("{said:?}")
        };
        assert!(verdict.cancel);
        assert_eq!(verdict.context_modification, "ctx");
        assert!(verdict.problem.is_none());

        // A field of the wrong type is the per-event reader's problem sentence.
        let Said::Answer(verdict) = classify(&line(r#"{"cancel": "yes"}"#), Profile::Extension)
        else {
            panic!()
        };
        assert!(verdict.problem.is_some());
    }

    #[test]
    fn a_bom_before_the_brace_is_allowed() {
        let said = classify(&line("\u{feff}{\"cancel\": false}"), Profile::Extension);
        assert!(matches!(said, Said::Answer(_)), "{said:?}");
    }

    #[test]
    fn other_lines_are_log_even_with_braces_inside() {
        for text in ["starting", "", "value: {not json", "[1, 2]", "\"{\""] {
            assert!(
                matches!(classify(&line(text), Profile::Extension), Said::Log),
                "{text}"
            );
        }
    }

    #[test]
    fn a_brace_line_that_is_not_json_is_broken_and_quoted() {
        let Said::Broken(why) = classify(&line("{oops, not json"), Profile::Extension) else {
            panic!()
        };
        assert!(why.contains("`{oops, not json`"), "{why}");
        assert!(why.contains("not valid JSON"), "{why}");

        let Said::Broken(why) = classify(&line(r#"{"cancel": true} trailing"#), Profile::Extension)
        else {
            panic!()
        };
        assert!(why.contains("not valid JSON"), "{why}");
    }

    #[test]
    fn a_cut_brace_line_is_broken_and_says_how_long_a_line_may_be() {
        let cut = Line {
            bytes: format!("{{\"contextModification\": \"{}", "x".repeat(500)).into_bytes(),
            cut: true,
        };
        let Said::Broken(why) = classify(&cut, Profile::Extension) else {
            panic!()
        };
        assert!(why.contains("longer than 2 MiB"), "{why}");
        assert!(why.contains("...`"), "{why}");
    }

    #[test]
    fn an_object_deeper_than_serde_reads_is_still_an_answer() {
        let deep = format!(
            "{{\"cancel\": true, \"x\": {}{}}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        let said = classify(&line(&deep), Profile::Extension);
        let Said::Answer(verdict) = said else {
            panic!("{said:?}")
        };
        assert!(verdict.cancel);
    }
}
