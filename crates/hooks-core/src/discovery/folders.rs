//! Which folders are searched for hooks, per profile, and in what order.

use std::collections::HashSet;
use std::path::PathBuf;

use super::Source;

/// One directory to search, in the order hooks run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookDir {
    /// The directory.
    pub path: PathBuf,
    /// Where it came from.
    pub source: Source,
    /// The workspace root it belongs to (its hooks run there); `None` outside workspaces.
    pub workspace_root: Option<PathBuf>,
}

/// Where the global hooks folder is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum GlobalDir {
    /// `<Documents>/Cline/Hooks`, with Documents found the OS's way.
    #[default]
    Default,
    /// Global hooks are off: every global folder of the profile (the CLI's `--no-global`).
    Off,
    /// This folder instead of `<Documents>/Cline/Hooks` (the CLI profile's `$CLINE_DIR/hooks`
    /// is still searched after it).
    At(PathBuf),
}

/// Where the managed hooks folder is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum ManagedDir {
    /// The system's folder (see [`default_managed_dir`]).
    #[default]
    Default,
    /// No managed folder (`managedHooksDir: null`).
    Off,
    /// This folder instead (`managedHooksDir`: tests, or a host with its own policy folder).
    At(PathBuf),
}

/// Which conventions decide the directories and the hook files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Profile {
    /// The VS Code extension's: `.clinerules/hooks`, one executable per hook per directory.
    #[default]
    Extension,
    /// The Cline CLI's: also `~/.cline/hooks` and `.cline/hooks`, files with extensions run
    /// by an interpreter, several per hook, no exec bit needed.
    Cli,
}

/// What to search. A [`Factory`](crate::factory::Factory) makes relative paths absolute
/// against the current directory when it is made (see [`Layout::made_absolute`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Layout {
    /// The workspace roots, in order: each one's hooks folders are searched, and its hooks
    /// run in it.
    pub workspace_roots: Vec<PathBuf>,
    /// Where the global hooks folder is, or that there is none.
    pub global_hooks_dir: GlobalDir,
    /// Folders searched first, in order (`extraHooksDirs`, the CLI's `--hooks-dir`).
    pub extra_hooks_dirs: Vec<PathBuf>,
    /// Whose conventions apply.
    pub profile: Profile,
    /// The CLI's data folder (`$CLINE_DIR`, default `~/.cline`); `None` means the default.
    pub cline_dir: Option<PathBuf>,
    /// The user's policy store (approvals and disabled hooks, see [`crate::policy`]); `None`:
    /// no store, so nothing is disabled or approved by one.
    pub policy_file: Option<PathBuf>,
    /// Which hooks must be approved in the store before they run.
    pub trust: crate::policy::TrustScope,
    /// Where the managed hooks folder is, or that there is none.
    pub managed_hooks_dir: ManagedDir,
    /// The hooks its host requires (`requireHooks`), by hook name: a run of one of them in
    /// which no hook of it starts blocks (see [`crate::event::required_block`]).
    pub require_hooks: std::collections::BTreeSet<String>,
    /// Whether Claude Code's settings files are read for hooks too (`claudeSettings`): the
    /// user's (unless global hooks are off) and each root's `.claude/settings.json` and
    /// `.claude/settings.local.json`, after every hooks folder.
    pub claude_settings: bool,
    /// Which hooks run confined, and what they may do (`sandbox`, `sandboxWritable`,
    /// `sandboxNetwork`); see [`crate::sandbox`].
    pub sandbox: crate::sandbox::SandboxOptions,
}

impl Layout {
    /// The same layout with each relative path made absolute against the current directory
    /// (the paths are searched, and hooks run in the workspace roots, wherever the host
    /// later is). Absolute paths are kept exactly as given.
    pub fn made_absolute(&self) -> Layout {
        fn absolute(path: &PathBuf) -> PathBuf {
            if path.is_absolute() {
                return path.clone();
            }
            std::path::absolute(path).unwrap_or_else(|_| path.clone())
        }
        Layout {
            workspace_roots: self.workspace_roots.iter().map(absolute).collect(),
            global_hooks_dir: match &self.global_hooks_dir {
                GlobalDir::At(dir) => GlobalDir::At(absolute(dir)),
                other => other.clone(),
            },
            extra_hooks_dirs: self.extra_hooks_dirs.iter().map(absolute).collect(),
            profile: self.profile,
            cline_dir: self.cline_dir.as_ref().map(absolute),
            policy_file: self.policy_file.as_ref().map(absolute),
            trust: self.trust,
            managed_hooks_dir: match &self.managed_hooks_dir {
                ManagedDir::At(dir) => ManagedDir::At(absolute(dir)),
                other => other.clone(),
            },
            require_hooks: self.require_hooks.clone(),
            claude_settings: self.claude_settings,
            sandbox: crate::sandbox::SandboxOptions {
                writable: self.sandbox.writable.iter().map(absolute).collect(),
                ..self.sandbox.clone()
            },
        }
    }
}

