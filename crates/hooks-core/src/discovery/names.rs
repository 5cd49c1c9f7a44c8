//! Which strings are hook names.

use crate::error::HookError;

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

/// Whether hooks named `hook_name` are told a tool's name (so a header's `tools=` means
/// something to them).
pub fn is_tool_hook(hook_name: &str) -> bool {
    matches!(hook_name, "PreToolUse" | "PostToolUse")
}

/// The hook name that `name` stands for: itself, or the hook a CLI event name maps to.
/// Hook files are always named after the hook (`PreToolUse.sh` serves `tool_call`).
pub fn resolve(name: &str) -> Result<&str, HookError> {
    match event_hook(name) {
        Some(hook) => Ok(hook),
        None => validate(name).map(|()| name),
    }
}

/// The hook the CLI event name `name` stands for; `None` if `name` is not an event name.
pub fn event_hook(name: &str) -> Option<&'static str> {
    CLI_EVENTS
        .iter()
        .find(|(event, _)| *event == name)
        .map(|(_, hook)| *hook)
}

/// Whether `name` is a hook name (`^[A-Z][A-Za-z0-9]{0,63}$`), without building an error:
/// discovery asks this of every entry of a hooks directory.
pub fn is_valid(name: &str) -> bool {
    name.as_bytes().first().is_some_and(u8::is_ascii_uppercase) && is_alphanumeric_name(name)
}

/// Whether `stem` is a hook name in some letter case (`pretooluse`): the CLI profile and
/// Windows match file names to hook names regardless of case.
pub fn is_valid_ignoring_case(stem: &str) -> bool {
    stem.as_bytes().first().is_some_and(u8::is_ascii_alphabetic) && is_alphanumeric_name(stem)
}

fn is_alphanumeric_name(name: &str) -> bool {
    name.len() <= MAX_LEN && name.bytes().all(|b| b.is_ascii_alphanumeric())
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
    fn the_quick_checks_agree_with_validate() {
        for name in [
            "PreToolUse",
            "A",
            "preToolUse",
            "Pre.ToolUse",
            "",
            "1Hook",
            "Ünicode",
            "Pre-Tool",
            &format!("A{}", "b".repeat(63)),
            &format!("A{}", "b".repeat(64)),
        ] {
            assert_eq!(is_valid(name), validate(name).is_ok(), "{name}");
        }
        assert!(is_valid_ignoring_case("pretooluse") && is_valid_ignoring_case("PRETOOLUSE"));
        assert!(!is_valid_ignoring_case("1hook") && !is_valid_ignoring_case("pre-tool"));
        assert!(!is_valid_ignoring_case(""));
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
