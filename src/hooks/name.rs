//! Which strings are hook names.

use crate::hooks::error::HookError;

/// The hook types Cline fires today. Unknown but well-formed names are still accepted,
/// because new hook types arrive before every caller has been updated.
pub const KNOWN_HOOKS: [&str; 11] = [
    "TaskStart",
    "TaskResume",
    "TaskCancel",
    "TaskComplete",
    "TaskError",
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "PreCompact",
    "SessionShutdown",
    "Notification",
];

const MAX_LEN: usize = 64;

/// Checks `name` against `^[A-Z][A-Za-z0-9]{0,63}$`.
///
/// The name becomes part of a file path, so anything that could walk out of a hooks
/// directory (separators, dots) or name nothing (empty) is refused before any I/O.
pub fn validate(name: &str) -> Result<(), HookError> {
    let reason = if name.is_empty() {
        Some("it is empty")
    } else if name.len() > MAX_LEN {
        Some("it is longer than 64 characters")
    } else if !name.as_bytes()[0].is_ascii_uppercase() {
        Some("it must start with an uppercase letter A-Z")
    } else if !name.bytes().all(|b| b.is_ascii_alphanumeric()) {
        Some("it may only contain letters A-Z, a-z and digits 0-9 (no dots, slashes or spaces)")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(HookError::InvalidHookName {
            name: name.to_owned(),
            reason: reason.to_owned(),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_known_and_future_names() {
        for name in KNOWN_HOOKS {
            assert!(validate(name).is_ok(), "{name}");
        }
        assert!(validate("FutureHook2").is_ok());
        assert!(validate("A").is_ok());
        assert!(validate(&format!("A{}", "b".repeat(63))).is_ok());
    }

    #[test]
    fn rejects_names_that_are_not_plain_identifiers() {
        for bad in [
            "",
            "preToolUse",
            "Pre.ToolUse",
            "../PreToolUse",
            "Pre/Tool",
            "Pre\\Tool",
            "Pre Tool",
            "PreToolUse.ps1",
            "1Hook",
            "Ünicode",
            "Pre-Tool",
        ] {
            let err = validate(bad).unwrap_err();
            assert!(
                err.to_string().contains("not a valid hook name"),
                "{bad}: {err}"
            );
        }
        assert!(validate(&format!("A{}", "b".repeat(64))).is_err());
    }
}
