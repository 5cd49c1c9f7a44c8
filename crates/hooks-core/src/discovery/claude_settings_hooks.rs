//! The hooks a `.claude` folder's settings files give one Cline hook: each command handler
//! written under a Claude event that this hook is (`SessionStart` for `TaskStart` and
//! `TaskResume`), as a [`DiscoveredHook`] that runs `<shell> -c <command>`; a handler that
//! cannot run (another type, a matcher that does not compile, a file that cannot be read) is
//! listed disabled with why, never dropped. Pure: built from what the scan read.

use std::sync::Arc;
use std::time::Duration;

use super::{DiscoveredHook, HookDir, ScannedHandler, SettingsFile};
use crate::claude::{
    cline_hooks_of, closest_name, entry_digest, entry_path, missing_script, unfollowed_warning,
    unknown_names, ClaudeHook, ClaudeMatcher, Handler, Matcher, CLAUDE_EVENTS, CLAUDE_TOOL_NAMES,
};
use crate::launch::{Launch, LaunchKind};

/// The hooks named `hook_name` that `files` (the settings of `dir`) give, in the files' order.
pub fn claude_hooks(hook_name: &str, dir: &HookDir, files: &[SettingsFile]) -> Vec<DiscoveredHook> {
    let mut found = Vec::new();
    for file in files {
        let base = |path, disabled: Option<String>| DiscoveredHook {
            // A settings file's hooks are of its own source (the project's, or its local one).
            source: file.source,
            ..DiscoveredHook::listed(hook_name, path, dir, LaunchKind::Shell, disabled)
        };
        if let Some(why) = &file.unreadable {
            // Said for every hook: a guard in a broken file must not vanish quietly.
            found.push(base(
                file.path.clone(),
                Some(format!("this Claude settings file: {why}")),
            ));
            continue;
        }
        let mut first = found.len();
        let mut file_warnings = event_warnings(file, hook_name);
        for scanned in &file.entries {
            let ScannedHandler {
                entry,
                scripts,
                missing,
                unfollowed,
            } = scanned;
            if !cline_hooks_of(&entry.event).contains(&hook_name) {
                continue;
            }
            let path = entry_path(&file.path, &entry.position);
            let mut hook = base(path, None);
            hook.real_path = Some(entry_path(&file.real_path, &entry.position));
            let matcher = ClaudeMatcher::new(entry.matcher.clone());
            let (command, timeout) = match &entry.handler {
                Handler::Command { command, timeout } => (command.clone(), *timeout),
                Handler::Unsupported { kind } => {
                    hook.disabled = Some(format!(
                        "its type is {}: only \"command\" handlers run here (Claude Code's http, prompt, agent and mcp_tool handlers do not)",
                        serde_json::Value::String(kind.clone())
                    ));
                    (String::new(), None)
                }
            };
            if let (None, Err(why)) = (&hook.disabled, &matcher.compiled) {
                hook.disabled = Some(why.clone());
            }
            if hook.disabled.is_none() && command.contains('\0') {
                hook.disabled = Some(
                    "its command contains a NUL character, which no shell can run; remove it"
                        .to_owned(),
                );
            }
            if file.disable_all_hooks {
                hook.disabled = Some(
                    "its settings file sets \"disableAllHooks\": true, so Claude Code runs none of its hooks, and neither does this runtime"
                        .to_owned(),
                );
            }
            if hook.disabled.is_none() {
                match &file.shell {
                    Launch::Argv(shell) => {
                        hook.command = vec![shell[0].clone(), "-c".into(), command.clone().into()];
                    }
                    Launch::Fails(why) | Launch::Disabled(why) => {
                        hook.launch_error = Some(why.clone())
                    }
                }
            }
            hook.warnings
                .extend(matcher_warning(&entry.event, &matcher));
            let cannot_cover = scripts
                .iter()
                .find_map(|s| super::unfingerprintable(s).map(|why| (&s.0, why)));
            if let Some((path, why)) = cannot_cover {
                hook.warnings.push(format!(
                    "{} cannot be covered by an approval ({why}), so under trust this hook cannot be approved",
                    path.display()
                ));
            }
            hook.warnings
                .extend(missing.iter().map(|path| missing_script(path)));
            // Said rather than guessed: the files it runs may be others than those covered.
            if !unfollowed.is_empty() {
                hook.warnings.push(unfollowed_warning(unfollowed));
            }
            // What cannot be fingerprinted cannot be approved: no digest, so no approval holds.
            hook.sha256 = cannot_cover
                .is_none()
                .then(|| entry_digest(&entry.event, entry.matcher.as_deref(), &command, scripts));
            hook.settings.timeout = timeout.map(|t| t.max(Duration::from_millis(1)));
            hook.claude = Some(Arc::new(ClaudeHook {
                event: entry.event.clone(),
                matcher,
                command,
                file: file.path.clone(),
                position: entry.position.clone(),
                scripts: scripts.clone(),
                missing: missing.clone(),
            }));
            found.push(hook);
        }
        // What is wrong with the file is said with its first hook of this name: what concerns
        // this hook's events, and what concerns the whole file.
        file_warnings.extend(
            file.warnings
                .iter()
                .filter(|w| concerns(w, hook_name))
                .cloned(),
        );
        let warnings: Vec<&String> = file_warnings.iter().collect();
        if !warnings.is_empty() {
            if first == found.len() {
                found.push(base(file.path.clone(), None));
                first = found.len() - 1;
                let said: Vec<&str> = warnings.iter().map(|w| w.as_str()).collect();
                found[first].disabled =
                    Some(format!("this Claude settings file {}", said.join("; ")));
            } else {
                found[first]
                    .warnings
                    .extend(warnings.iter().map(|w| format!("its settings file {w}")));
            }
        }
    }
    found
}

