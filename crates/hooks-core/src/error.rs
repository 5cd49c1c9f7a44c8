//! Errors a caller can get back. Everything that goes wrong inside a hook is not an error
//! but a `failed` execution; these are for mistakes in the call itself.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum HookError {
    #[error("{} is not a valid hook name: {reason}. Hook names look like PreToolUse or TaskStart.", quoted(.name))]
    InvalidHookName { name: String, reason: String },

    /// The hook name was not a string at all.
    #[error("the hook name must be a string such as \"PreToolUse\", not {got}.")]
    HookNameNotString { got: String },

    #[error("invalid input: {0}")]
    InvalidInput(String),

    #[error("invalid option {option}: {reason}")]
    InvalidOption {
        option: &'static str,
        reason: String,
    },

    /// An option name the call does not know (most often a typo).
    #[error("unknown option {}: {hint}", quoted(.name))]
    UnknownOption { name: String, hint: String },

    #[error("the hook run was aborted")]
    Aborted,

    /// Reading the hooks folders did not finish in time: a folder that does not answer.
    #[error("finding the hooks did not finish within {waited_ms} ms: a hooks folder does not answer (a hung network filesystem?), so no hook ran; check the folders with `cline-hooks list`")]
    DiscoveryTimedOut { waited_ms: u128 },

    #[error("internal error in @cline/hooks (please report it): {0}")]
    Internal(String),
}

/// Longest caller-supplied text repeated in a message: a 50 MB string passed as a name must
/// not become a 50 MB error message.
const QUOTE_LIMIT: usize = 80;

/// `text` in double quotes (JSON-style escapes), cut to a readable length on a character
/// boundary.
pub fn quoted(text: &str) -> String {
    let mut end = text.len().min(QUOTE_LIMIT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let shown = serde_json::Value::from(&text[..end]).to_string();
    if end < text.len() {
        format!("{shown}... ({} bytes)", text.len())
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut_in_messages() {
        let err = HookError::InvalidHookName {
            name: "é".repeat(1_000_000),
            reason: "it is longer than 64 characters".into(),
        };
        let message = err.to_string();
        assert!(message.len() < 300, "{}", message.len());
        assert!(message.contains("(2000000 bytes)"), "{message}");
        assert_eq!(quoted("a\"b"), r#""a\"b""#);
    }
}
