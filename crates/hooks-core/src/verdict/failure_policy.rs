//! The failure policy: which ways a hook's run can fail (`onFailure`) count as a cancel, and the
//! sentence that says so in the combined `errorMessage`.

use std::time::Duration;

use super::{Combined, OnFailure};
use crate::process::{Execution, FailureKind};

/// What each kind of failure means. The default allows every one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FailurePolicy {
    /// A hook still running at its deadline (or waiting for a slot until it).
    pub timeout: OnFailure,
    /// A hook that exited non-zero or was killed.
    pub crash: OnFailure,
    /// A hook that could not start.
    pub start_failure: OnFailure,
    /// A hook that exited 0 but printed output that cannot be used.
    pub invalid_output: OnFailure,
}

impl FailurePolicy {
    /// The same answer for every kind (`onFailure: 'allow'` or `'block'`).
    pub fn all(on_failure: OnFailure) -> FailurePolicy {
        FailurePolicy {
            timeout: on_failure,
            crash: on_failure,
            start_failure: on_failure,
            invalid_output: on_failure,
        }
    }

    /// Every failure blocks.
    pub fn block() -> FailurePolicy {
        FailurePolicy::all(OnFailure::Block)
    }

    /// No failure blocks (the default).
    pub fn allow() -> FailurePolicy {
        FailurePolicy::all(OnFailure::Allow)
    }

    /// What a failure of `kind` means.
    pub fn for_kind(&self, kind: FailureKind) -> OnFailure {
        match kind {
            FailureKind::Timeout => self.timeout,
            FailureKind::Crash => self.crash,
            FailureKind::StartFailure => self.start_failure,
            FailureKind::InvalidOutput => self.invalid_output,
        }
    }
}

/// Applies the failure policies to a run's `executions` (in run order) and their `combined`
/// verdict: `policy_of(i)` is the policy of `executions[i]` (the run's, or its header's
/// `onFailure=`). Each execution whose failure kind its policy blocks sets `cancel` and adds
/// one line to `errorMessage`, after the hooks' own messages, naming the hook and what
/// happened (a timeout names the execution's own timeout). Executions without a failure kind
/// (completed, skipped, started detached, aborted, stopped by `terminateAll()`) never block.
pub fn apply_failure_policy(
    policy_of: impl Fn(usize) -> FailurePolicy,
    executions: &[Execution],
    combined: &mut Combined,
) {
    let mut lines = Vec::new();
    for (index, exec) in executions.iter().enumerate() {
        let Some(kind) = exec.failure_kind else {
            continue;
        };
        if policy_of(index).for_kind(kind) != OnFailure::Block {
            continue;
        }
        let ambiguous = executions
            .iter()
            .filter(|e| e.hook_name == exec.hook_name && e.source == exec.source)
            .count()
            > 1;
        lines.push(blocking_sentence(exec, kind, ambiguous));
    }
    if lines.is_empty() {
        return;
    }
    combined.cancel = true;
    if !combined.error_message.is_empty() {
        lines.insert(0, std::mem::take(&mut combined.error_message));
    }
    combined.error_message = lines.join("\n");
}