/// Whether a settings file's `warning` concerns the hook `hook_name`: it names a place under
/// an event that this hook runs (`hooks.PreToolUse[0]...`), or no event's place at all.
fn concerns(warning: &str, hook_name: &str) -> bool {
    let mut events = warning.match_indices("hooks.").filter_map(|(at, _)| {
        let rest = &warning[at + "hooks.".len()..];
        let end = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        (end > 0).then(|| &rest[..end])
    });
    let mut any = false;
    let relevant = events.any(|event| {
        any = true;
        cline_hooks_of(event).contains(&hook_name)
    });
    relevant || !any
}

/// What to say of `file`'s event keys on a run of `hook_name`: a key that is no Claude event
/// (a typo: its handlers never run anywhere), on every hook; a Claude event Cline has no
/// moment for (`SubagentStop`), once a task, on `TaskStart`.
fn event_warnings(file: &SettingsFile, hook_name: &str) -> Vec<String> {
    let mut said: Vec<&str> = Vec::new();
    let mut warnings = Vec::new();
    for scanned in &file.entries {
        let event = scanned.entry.event.as_str();
        if said.contains(&event) || !cline_hooks_of(event).is_empty() {
            continue;
        }
        said.push(event);
        let shown = serde_json::Value::String(event.to_owned());
        if CLAUDE_EVENTS.contains(&event) {
            if hook_name == "TaskStart" {
                warnings.push(format!(
                    "has handlers under hooks.{event}, but Cline has no {shown} moment, so they never run here (Claude Code still runs them)"
                ));
            }
            continue;
        }
        let meant = closest_name(event, CLAUDE_EVENTS)
            .map(|m| format!(" (did you mean {m}?)"))
            .unwrap_or_default();
        warnings.push(format!(
            "has handlers under {shown}, which is not a Claude Code event{meant}, so they never run; event names are case-sensitive"
        ));
    }
    warnings
}

/// The warning for a tool event's matcher that names a tool no agent has (`Bsh`): it never
/// matches, so its guard would never run.
fn matcher_warning(event: &str, matcher: &ClaudeMatcher) -> Option<String> {
    if !matches!(event, "PreToolUse" | "PostToolUse") {
        return None;
    }
    let Ok(compiled @ Matcher::Names(_)) = &matcher.compiled else {
        return None;
    };
    let unknown: Vec<String> = unknown_names(compiled, CLAUDE_TOOL_NAMES)
        .into_iter()
        .filter(|name| !name.starts_with("mcp__"))
        .collect();
    let first = unknown.first()?;
    let meant = closest_name(first, CLAUDE_TOOL_NAMES)
        .map(|m| format!(" (did you mean {m}?)"))
        .unwrap_or_default();
    Some(format!(
        "its matcher names {}, which is no tool's name{meant}, so it never runs for it; tool names are case-sensitive (Bash, Write, Edit, Read, ...: see docs/claude-code.md)",
        unknown.join(", ")
    ))
}
