//! The doctor's report of Claude settings handlers (`claudeSettings`): each handler a `.claude`
//! folder's settings give a known hook, with why it will not run or will not do its job, by the
//! same rules as a hook file's (disabled by the user, not trusted) and, for what only a handler
//! can get wrong (another handler type, a matcher that does not compile, a script path that
//! names no file), the place in its settings file to fix. Pure.

use std::path::Path;

use super::rules::{hook_finding, Finding, Problem};
use super::FileReport;
use crate::discovery::{DiscoveredHook, Profile};
use crate::policy::{DISABLED, NOT_TRUSTED_CHANGED, NOT_TRUSTED_NEW};

/// The reports of the handlers of `found` whose settings file is in `dir`, each hook once.
pub(super) fn handler_reports(dir: &Path, found: &[DiscoveredHook]) -> Vec<FileReport> {
    found
        .iter()
        .filter(|h| h.source.is_claude() && h.path.parent() == Some(dir))
        .map(|hook| {
            let finding = handler_finding(hook);
            FileReport {
                path: hook.path.clone(),
                hook_name: Some(hook.hook_name.clone()),
                source: hook.source,
                workspace_root: hook.workspace_root.clone(),
                will_run: finding.is_none(),
                problem: finding.as_ref().map(|f| f.problem),
                reason: finding.as_ref().map(|f| f.reason.clone()),
                fix: finding.and_then(|f| f.fix),
            }
        })
        .collect()
}

/// Why `hook` (a settings handler) will not run or will not do its job, if so.
fn handler_finding(hook: &DiscoveredHook) -> Option<Finding> {
    let place = match &hook.claude {
        Some(claude) => format!("{} at {}", claude.file.display(), claude.position),
        None => hook.path.display().to_string(),
    };
    let fix = Some(format!("edit {place}"));
    if let Some(why) = hook.disabled.as_deref() {
        if [DISABLED, NOT_TRUSTED_NEW, NOT_TRUSTED_CHANGED].contains(&why) {
            return hook_finding(&hook.path, Some(why), None, None, None, Profile::Extension);
        }
        return Some(Finding::new(Problem::CannotRun, why, fix));
    }
    if let Some(why) = hook.launch_error.as_deref() {
        return Some(Finding::new(Problem::CannotRun, why, None));
    }
    let missing = hook.claude.as_ref().and_then(|c| c.missing.first())?;
    Some(Finding::new(
        Problem::MissingScript,
        crate::claude::missing_script(missing),
        fix,
    ))
}