/// Folders that depend on the user's machine, found at the edge (see `Defaults::find`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Defaults {
    /// `<Documents>/Cline/Hooks`.
    pub global_hooks_dir: Option<PathBuf>,
    /// The `cli` profile's `<Documents>/Cline/Hooks`: `Documents` in the home folder as the
    /// Cline SDK finds it (see [`sdk_home`]), whatever the system names its documents folder.
    pub cli_global_hooks_dir: Option<PathBuf>,
    /// `$CLINE_DIR` (trimmed, when not blank), else `.cline` in the home folder as the Cline
    /// SDK finds it.
    pub cline_dir: Option<PathBuf>,
    /// The system's managed hooks folder (see [`default_managed_dir`]).
    pub managed_hooks_dir: Option<PathBuf>,
    /// Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `.claude` in the home folder.
    pub claude_dir: Option<PathBuf>,
}

impl Defaults {
    /// Reads the environment and, on Linux, `user-dirs.dirs`: call it off the JavaScript
    /// thread (the factory does, on every rescan, so a changed `CLINE_DIR` or `HOME` is seen).
    pub fn find() -> Defaults {
        let home = sdk_home(|name| std::env::var_os(name), dirs::home_dir());
        Defaults {
            global_hooks_dir: default_global_dir(),
            cli_global_hooks_dir: home
                .as_ref()
                .map(|h| h.join("Documents").join("Cline").join("Hooks")),
            cline_dir: std::env::var_os("CLINE_DIR")
                .and_then(js_trimmed)
                .or_else(|| home.map(|h| h.join(".cline"))),
            managed_hooks_dir: default_managed_dir(std::env::var_os("ProgramData")),
            claude_dir: std::env::var_os("CLAUDE_CONFIG_DIR")
                .and_then(js_trimmed)
                .or_else(|| dirs::home_dir().map(|h| h.join(".claude"))),
        }
    }
}

/// `value` trimmed as JavaScript trims, when anything is left (a value that is not Unicode is
/// kept as it is).
fn js_trimmed(value: std::ffi::OsString) -> Option<PathBuf> {
    let trimmed = match value.to_str() {
        Some(text) => std::ffi::OsString::from(text.trim_matches(crate::verdict::is_js_space)),
        None => value,
    };
    (!trimmed.is_empty()).then(|| PathBuf::from(trimmed))
}

/// The home folder as the Cline SDK finds it (`@cline/shared` 0.0.86): `HOME` unless it is
/// `~`, else `USERPROFILE`, else `HOMEDRIVE` followed by `HOMEPATH`, else `system` (the
/// system's own idea of it), each trimmed as JavaScript trims. Pure: `get` reads a variable.
pub fn sdk_home(
    get: impl Fn(&str) -> Option<std::ffi::OsString>,
    system: Option<PathBuf>,
) -> Option<PathBuf> {
    let not_tilde = |p: &PathBuf| p.as_os_str() != "~";
    if let Some(home) = get("HOME").and_then(js_trimmed).filter(not_tilde) {
        return Some(home);
    }
    if let Some(profile) = get("USERPROFILE").and_then(js_trimmed) {
        return Some(profile);
    }
    if let (Some(drive), Some(path)) = (
        get("HOMEDRIVE").and_then(js_trimmed),
        get("HOMEPATH").and_then(js_trimmed),
    ) {
        let mut joined = drive.into_os_string();
        joined.push(path.as_os_str());
        return Some(joined.into());
    }
    system
        .map(PathBuf::into_os_string)
        .and_then(js_trimmed)
        .filter(not_tilde)
}

