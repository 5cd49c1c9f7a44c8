//! Whether a Claude settings handler's stdout printed a block anywhere in it, in one pass over
//! it as it streams, in bounded memory: the words of a block (`"continue": false`,
//! `"decision": "block"`, `"permissionDecision": "deny"` or `"ask"`), JSON or not. A handler's
//! answer is read from its whole stdout; one too long to keep whole is still held to the
//! block it printed (see process/claude_handler.rs).

use std::sync::OnceLock;

use regex_lite::Regex;

/// Bytes of text carried from one chunk to the next, so words cut by a chunk's end are seen
/// (blanks between a key and its value included, up to about this many).
const CARRY: usize = 512;

/// The block a handler printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spotted {
    /// `"continue": false`: blocks on every event.
    Continue,
    /// `"decision": "block"` or a `permissionDecision` of `"deny"`, `"ask"` or `"defer"`:
    /// blocks on the events whose block stops what they are about.
    Decision,
}

/// Spots the first block as stdout streams: [`feed`](BlockSpotter::feed) it the text.
#[derive(Debug, Default)]
pub struct BlockSpotter {
    carry: String,
    found: Option<Spotted>,
}

fn pattern() -> Option<&'static Regex> {
    static PATTERN: OnceLock<Option<Regex>> = OnceLock::new();
    PATTERN
        .get_or_init(|| {
            Regex::new(
                r#""(continue|decision|permissionDecision)"\s*:\s*(false|"(?i:block|deny|ask|defer)")"#,
            )
            .ok()
        })
        .as_ref()
}

impl BlockSpotter {
    /// Reads the next text of stdout.
    pub fn feed(&mut self, text: &str) {
        if self.found == Some(Spotted::Continue) || text.is_empty() {
            return;
        }
        let Some(pattern) = pattern() else { return };
        self.carry.push_str(text);
        for found in pattern.captures_iter(&self.carry) {
            let spotted = match found.get(1).map(|m| m.as_str()) {
                Some("continue") if found.get(2).is_some_and(|v| v.as_str() == "false") => {
                    Spotted::Continue
                }
                Some("continue") => continue,
                _ => Spotted::Decision,
            };
            if self.found != Some(Spotted::Continue) {
                self.found = Some(spotted);
            }
        }
        // Keep the last CARRY bytes, from a character's start.
        let mut keep_from = self.carry.len().saturating_sub(CARRY);
        while !self.carry.is_char_boundary(keep_from) {
            keep_from += 1;
        }
        self.carry.drain(..keep_from);
    }

    /// The block stdout printed, if any (`"continue": false` over a decision).
    pub fn finish(self) -> Option<Spotted> {
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spot(chunks: &[&str]) -> Option<Spotted> {
        let mut spotter = BlockSpotter::default();
        for chunk in chunks {
            spotter.feed(chunk);
        }
        spotter.finish()
    }

    #[test]
    fn the_words_of_a_block_are_spotted_anywhere_even_cut_between_chunks() {
        assert_eq!(
            spot(&[r#"{"decision": "block", "reason": "x"}"#]),
            Some(Spotted::Decision)
        );
        assert_eq!(
            spot(&[r#"log {"continue":false}"#]),
            Some(Spotted::Continue)
        );
        assert_eq!(
            spot(&[
                r#"{"hookSpecificOutput":{"permissionDe"#,
                r#"cision" :  "Deny"}}"#
            ]),
            Some(Spotted::Decision)
        );
        let flood = "x".repeat(3 << 20);
        assert_eq!(
            spot(&[&flood, r#"{"decision":"#, "\"block\"}", &flood]),
            Some(Spotted::Decision)
        );
        assert_eq!(
            spot(&[r#"{"decision":"block"}"#, r#"{"continue": false}"#]),
            Some(Spotted::Continue)
        );
    }

    #[test]
    fn other_words_are_not_a_block() {
        assert_eq!(
            spot(&[r#"{"continue": true, "decision": "approve"}"#]),
            None
        );
        assert_eq!(spot(&[r#"{"permissionDecision": "allow"}"#]), None);
        assert_eq!(spot(&["decision: block", "continue false"]), None);
        assert_eq!(spot(&[""]), None);
        // Text cut inside a character is carried whole.
        assert_eq!(
            spot(&["é".repeat(400).as_str(), "\"decision\":\"block\""]),
            Some(Spotted::Decision)
        );
    }
}
