//! A hook's output cut into lines for its live events: what a line is (its ending removed, cut
//! at [`LINE_BYTES`]), each one handed to the hook's [`HookWatch`] as it ends.

use std::sync::Arc;

use super::watch::Stream;
use super::HookWatch;

/// Longest line sent, in bytes of UTF-8: the rest of a longer line is dropped.
pub const LINE_BYTES: usize = 4096;

/// One pipe's bytes split into lines for a [`HookWatch`]: the start of the line not ended
/// yet (at most [`LINE_BYTES`] of it) is all it keeps.
pub(crate) struct Lines {
    watch: Arc<HookWatch>,
    stream: Stream,
    pending: Vec<u8>,
    /// The pending line was longer than [`LINE_BYTES`]: its rest is skipped.
    cut: bool,
}

impl Lines {
    pub(crate) fn new(watch: Arc<HookWatch>, stream: Stream) -> Lines {
        Lines {
            watch,
            stream,
            pending: Vec::new(),
            cut: false,
        }
    }

    /// Takes bytes just read; sends each line they end.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && self.watch.wants_lines() {
            let (head, ended) = match bytes.iter().position(|&b| b == b'\n') {
                Some(at) => (&bytes[..at], Some(at + 1)),
                None => (bytes, None),
            };
            let room = (LINE_BYTES + 1).saturating_sub(self.pending.len());
            self.pending
                .extend_from_slice(&head[..head.len().min(room)]);
            self.cut |= head.len() > room;
            match ended {
                Some(next) => {
                    self.send();
                    bytes = &bytes[next..];
                }
                None => return,
            }
        }
    }

    /// Sends the last line, if the output did not end with a line ending.
    pub(crate) fn finish(&mut self) {
        if (!self.pending.is_empty() || self.cut) && self.watch.wants_lines() {
            self.send();
        }
    }

    fn send(&mut self) {
        let text = line_text(&self.pending, self.cut);
        self.pending.clear();
        self.cut = false;
        self.watch.line(self.stream, &text);
    }
}

impl HookWatch {
    /// A splitter of one of its pipes into lines sent from here.
    pub(crate) fn lines(self: &Arc<Self>, stdout: bool) -> Lines {
        let stream = if stdout {
            Stream::Stdout
        } else {
            Stream::Stderr
        };
        Lines::new(self.clone(), stream)
    }
}

/// The text of one line: its `\r` (a CRLF ending) removed, invalid UTF-8 replaced, cut at
/// [`LINE_BYTES`] on a character boundary (a character the cut splits is left out whole).
pub(crate) fn line_text(raw: &[u8], cut: bool) -> String {
    let mut raw = raw;
    if raw.len() > LINE_BYTES {
        raw = &raw[..LINE_BYTES];
        // The kept part may end inside a character: drop that partial character.
        if let Err(err) = std::str::from_utf8(raw) {
            if err.error_len().is_none() {
                raw = &raw[..err.valid_up_to()];
            }
        }
    } else if !cut {
        raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    }
    let mut text = String::from_utf8_lossy(raw).into_owned();
    if text.len() > LINE_BYTES {
        // Replacement characters are 3 bytes for 1 invalid byte.
        let mut end = LINE_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_loses_its_ending_and_nothing_else() {
        assert_eq!(line_text(b"hello", false), "hello");
        assert_eq!(line_text(b"hello\r", false), "hello");
        assert_eq!(line_text(b"  a\tb ", false), "  a\tb ");
        assert_eq!(line_text(b"", false), "");
    }

    #[test]
    fn a_long_line_is_cut_at_the_limit_on_a_character_boundary() {
        let long = vec![b'x'; LINE_BYTES + 10];
        assert_eq!(line_text(&long, true).len(), LINE_BYTES);
        // 'é' is 2 bytes: one would straddle the cut.
        let mut accents = vec![b'a'];
        accents.extend("é".repeat(LINE_BYTES).as_bytes());
        let text = line_text(&accents[..LINE_BYTES + 1], true);
        assert_eq!(text.len(), LINE_BYTES - 1);
        assert!(text.ends_with('é'));
    }

    #[test]
    fn invalid_utf8_is_replaced_and_still_within_the_limit() {
        assert_eq!(line_text(b"a\xffb", false), "a\u{fffd}b");
        let bad = vec![0xffu8; LINE_BYTES];
        let text = line_text(&bad, false);
        assert!(text.len() <= LINE_BYTES);
        assert!(text.chars().all(|c| c == '\u{fffd}'));
    }
}
