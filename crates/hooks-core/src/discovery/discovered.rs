//! The hooks found for one name: each searched folder's picks, in run order (the `cli`
//! profile's is the SDK's, see run_order.rs), with the argv each starts with. Pure: built from listings already read, with no system call.

use std::ffi::OsString;
use std::path::PathBuf;

use super::{
    is_tool_hook, pick, pick_cli, sort_for_cli, Contents, Header, HookSettings, Listing, Platform,
    Profile, Source,
};
use crate::launch::{self, Launch, LaunchKind};
use crate::policy::TrustState;

/// A hook found by discovery: a file that runs for a hook name, or would if it were runnable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveredHook {
    /// The hook name its file carries (`PreToolUse` for the CLI event `tool_call`).
    pub hook_name: String,
    /// Its file.
    pub path: PathBuf,
    /// Which kind of folder it was found in.
    pub source: Source,
    /// The workspace root it runs in; `None` for extra and global folders.
    pub workspace_root: Option<PathBuf>,
    /// How it is started.
    pub kind: LaunchKind,
    /// Why it will not run; `None` means enabled.
    pub disabled: Option<String>,
    /// The argv it starts with; empty when it is disabled or cannot be started.
    pub command: Vec<OsString>,
    /// Why it cannot be started although it is enabled (a missing interpreter): running it
    /// reports `failed` with this sentence.
    pub launch_error: Option<String>,
    /// The program its `#!` line named when discovery read it: a start that fails is
    /// explained from this, never from a second look at a file that may have been replaced.
    pub shebang_program: Option<String>,
    /// The sha256 of its file's bytes when discovery read it, lowercase hex; `None` when it
    /// could not be read or is larger than [`FINGERPRINT_LIMIT`](crate::policy::FINGERPRINT_LIMIT).
    pub sha256: Option<String>,
    /// Where it stands with the user's approvals (see [`TrustScope`](crate::policy::TrustScope)).
    /// An approved hook is started only from bytes with its approved `sha256`.
    pub trust: TrustState,
    /// Its path with the links on its folder's path resolved, when known: the user's policy
    /// store is keyed by it, so a hook approved or disabled through one spelling of its
    /// folder is the same hook through another. A workspace hook whose folder leads out of
    /// its root is keyed in its root (see [`crate::policy::real_path`]): an approval given in
    /// another root does not carry over.
    pub real_path: Option<PathBuf>,
    /// What its header (`cline-hook:` line) asks for.
    pub settings: HookSettings,
    /// What is wrong with its file that does not stop it from running (a malformed header).
    pub warnings: Vec<String>,
    /// A Claude Code settings handler's event, matcher and command (`claudeSettings`); `None`
    /// for a hook file. Its `path` is `<settings file>#<position>`.
    pub claude: Option<std::sync::Arc<crate::claude::ClaudeHook>>,
    /// The sandbox it runs in (`sandbox`); `None`: it runs unconfined. Decided at discovery
    /// (see [`give_sandboxes`](crate::discovery::give_sandboxes)), so every way of running it confines it alike.
    pub sandbox: Option<std::sync::Arc<crate::sandbox::Sandbox>>,
}

impl DiscoveredHook {
    /// Tests: an enabled workspace `PreToolUse` hook at `path`, started directly.
    #[cfg(test)]
    pub(crate) fn sample(path: &str) -> DiscoveredHook {
        DiscoveredHook {
            hook_name: "PreToolUse".into(),
            path: path.into(),
            source: Source::Workspace,
            workspace_root: None,
            kind: LaunchKind::Direct,
            disabled: None,
            command: vec![path.into()],
            launch_error: None,
            shebang_program: None,
            sha256: None,
            trust: TrustState::NotRequired,
            real_path: None,
            settings: HookSettings::default(),
            warnings: Vec::new(),
            claude: None,
            sandbox: None,
        }
    }

    /// A hook of `hook_name` at `path` in `dir`, started as `kind`, disabled for `disabled` if
    /// given, with nothing read of it yet: no argv, digest, header or warnings.
    pub(crate) fn listed(
        hook_name: &str,
        path: PathBuf,
        dir: &super::HookDir,
        kind: LaunchKind,
        disabled: Option<String>,
    ) -> DiscoveredHook {
        DiscoveredHook {
            hook_name: hook_name.to_owned(),
            path,
            source: dir.source,
            workspace_root: dir.workspace_root.clone(),
            kind,
            disabled,
            command: Vec::new(),
            launch_error: None,
            shebang_program: None,
            sha256: None,
            trust: TrustState::NotRequired,
            real_path: None,
            settings: HookSettings::default(),
            warnings: Vec::new(),
            claude: None,
            sandbox: None,
        }
    }

