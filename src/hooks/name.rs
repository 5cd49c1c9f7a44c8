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

/// The Cline CLI's event names and the hook each one means.
pub const CLI_EVENTS: [(&str, &str); 9] = [
    ("agent_start", "TaskStart"),
    ("agent_resume", "TaskResume"),
    ("prompt_submit", "UserPromptSubmit"),
    ("tool_call", "PreToolUse"),
    ("tool_result", "PostToolUse"),
    ("agent_end", "TaskComplete"),
    ("agent_error", "TaskError"),
    ("agent_abort", "TaskCancel"),
    ("session_shutdown", "SessionShutdown"),
];

/// The hook name that `name` stands for: itself, or the hook a CLI event name maps to.
/// Hook files are always named after the hook (`PreToolUse.sh` serves `tool_call`).
pub fn resolve(name: &str) -> Result<&str, HookError> {
    if let Some((_, hook)) = CLI_EVENTS.iter().find(|(event, _)| *event == name) {
        return Ok(hook);
    }
    validate(name).map(|()| name)
}

/// Whether a file stem could name a hook in any profile (letters and digits only), so that
/// discovery inspects it.
pub fn could_be_hook(stem: &str) -> bool {
    !stem.is_empty() && stem.len() <= MAX_LEN && stem.bytes().all(|b| b.is_ascii_alphanumeric())
}

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
        Some("it may only contain letters A-Z, a-z and digits 0-9 (no dots, slashes or spaces); CLI event names such as tool_call are also accepted")
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
    fn cli_event_names_resolve_to_hooks() {
        assert_eq!(resolve("tool_call").unwrap(), "PreToolUse");
        assert_eq!(resolve("agent_abort").unwrap(), "TaskCancel");
        assert_eq!(resolve("session_shutdown").unwrap(), "SessionShutdown");
        assert_eq!(resolve("PreToolUse").unwrap(), "PreToolUse");
        assert!(resolve("tool_calls").is_err());
        for (_, hook) in CLI_EVENTS {
            assert!(KNOWN_HOOKS.contains(&hook));
        }
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