/// The directories to search, in order: managed, extra, global, then each workspace root's
/// `.clinerules/hooks`. The CLI profile adds `$CLINE_DIR/hooks` after the global folder and
/// `<root>/.cline/hooks` after each root's `.clinerules/hooks`; `GlobalDir::Off` turns off
/// both global folders.
///
/// A directory named twice is searched once. The managed folder keeps its identity (its first
/// place, its label, its checks) whatever else names it. A global or workspace folder keeps that
/// identity (its place, its label and, for a workspace, its root as working directory) even
/// when it is also named as an extra dir; among global and workspace folders the first
/// place wins.
pub fn hook_dirs(layout: &Layout, defaults: &Defaults) -> Vec<HookDir> {
    let cli = layout.profile == Profile::Cli;
    let cline_hooks = || {
        layout
            .cline_dir
            .clone()
            .or_else(|| defaults.cline_dir.clone())
            .filter(|_| cli)
            .map(|d| d.join("hooks"))
    };
    let global_paths: Vec<PathBuf> = match &layout.global_hooks_dir {
        GlobalDir::Off => Vec::new(),
        GlobalDir::Default => if cli {
            &defaults.cli_global_hooks_dir
        } else {
            &defaults.global_hooks_dir
        }
        .clone()
        .into_iter()
        .chain(cline_hooks())
        .collect(),
        GlobalDir::At(p) => std::iter::once(p.clone()).chain(cline_hooks()).collect(),
    };
    let global = global_paths.into_iter().map(|path| HookDir {
        path,
        source: Source::Global,
        workspace_root: None,
    });
    let subdirs: &[&str] = if cli {
        &[".clinerules", ".cline"]
    } else {
        &[".clinerules"]
    };
    let workspace = layout.workspace_roots.iter().flat_map(|root| {
        subdirs.iter().map(move |sub| HookDir {
            path: root.join(sub).join("hooks"),
            source: Source::Workspace,
            workspace_root: Some(root.clone()),
        })
    });
    let managed = match &layout.managed_hooks_dir {
        ManagedDir::Off => None,
        ManagedDir::Default => defaults.managed_hooks_dir.clone(),
        ManagedDir::At(p) => Some(p.clone()),
    }
    .map(|path| HookDir {
        path,
        source: Source::Managed,
        workspace_root: None,
    });
    // Sets, not pairwise searches: a caller may pass thousands of roots.
    let mut seen: HashSet<PathBuf> = managed.iter().map(|d| d.path.clone()).collect();
    let owned: Vec<HookDir> = global
        .chain(workspace)
        .filter(|dir| seen.insert(dir.path.clone()))
        .collect();
    let mut dirs: Vec<HookDir> = managed.into_iter().collect();
    for path in &layout.extra_hooks_dirs {
        if seen.insert(path.clone()) {
            dirs.push(HookDir {
                path: path.clone(),
                source: Source::Extra,
                workspace_root: None,
            });
        }
    }
    dirs.extend(owned);
    if layout.claude_settings {
        dirs.extend(claude_dirs(layout, defaults));
    }
    dirs
}

/// The folders to watch for a scan of `dirs`: `dirs`, and each project's `.claude/hooks`, where
/// the scripts its settings' commands run usually are (a change there changes what an approval
/// covers). A script elsewhere is seen changed within the factory's revalidation by age, and
/// at its start in any case.
pub fn watched_dirs(dirs: &[HookDir]) -> Vec<HookDir> {
    let scripts = dirs
        .iter()
        .filter(|d| d.source == Source::ClaudeProject)
        .map(|d| HookDir {
            path: d.path.join("hooks"),
            ..d.clone()
        });
    dirs.iter().cloned().chain(scripts).collect()
}

/// The folders of Claude Code's settings files, in Claude Code's order: the user's, then each
/// root's `.claude` (its `settings.json`, then `settings.local.json`).
fn claude_dirs(layout: &Layout, defaults: &Defaults) -> Vec<HookDir> {
    let user = match layout.global_hooks_dir {
        GlobalDir::Off => None,
        _ => defaults.claude_dir.clone(),
    }
    .map(|path| HookDir {
        path,
        source: Source::ClaudeUser,
        workspace_root: None,
    });
    let mut seen = HashSet::new();
    user.into_iter()
        .chain(layout.workspace_roots.iter().map(|root| HookDir {
            path: root.join(".claude"),
            source: Source::ClaudeProject,
            workspace_root: Some(root.clone()),
        }))
        .filter(|dir| seen.insert(dir.path.clone()))
        .collect()
}

