//! Many executions, one verdict.
//!
//! A completed hook contributes everything it printed. A hook that failed, timed out or was
//! stopped by `terminateAll()` still contributes an explicit `cancel: true` (with its
//! `errorMessage`): a gate that printed its verdict and then crashed still blocks. Nothing a
//! hook does can discard another's verdict.

use serde_json::{Map, Value};

use crate::process::{Execution, Status};

/// The combined verdict of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Combined {
    /// Whether any hook cancelled (even one that failed, timed out or was stopped after
    /// printing it).
    pub cancel: bool,
    /// The completed hooks' `contextModification`s, trimmed, in run order, joined by a blank
    /// line.
    pub context_modification: String,
    /// The `errorMessage`s of the completed hooks and of every hook that cancelled, trimmed,
    /// one a line.
    pub error_message: String,
    /// Whether any completed hook asked for review.
    pub review: bool,
    /// The `overrideInput` of the last completed hook that printed one.
    pub override_input: Option<Map<String, Value>>,
    /// Index into the executions of the one that took longest.
    pub slowest: Option<usize>,
    /// Sentences about the run as a whole (an `overrideInput` replaced by a later one).
    pub warnings: Vec<String>,
}

/// The verdicts of `executions` (in run order) as one. A completed hook contributes all of
/// its verdict; one that failed, timed out or was stopped only a cancel it printed, with its
/// `errorMessage`.
pub fn combine(executions: &[Execution]) -> Combined {
    let mut combined = Combined::default();
    let mut contexts = Vec::new();
    let mut errors = Vec::new();
    let mut override_from: Option<&Execution> = None;

    for exec in executions {
        let counts_fully = exec.status == Status::Completed;
        // Even a hook stopped by terminateAll() keeps the cancel it printed before it was
        // stopped (a run aborted by its signal rejects, so its verdicts never reach anyone).
        let cancels = exec.cancel;
        combined.cancel |= cancels;
        if counts_fully || cancels {
            push_trimmed(&mut errors, &exec.error_message);
        }
        if !counts_fully {
            continue;
        }
        push_trimmed(&mut contexts, &exec.context_modification);
        combined.review |= exec.review;
        if let Some(input) = &exec.override_input {
            if let Some(previous) = override_from {
                combined.warnings.push(format!(
                    "overrideInput from {} was replaced by the one from {} (the last hook in run order wins)",
                    previous.path.display(),
                    exec.path.display()
                ));
            }
            combined.override_input = Some(input.clone());
            override_from = Some(exec);
        }
    }
    combined.context_modification = contexts.join("\n\n");
    combined.error_message = errors.join("\n");
    combined.slowest = executions
        .iter()
        .enumerate()
        .fold(
            None,
            |best: Option<(usize, &Execution)>, (i, e)| match best {
                Some((_, b)) if b.duration >= e.duration => best,
                _ => Some((i, e)),
            },
        )
        .map(|(i, _)| i);
    combined
}

fn push_trimmed(parts: &mut Vec<String>, text: &str) {
    let trimmed = text.trim();
    if !trimmed.is_empty() {
        parts.push(trimmed.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::DiscoveredHook;
    use std::time::Duration;

    /// A record with nothing printed yet, built as a run builds it.
    fn exec(path: &str, status: Status, ms: u64) -> Execution {
        let hook = DiscoveredHook::sample(path);
        let mut exec = Execution::of(&hook, status);
        exec.exit_code = Some(0);
        exec.duration = Duration::from_millis(ms);
        exec
    }

    #[test]
    fn nothing_ran_means_go_ahead() {
        assert_eq!(combine(&[]), Combined::default());
    }

    #[test]
    fn any_cancel_wins_and_texts_join_in_order() {
        let mut a = exec("/a", Status::Completed, 5);
        a.context_modification = "  first  \n".into();
        let mut b = exec("/b", Status::Completed, 9);
        b.cancel = true;
        b.error_message = "blocked by b".into();
        b.context_modification = "second".into();
        let mut c = exec("/c", Status::Completed, 1);
        c.context_modification = "   ".into();
        c.error_message = "note from c".into();
        let combined = combine(&[a, b, c]);
        assert!(combined.cancel);
        assert_eq!(combined.context_modification, "first\n\nsecond");
        assert_eq!(combined.error_message, "blocked by b\nnote from c");
        assert_eq!(combined.slowest, Some(1));
    }

    #[test]
    fn a_failed_or_timed_out_gate_still_blocks_but_adds_no_context() {
        let mut crashed = exec("/crashed", Status::Failed, 1);
        crashed.cancel = true;
        crashed.error_message = "denied".into();
        crashed.context_modification = "half-done".into();
        let mut hung = exec("/hung", Status::TimedOut, 30_000);
        hung.context_modification = "never mind".into();
        let mut ok = exec("/ok", Status::Completed, 2);
        ok.context_modification = "fine".into();
        let combined = combine(&[crashed, hung, ok]);
        assert!(combined.cancel);
        assert_eq!(combined.error_message, "denied");
        assert_eq!(combined.context_modification, "fine");
        assert_eq!(combined.slowest, Some(1));
    }

    #[test]
    fn a_failure_never_hides_another_hooks_cancel() {
        let failed = exec("/failed", Status::Failed, 1);
        let mut gate = exec("/gate", Status::Completed, 1);
        gate.cancel = true;
        assert!(combine(&[failed.clone(), gate.clone()]).cancel);
        assert!(combine(&[gate, failed]).cancel);
    }

    #[test]
    fn last_override_input_wins_with_a_warning() {
        let mut a = exec("/a", Status::Completed, 1);
        a.override_input = Some(serde_json::json!({"x": 1}).as_object().unwrap().clone());
        let mut b = exec("/b", Status::Completed, 1);
        b.override_input = Some(serde_json::json!({"x": 2}).as_object().unwrap().clone());
        b.review = true;
        let combined = combine(&[a, b]);
        assert_eq!(combined.override_input.unwrap()["x"], 2);
        assert!(combined.review);
        assert!(combined.warnings[0].contains("/a was replaced by the one from /b"));
    }

    #[test]
    fn slowest_prefers_the_first_of_equals() {
        let combined = combine(&[
            exec("/a", Status::Completed, 3),
            exec("/b", Status::Completed, 3),
        ]);
        assert_eq!(combined.slowest, Some(0));
    }
}
