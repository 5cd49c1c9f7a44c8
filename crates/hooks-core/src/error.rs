//! Errors a caller can get back. Everything that goes wrong inside a hook is not an error
//! but a `failed` execution; these are for mistakes in the call itself.

use thiserror::Error;

/// A call this package refuses, or one that did not finish; its `Display` is the sentence
/// for the caller.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum HookError {
    /// The hook name is not one a hook file can have.
    #[error("{} is not a valid hook name: {reason}. Hook names look like PreToolUse or TaskStart.", quoted(.name))]
    InvalidHookName {
        /// The name as given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },

    /// The hook name was not a string at all.
    #[error(
        "the hook name (the first argument) must be a string such as \"PreToolUse\", not {got}."
    )]
    HookNameNotString {
        /// What was given instead, as the sentence names it (`null or undefined`, `the
        /// number 12345`).
        got: String,
    },

    /// The input is not one JSON object; the text says why.
    #[error("invalid input: {0}")]
    InvalidInput(String),

    /// An option has a value it cannot take.
    #[error("invalid option {option}: {reason}")]
    InvalidOption {
        /// The option's name.
        option: &'static str,
        /// What is wrong with its value.
        reason: String,
    },

    /// An option name the call does not know (most often a typo).
    #[error("unknown option {}: {hint}", quoted(.name))]
    UnknownOption {
        /// The name as given.
        name: String,
        /// What to do instead: the option it may have meant, and the call's options.
        hint: String,
    },

    /// The caller aborted the run (its cancellation token fired).
    #[error("the hook run was aborted")]
    Aborted,

    /// Reading the hooks folders did not finish in time: a folder that does not answer.
    #[error("finding the hooks did not finish within {waited_ms} ms: a hooks folder does not answer (a hung network filesystem?), so no hook ran; check the folders with `cline-hooks list`")]
    DiscoveryTimedOut {
        /// How long the call waited.
        waited_ms: u128,
    },

    /// The system refused a thread the call needs: no process or thread to spare.
    #[error("the system refused a thread to {what} ({reason}): too many processes or threads are running (a cgroup's pids.max or RLIMIT_NPROC is reached), so no hook ran; try again once some have ended")]
    NoThread {
        /// What the thread was for.
        what: &'static str,
        /// The system's reason.
        reason: String,
    },

    /// The hooks policy file cannot be read, written or locked; the sentence names the file,
    /// says what is wrong and that nothing was changed.
    #[error("{0}")]
    PolicyFile(String),

    /// A path given to `trustHook`, `untrustHook` or `setHookEnabled` is not a hook file.
    #[error("{path} is not a hook: {reason}")]
    NotAHook {
        /// The path as given.
        path: String,
        /// Why, and what a hook file looks like.
        reason: String,
    },

    /// A call on a `HookFactory`, or on a runner it made, after its `dispose()`.
    #[error("this HookFactory was disposed of (its dispose() was called), so it runs and finds nothing more; create a new HookFactory for more runs")]
    Disposed,

    /// Something failed that should not have (a bug in this package, or a host that broke
    /// its side of a call); the text says what.
    #[error("internal error in @cline/hooks (please report it): {0}")]
    Internal(String),
}

/// The text a panic was raised with (a `&str` or a `String` payload), if it has one: what a
/// caught panic is told as.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
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

    /// A panic's text is found in either payload a panic carries; another payload has none.
    #[test]
    fn a_panic_message_is_read_from_a_str_or_a_string() {
        let text: Box<dyn std::any::Any + Send> =
            Box::new("OS can't spawn worker thread: Resource temporarily unavailable".to_owned());
        assert_eq!(
            panic_message(text.as_ref()),
            Some("OS can't spawn worker thread: Resource temporarily unavailable")
        );
        let literal: Box<dyn std::any::Any + Send> = Box::new("a literal");
        assert_eq!(panic_message(literal.as_ref()), Some("a literal"));
        let other: Box<dyn std::any::Any + Send> = Box::new(7);
        assert_eq!(panic_message(other.as_ref()), None);
    }
}
