//! Required hooks (`DiscoveryOptions.requireHooks`): a run of a hook its host requires, in
//! which no hook of that name started, blocks, and says why none ran. A guard that is
//! missing, misnamed, disabled, untrusted or cannot start is then never skipped silently.
//! Pure.

use crate::discovery::DiscoveredHook;
use crate::process::{Execution, Status};

/// Why a required hook `hook_name` blocks this run: `None` when a hook of it started (or was
/// skipped by its header's `tools=`, which is the hook deciding), else one sentence for the
/// user naming the hook and why none ran. `hooks` are the hooks discovery found for it,
/// `warnings` the run's, `executions` what the run did.
pub fn required_block(
    hook_name: &str,
    hooks: &[DiscoveredHook],
    warnings: &[String],
    executions: &[Execution],
) -> Option<String> {
    let present = executions
        .iter()
        .any(|e| e.started || e.status == Status::Skipped);
    if present {
        return None;
    }
    let why = if let Some(failed) = executions.iter().find(|e| !e.started) {
        let what = failed
            .failure
            .as_deref()
            .unwrap_or("it did not start (the run was stopped first)");
        format!("{} could not start: {what}", failed.path.display())
    } else if let Some(hook) = hooks.iter().find(|h| h.disabled.is_some()) {
        format!(
            "{} is not run: {}",
            hook.path.display(),
            hook.disabled.as_deref().unwrap_or_default()
        )
    } else if let Some(misnamed) = warnings.iter().find(|w| w.contains(" will not run: ")) {
        misnamed.clone()
    } else {
        "no file of it was found in the hooks folders searched".to_owned()
    };
    Some(format!(
        "the {hook_name} hook is required here (requireHooks) and none ran, so this is blocked: {why}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::FailureKind;

    fn execution(status: Status, started: bool) -> Execution {
        let mut e = Execution::of(&DiscoveredHook::sample("/w/PreToolUse"), status);
        e.started = started;
        e
    }

    #[test]
    fn a_started_or_tools_skipped_hook_satisfies_it() {
        for (status, started) in [
            (Status::Completed, true),
            (Status::Failed, true),
            (Status::TimedOut, true),
            (Status::Started, true),
            (Status::Skipped, false),
        ] {
            let runs = [execution(status, started)];
            assert_eq!(
                required_block("PreToolUse", &[], &[], &runs),
                None,
                "{status:?}"
            );
        }
    }

    #[test]
    fn each_way_of_not_running_is_said() {
        let none = required_block("PreToolUse", &[], &[], &[]).unwrap_or_default();
        assert!(
            none.starts_with("the PreToolUse hook is required here (requireHooks) and none ran")
        );
        assert!(none.ends_with("no file of it was found in the hooks folders searched"));

        let mut failed = execution(Status::Failed, false);
        failed.failure = Some("its #! line names /no/such".into());
        failed.failure_kind = Some(FailureKind::StartFailure);
        let said = required_block("PreToolUse", &[], &[], &[failed]).unwrap_or_default();
        assert!(said.ends_with("/w/PreToolUse could not start: its #! line names /no/such"));

        let mut disabled = DiscoveredHook::sample("/w/PreToolUse");
        disabled.disabled = Some("not trusted: new".into());
        let said = required_block("PreToolUse", &[disabled], &[], &[]).unwrap_or_default();
        assert!(said.ends_with("/w/PreToolUse is not run: not trusted: new"));

        let warnings = ["/w/PreToolUse.py will not run: wrong name; fix: mv".to_owned()];
        let said = required_block("PreToolUse", &[], &warnings, &[]).unwrap_or_default();
        assert!(said.ends_with("/w/PreToolUse.py will not run: wrong name; fix: mv"));
    }
}