/// `<Documents>/Cline/Hooks`: the Documents known folder on Windows (OneDrive redirection
/// included), `XDG_DOCUMENTS_DIR` on Linux, `~/Documents` otherwise.
pub fn default_global_dir() -> Option<PathBuf> {
    let documents =
        dirs::document_dir().or_else(|| dirs::home_dir().map(|h| h.join("Documents")))?;
    Some(documents.join("Cline").join("Hooks"))
}

/// The system's managed hooks folder: `/Library/Application Support/Cline/Hooks` on macOS,
/// `<ProgramData>\Cline\Hooks` on Windows (`program_data` is the `ProgramData` variable;
/// `C:\ProgramData` without it), `/etc/cline/hooks` elsewhere. Pure: names a folder that
/// normally does not exist, and costs nothing until the scan finds it missing.
pub fn default_managed_dir(program_data: Option<std::ffi::OsString>) -> Option<PathBuf> {
    if cfg!(windows) {
        let base = program_data
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .unwrap_or_else(|| PathBuf::from(r"C:\ProgramData"));
        Some(base.join("Cline").join("Hooks"))
    } else if cfg!(target_os = "macos") {
        Some(PathBuf::from("/Library/Application Support/Cline/Hooks"))
    } else {
        let _ = program_data;
        Some(PathBuf::from("/etc/cline/hooks"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn defaults(global: &str) -> Defaults {
        Defaults {
            global_hooks_dir: Some(global.into()),
            cli_global_hooks_dir: Some(global.into()),
            cline_dir: Some("/home/u/.cline".into()),
            managed_hooks_dir: None,
            claude_dir: Some("/home/u/.claude".into()),
        }
    }

    #[test]
    fn claude_settings_folders_come_last_the_users_then_each_roots_and_only_when_asked() {
        let mut layout = Layout {
            workspace_roots: vec!["/a".into(), "/b".into()],
            ..Layout::default()
        };
        let before = hook_dirs(&layout, &defaults("/g"));
        assert!(before.iter().all(|d| !d.source.is_claude()));
        layout.claude_settings = true;
        let dirs = hook_dirs(&layout, &defaults("/g"));
        assert_eq!(dirs[..before.len()], before[..]);
        let claude: Vec<(String, Source, Option<PathBuf>)> = dirs[before.len()..]
            .iter()
            .map(|d| {
                (
                    // Windows joins with `\`.
                    d.path.to_string_lossy().replace('\\', "/"),
                    d.source,
                    d.workspace_root.clone(),
                )
            })
            .collect();
        assert_eq!(
            claude,
            [
                ("/home/u/.claude".to_owned(), Source::ClaudeUser, None),
                (
                    "/a/.claude".to_owned(),
                    Source::ClaudeProject,
                    Some("/a".into())
                ),
                (
                    "/b/.claude".to_owned(),
                    Source::ClaudeProject,
                    Some("/b".into())
                ),
            ]
        );
        // Global hooks off: the user's Claude settings too.
        layout.global_hooks_dir = GlobalDir::Off;
        let dirs = hook_dirs(&layout, &defaults("/g"));
        assert!(dirs.iter().all(|d| d.source != Source::ClaudeUser));
        assert_eq!(dirs.iter().filter(|d| d.source.is_claude()).count(), 2);
    }

    /// Issue 34 (attack B3, B4): the cli profile's home is the Cline SDK's.
    #[test]
    fn the_sdk_home_is_home_trimmed_then_userprofile_then_homedrive_and_homepath() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        let system = Some(PathBuf::from("/sys/home"));
        assert_eq!(
            sdk_home(env(&[("HOME", " /h \u{feff}")]), None),
            Some("/h".into())
        );
        assert_eq!(
            sdk_home(env(&[("HOME", "~"), ("USERPROFILE", "/p")]), None),
            Some("/p".into())
        );
        assert_eq!(
            sdk_home(
                env(&[
                    ("HOME", "  "),
                    ("HOMEDRIVE", "C:"),
                    ("HOMEPATH", "\\Users\\u")
                ]),
                None
            ),
            Some("C:\\Users\\u".into())
        );
        assert_eq!(sdk_home(env(&[]), system.clone()), system);
        assert_eq!(sdk_home(env(&[]), Some("~".into())), None);
    }

    fn paths_and_sources(dirs: &[HookDir]) -> Vec<(PathBuf, Source, Option<PathBuf>)> {
        dirs.iter()
            .map(|d| (d.path.clone(), d.source, d.workspace_root.clone()))
            .collect()
    }

    #[test]
    fn cli_profile_adds_cline_dir_and_dot_cline_folders() {
        let layout = Layout {
            workspace_roots: vec!["/w1".into(), "/w2".into()],
            extra_hooks_dirs: vec!["/x".into()],
            profile: Profile::Cli,
            ..Layout::default()
        };
        let got: Vec<_> = hook_dirs(&layout, &defaults("/docs/Cline/Hooks"))
            .into_iter()
            .map(|d| (d.path, d.source))
            .collect();
        let want: Vec<(PathBuf, Source)> = vec![
            ("/x".into(), Source::Extra),
            ("/docs/Cline/Hooks".into(), Source::Global),
            ("/home/u/.cline/hooks".into(), Source::Global),
            ("/w1/.clinerules/hooks".into(), Source::Workspace),
            ("/w1/.cline/hooks".into(), Source::Workspace),
            ("/w2/.clinerules/hooks".into(), Source::Workspace),
            ("/w2/.cline/hooks".into(), Source::Workspace),
        ];
        assert_eq!(got, want);
        let moved = Layout {
            cline_dir: Some("/cd".into()),
            global_hooks_dir: GlobalDir::At("/g".into()),
            ..layout
        };
        assert_eq!(
            hook_dirs(&moved, &defaults("/d"))[2].path,
            Path::new("/cd/hooks")
        );
    }

    #[test]
    fn no_global_turns_off_every_global_folder_of_the_cli_profile() {
        for cline_dir in [None, Some(PathBuf::from("/cd"))] {
            let layout = Layout {
                workspace_roots: vec!["/w".into()],
                global_hooks_dir: GlobalDir::Off,
                profile: Profile::Cli,
                cline_dir,
                ..Layout::default()
            };
            let dirs = hook_dirs(&layout, &defaults("/docs/Cline/Hooks"));
            assert!(
                dirs.iter().all(|d| d.source == Source::Workspace),
                "{dirs:?}"
            );
            assert_eq!(dirs.len(), 2);
        }
    }

    #[test]
    fn directory_order_is_extra_global_then_workspaces_without_duplicates() {
        let layout = Layout {
            workspace_roots: vec!["/w1".into(), "/w2".into(), "/w1".into()],
            global_hooks_dir: GlobalDir::Default,
            extra_hooks_dirs: vec!["/x".into(), "/y".into(), "/x".into()],
            ..Layout::default()
        };
        let dirs = hook_dirs(&layout, &defaults("/docs/Cline/Hooks"));
        // Paths are compared as paths, not text: on Windows `join` adds `\`.
        let got: Vec<_> = dirs.iter().map(|d| (d.path.clone(), d.source)).collect();
        let want: Vec<(PathBuf, Source)> = vec![
            ("/x".into(), Source::Extra),
            ("/y".into(), Source::Extra),
            ("/docs/Cline/Hooks".into(), Source::Global),
            ("/w1/.clinerules/hooks".into(), Source::Workspace),
            ("/w2/.clinerules/hooks".into(), Source::Workspace),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn an_extra_dir_that_is_a_workspace_or_global_folder_is_searched_once_as_that_folder() {
        let layout = Layout {
            workspace_roots: vec!["/w1".into(), "/w2".into()],
            global_hooks_dir: GlobalDir::Default,
            extra_hooks_dirs: vec![
                "/w2/.clinerules/hooks".into(),
                "/x".into(),
                "/docs/Cline/Hooks".into(),
                "/w1/.cline/hooks".into(),
                "/home/u/.cline/hooks".into(),
            ],
            profile: Profile::Cli,
            ..Layout::default()
        };
        let got = paths_and_sources(&hook_dirs(&layout, &defaults("/docs/Cline/Hooks")));
        let ws = |p: &str, root: &str| (PathBuf::from(p), Source::Workspace, Some(root.into()));
        let want = vec![
            (PathBuf::from("/x"), Source::Extra, None),
            ("/docs/Cline/Hooks".into(), Source::Global, None),
            ("/home/u/.cline/hooks".into(), Source::Global, None),
            ws("/w1/.clinerules/hooks", "/w1"),
            ws("/w1/.cline/hooks", "/w1"),
            ws("/w2/.clinerules/hooks", "/w2"),
            ws("/w2/.cline/hooks", "/w2"),
        ];
        assert_eq!(got, want);

        // The extension profile too; and a moved global folder named as extra is global.
        let layout = Layout {
            workspace_roots: vec!["/w".into()],
            global_hooks_dir: GlobalDir::At("/g".into()),
            extra_hooks_dirs: vec!["/w/.clinerules/hooks".into(), "/g".into()],
            ..Layout::default()
        };
        let got = paths_and_sources(&hook_dirs(&layout, &defaults("/d")));
        assert_eq!(
            got,
            vec![
                (PathBuf::from("/g"), Source::Global, None),
                ws("/w/.clinerules/hooks", "/w"),
            ]
        );
    }

    #[test]
    fn the_managed_folder_comes_first_in_both_profiles_and_keeps_its_identity() {
        for profile in [Profile::Extension, Profile::Cli] {
            let layout = Layout {
                workspace_roots: vec!["/w".into()],
                extra_hooks_dirs: vec!["/x".into(), "/m".into()],
                global_hooks_dir: GlobalDir::At("/m".into()),
                managed_hooks_dir: ManagedDir::At("/m".into()),
                profile,
                ..Layout::default()
            };
            let dirs = paths_and_sources(&hook_dirs(&layout, &defaults("/d")));
            assert_eq!(dirs[0], (PathBuf::from("/m"), Source::Managed, None));
            assert_eq!(dirs[1], (PathBuf::from("/x"), Source::Extra, None));
            // Named again as extra and as global: searched once, as the managed folder.
            assert_eq!(
                dirs.iter().filter(|d| d.0 == Path::new("/m")).count(),
                1,
                "{dirs:?}"
            );
        }
        let mut layout = Layout {
            global_hooks_dir: GlobalDir::Off,
            ..Layout::default()
        };
        let system = Defaults {
            managed_hooks_dir: Some("/etc/cline/hooks".into()),
            ..Defaults::default()
        };
        let got = paths_and_sources(&hook_dirs(&layout, &system));
        assert_eq!(
            got,
            vec![(PathBuf::from("/etc/cline/hooks"), Source::Managed, None)]
        );
        layout.managed_hooks_dir = ManagedDir::Off;
        assert!(hook_dirs(&layout, &system).is_empty());
        assert_eq!(Source::Managed.as_str(), "managed");
    }

    #[test]
    fn the_system_managed_folder_is_the_one_of_this_os() {
        let got = default_managed_dir(Some("D:\\Data".into()));
        let none = default_managed_dir(None);
        if cfg!(windows) {
            assert_eq!(got, Some(PathBuf::from(r"D:\Data\Cline\Hooks")));
            assert_eq!(none, Some(PathBuf::from(r"C:\ProgramData\Cline\Hooks")));
            // A relative ProgramData is not taken (it would move with the current directory).
            assert_eq!(default_managed_dir(Some("rel".into())), none);
        } else if cfg!(target_os = "macos") {
            assert_eq!(
                none,
                Some(PathBuf::from("/Library/Application Support/Cline/Hooks"))
            );
            assert_eq!(got, none);
        } else {
            assert_eq!(none, Some(PathBuf::from("/etc/cline/hooks")));
            assert_eq!(got, none);
        }
    }

    #[test]
    fn global_dir_can_be_moved_or_turned_off() {
        let mut layout = Layout {
            global_hooks_dir: GlobalDir::Off,
            managed_hooks_dir: ManagedDir::Off,
            ..Layout::default()
        };
        assert!(hook_dirs(&layout, &defaults("/d")).is_empty());
        layout.global_hooks_dir = GlobalDir::At("/g".into());
        assert_eq!(hook_dirs(&layout, &defaults("/d"))[0].path, Path::new("/g"));
        layout.global_hooks_dir = GlobalDir::Default;
        assert!(hook_dirs(&layout, &Defaults::default()).is_empty());
    }
}