    /// The path the user's policy store knows this hook by.
    pub fn policy_path(&self) -> &std::path::Path {
        self.real_path.as_deref().unwrap_or(&self.path)
    }
}

impl DiscoveredHook {
    /// Whether it runs (it may still fail to start: see `launch_error`).
    pub fn enabled(&self) -> bool {
        self.disabled.is_none()
    }
}

/// Every hook named `hook_name` across `listings`, in run order. Pure: no system call.
pub fn discover(
    hook_name: &str,
    listings: &[Listing],
    profile: Profile,
    platform: &Platform,
) -> Vec<DiscoveredHook> {
    let mut found = Vec::new();
    for Listing {
        dir,
        contents,
        real_dir,
        ..
    } in listings
    {
        let entries = match contents {
            Contents::Missing => continue,
            Contents::Unreadable(why) => {
                // Say so for every hook name: the author must learn why their hook is not seen.
                found.push(DiscoveredHook::listed(
                    hook_name,
                    dir.path.join(hook_name),
                    dir,
                    LaunchKind::Direct,
                    Some(why.clone()),
                ));
                continue;
            }
            Contents::Entries(entries) => entries,
            Contents::Settings(files) => {
                found.extend(super::claude_hooks(hook_name, dir, files));
                continue;
            }
        };
        let picks = match profile {
            Profile::Extension => pick(hook_name, entries, platform),
            Profile::Cli => pick_cli(hook_name, entries),
        };
        for picked in picks {
            let path = dir.path.join(&picked.file_name);
            let entry = entries.iter().find(|entry| entry.name == picked.file_name);
            let sha256 = entry.and_then(|entry| entry.sha256.clone());
            let shebang_program = entry
                .and_then(|entry| entry.shebang.as_deref())
                .map(|line| launch::kernel_shebang(line).0.to_owned())
                .filter(|program| !program.is_empty());
            let mut disabled = picked.disabled;
            if picked.kind == LaunchKind::Cmd && disabled.is_none() {
                disabled = launch::cmd_unsafe_path(&path.to_string_lossy()).map(str::to_owned);
            }
            let (command, launch_error) = match picked.launch {
                Launch::Argv(argv) => (argv, None),
                // The CLI lists a hook it has no way to start as disabled, with the reason.
                Launch::Fails(why) if profile == Profile::Cli => {
                    disabled.get_or_insert(why);
                    (Vec::new(), None)
                }
                Launch::Fails(why) => (Vec::new(), Some(why)),
                Launch::Disabled(why) => {
                    disabled.get_or_insert(why);
                    (Vec::new(), None)
                }
            };
            if let Some(why) = &disabled {
                tracing::debug!(path = %path.display(), why, "hook file will not run");
            }
            let Header {
                mut settings,
                mut warnings,
            } = entry.map(|entry| entry.header.clone()).unwrap_or_default();
            if settings.tools.is_some() && !is_tool_hook(hook_name) {
                settings.tools = None;
                warnings.push(format!(
                    "line {}: tools= in its cline-hook: header applies to PreToolUse and PostToolUse hooks only; remove it (it is ignored for {hook_name})",
                    settings.line.unwrap_or(1)
                ));
            }
            found.push(DiscoveredHook {
                hook_name: hook_name.to_owned(),
                path,
                source: dir.source,
                workspace_root: dir.workspace_root.clone(),
                kind: picked.kind,
                disabled,
                command,
                launch_error,
                shebang_program,
                sha256,
                trust: TrustState::NotRequired,
                real_path: real_dir.as_ref().map(|d| d.join(&picked.file_name)),
                settings,
                warnings,
                claude: None,
                sandbox: None,
            });
        }
    }
    if profile == Profile::Cli {
        sort_for_cli(&mut found);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::hook_files::tests::file;
    use crate::discovery::{
        dir_problem, hook_dirs, launch_for, Defaults, DirError, GlobalDir, HookDir, Layout,
    };
    use crate::launch::tests::FixedMachine;
    use crate::launch::Interpreters;
    use std::path::Path;

    /// `dirs` paired with `contents`, as a scan would give them.
    fn listings(dirs: Vec<HookDir>, contents: Vec<Contents>) -> Vec<Listing> {
        assert_eq!(dirs.len(), contents.len());
        dirs.into_iter()
            .zip(contents)
            .map(|(dir, contents)| Listing {
                dir,
                contents,
                real_dir: None,
                strays: Default::default(),
            })
            .collect()
    }

    #[test]
    fn a_missing_interpreter_fails_the_run_but_leaves_the_hook_enabled() {
        let dirs = hook_dirs(
            &Layout {
                global_hooks_dir: GlobalDir::At("/g".into()),
                ..Layout::default()
            },
            &Defaults::default(),
        );
        let mut hook = file("TaskStart", true);
        hook.launch = Launch::Fails("its #! line names /nonexistent, which does not exist".into());
        let found = discover(
            "TaskStart",
            &listings(dirs, vec![Contents::Entries(vec![hook])]),
            Profile::Extension,
            &Platform::Unix,
        );
        assert!(found[0].enabled());
        let why = found[0].launch_error.as_deref().unwrap();
        assert!(why.contains("/nonexistent, which does not exist"), "{why}");
    }

    #[test]
    fn a_launch_that_cannot_exist_here_disables_the_hook() {
        let dirs = hook_dirs(
            &Layout {
                global_hooks_dir: GlobalDir::At("/g".into()),
                profile: Profile::Cli,
                cline_dir: Some("/c".into()),
                ..Layout::default()
            },
            &Defaults::default(),
        );
        let mut ps1 = file("TaskStart.ps1", false);
        ps1.launch = Launch::Disabled(launch::NO_PWSH.into());
        let found = discover(
            "TaskStart",
            &listings(dirs, vec![Contents::Entries(vec![ps1]), Contents::Missing]),
            Profile::Cli,
            &Platform::Unix,
        );
        assert_eq!(found[0].disabled.as_deref(), Some(launch::NO_PWSH));
        assert!(found[0].command.is_empty() && found[0].launch_error.is_none());
    }

    #[test]
    fn a_hook_with_windows_line_endings_is_reported_with_its_program_as_the_kernel_sees_it() {
        let dir = HookDir {
            path: PathBuf::from("/h"),
            source: Source::Extra,
            workspace_root: None,
        };
        let mut hook = file("PreToolUse", true);
        hook.shebang = Some("/bin/sh\r".into());
        let m = &mut FixedMachine::unix();
        let mut tools = Interpreters::new(m, None, false);
        hook.launch = launch_for(
            Path::new("/h/PreToolUse"),
            hook.shebang.as_deref(),
            Profile::Extension,
            &Platform::Unix,
            &mut tools,
        );
        let found = discover(
            "PreToolUse",
            &listings(vec![dir], vec![Contents::Entries(vec![hook])]),
            Profile::Extension,
            &Platform::Unix,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].shebang_program.as_deref(), Some("/bin/sh\r"));
        let why = found[0].launch_error.as_deref().unwrap_or_default();
        assert!(why.contains("Windows line endings"), "{why}");
    }

    #[test]
    fn discover_builds_paths_commands_and_reports_unreadable_dirs() {
        let dirs = hook_dirs(
            &Layout {
                workspace_roots: vec!["/w".into()],
                global_hooks_dir: GlobalDir::At("/g".into()),
                ..Layout::default()
            },
            &Defaults::default(),
        );
        let expected = Path::new("/w")
            .join(".clinerules")
            .join("hooks")
            .join("TaskStart");
        let mut hook = file("TaskStart", true);
        hook.launch = Launch::Argv(vec![expected.clone().into_os_string()]);
        let found = discover(
            "TaskStart",
            &listings(
                dirs.clone(),
                vec![
                    Contents::Unreadable(dir_problem(
                        Path::new("/g"),
                        DirError::PermissionDenied,
                        "",
                    )),
                    Contents::Entries(vec![hook]),
                ],
            ),
            Profile::Extension,
            &Platform::Unix,
        );
        assert_eq!(found.len(), 2);
        assert!(found[0]
            .disabled
            .as_ref()
            .unwrap()
            .contains("cannot be read"));
        assert_eq!(found[1].path, expected);
        assert_eq!(
            found[1].command,
            vec![found[1].path.clone().into_os_string()]
        );
        assert_eq!(found[1].workspace_root.as_deref(), Some(Path::new("/w")));
        assert!(discover(
            "TaskStart",
            &listings(dirs, vec![Contents::Missing, Contents::Missing]),
            Profile::Extension,
            &Platform::Unix,
        )
        .is_empty());
    }
}