/// `PreToolUse (workspace) timed out after 30 s; blocking because onFailure.timedOut is
/// "block"`, on one line. `ambiguous`: another hook of the run has the same name and source,
/// so the path is named too.
fn blocking_sentence(exec: &Execution, kind: FailureKind, ambiguous: bool) -> String {
    let who = if ambiguous {
        format!(
            "{} ({}, {})",
            exec.hook_name,
            exec.source.as_str(),
            exec.path.display()
        )
    } else {
        format!("{} ({})", exec.hook_name, exec.source.as_str())
    };
    let failure = exec.failure.as_deref().unwrap_or("");
    let what = match kind {
        FailureKind::Timeout => format!("timed out after {}", seconds_or_millis(exec.timeout)),
        FailureKind::Crash => match (exec.exit_code, &exec.signal) {
            (Some(code), _) => format!("exited with code {code}"),
            (None, Some(signal)) => format!("was killed by {signal}"),
            (None, None) if failure.is_empty() => "failed".to_owned(),
            (None, None) => format!("failed: {failure}"),
        },
        FailureKind::StartFailure => format!(
            "could not start: {}",
            failure.strip_prefix("could not start: ").unwrap_or(failure)
        ),
        FailureKind::InvalidOutput => format!("printed output that cannot be used: {failure}"),
    };
    let line = format!(
        "{who} {what}; blocking because onFailure.{} is \"block\"",
        kind.as_str()
    );
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `30 s` for whole seconds, `1.5 s` from a second up, else `250 ms`.
fn seconds_or_millis(d: Duration) -> String {
    let ms = d.as_millis();
    if ms >= 1000 && ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else if ms >= 1000 && ms.is_multiple_of(100) {
        format!("{:.1} s", d.as_secs_f64())
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::DiscoveredHook;
    use crate::process::Status;
    use crate::verdict::combine;

    fn exec(path: &str, status: Status, kind: Option<FailureKind>) -> Execution {
        let hook = DiscoveredHook::sample(path);
        let mut exec = Execution::of(&hook, status);
        exec.failure_kind = kind;
        exec.timeout = Duration::from_secs(30);
        exec
    }

    fn timed_out() -> Execution {
        let mut e = exec(
            "/w/PreToolUse",
            Status::TimedOut,
            Some(FailureKind::Timeout),
        );
        e.failure = Some("did not finish within 30000 ms, so ...".into());
        e
    }

    fn applied(policy: FailurePolicy, executions: &[Execution]) -> Combined {
        let mut combined = combine(executions);
        apply_failure_policy(|_| policy, executions, &mut combined);
        combined
    }

    #[test]
    fn the_default_allows_every_failure() {
        assert_eq!(FailurePolicy::default(), FailurePolicy::allow());
        let combined = applied(FailurePolicy::default(), &[timed_out()]);
        assert!(!combined.cancel);
        assert_eq!(combined.error_message, "");
    }

    #[test]
    fn a_blocked_timeout_cancels_with_the_sentence() {
        let combined = applied(FailurePolicy::block(), &[timed_out()]);
        assert!(combined.cancel);
        assert_eq!(
            combined.error_message,
            "PreToolUse (workspace) timed out after 30 s; blocking because onFailure.timedOut is \"block\""
        );
    }

    #[test]
    fn each_kind_is_named_with_what_happened() {
        let mut code = exec("/a", Status::Failed, Some(FailureKind::Crash));
        code.exit_code = Some(3);
        let mut killed = exec("/b", Status::Failed, Some(FailureKind::Crash));
        killed.signal = Some("SIGKILL (9)".into());
        let mut start = exec("/c", Status::Failed, Some(FailureKind::StartFailure));
        start.failure = Some("could not start: /c no longer exists\n(deleted)".into());
        let mut output = exec("/d", Status::Failed, Some(FailureKind::InvalidOutput));
        output.failure = Some("printed JSON that is never closed".into());
        let policy = FailurePolicy::block();
        let line = |e: &Execution| blocking_sentence(e, e.failure_kind.unwrap(), false);
        assert_eq!(
            line(&code),
            "PreToolUse (workspace) exited with code 3; blocking because onFailure.crash is \"block\""
        );
        assert_eq!(
            line(&killed),
            "PreToolUse (workspace) was killed by SIGKILL (9); blocking because onFailure.crash is \"block\""
        );
        assert_eq!(
            line(&start),
            "PreToolUse (workspace) could not start: /c no longer exists (deleted); blocking because onFailure.startFailure is \"block\""
        );
        assert_eq!(
            line(&output),
            "PreToolUse (workspace) printed output that cannot be used: printed JSON that is never closed; blocking because onFailure.invalidOutput is \"block\""
        );
        let combined = applied(policy, &[code, killed, start, output]);
        assert!(combined.cancel);
        assert_eq!(combined.error_message.lines().count(), 4);
        // Four hooks of one name and source: each line names its file.
        assert!(combined
            .error_message
            .starts_with("PreToolUse (workspace, /a) exited with code 3"));
    }

    #[test]
    fn only_the_kinds_set_to_block_block() {
        let crash = exec("/a", Status::Failed, Some(FailureKind::Crash));
        let policy = FailurePolicy {
            crash: OnFailure::Block,
            ..FailurePolicy::default()
        };
        assert!(!applied(policy, &[timed_out()]).cancel);
        assert!(applied(policy, std::slice::from_ref(&crash)).cancel);
        let policy = FailurePolicy {
            timeout: OnFailure::Block,
            ..FailurePolicy::default()
        };
        assert!(!applied(policy, &[crash]).cancel);
    }

    #[test]
    fn aborted_started_and_completed_runs_never_block() {
        let executions = [
            exec("/a", Status::Aborted, None),
            exec("/b", Status::Started, None),
            exec("/c", Status::Completed, None),
        ];
        let combined = applied(FailurePolicy::block(), &executions);
        assert!(!combined.cancel);
        assert_eq!(combined.error_message, "");
    }

    #[test]
    fn the_sentences_come_after_the_hooks_own_messages() {
        let mut gate = exec("/gate", Status::Completed, None);
        gate.cancel = true;
        gate.error_message = "denied by gate".into();
        let combined = applied(FailurePolicy::block(), &[timed_out(), gate]);
        assert!(combined.cancel);
        let lines: Vec<&str> = combined.error_message.lines().collect();
        assert_eq!(lines[0], "denied by gate");
        assert!(lines[1].starts_with("PreToolUse (workspace"), "{lines:?}");
    }

    #[test]
    fn timeouts_read_in_seconds_or_milliseconds() {
        assert_eq!(seconds_or_millis(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds_or_millis(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds_or_millis(Duration::from_millis(250)), "250 ms");
        assert_eq!(seconds_or_millis(Duration::from_millis(1234)), "1234 ms");
    }
}
