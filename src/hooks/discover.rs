//! Which directories are searched, which of their files are hooks, and how each one starts.
//!
//! The rules are pure functions over a directory listing, so the Windows rules are tested on
//! Linux too; `scan_dir` is the only part that touches the file system, and it also resolves
//! every interpreter, so that picking hooks from a listing makes no system call.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use crate::hooks::launch::{self, Interpreters, Launch, LaunchKind};
use crate::hooks::name;

/// Where a hooks directory came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// A directory the caller named (`extraHooksDirs`, the CLI's `--hooks-dir`).
    Extra,
    /// The user's global hooks folder.
    Global,
    /// `<root>/.clinerules/hooks` of a workspace root.
    Workspace,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Extra => "extra",
            Source::Global => "global",
            Source::Workspace => "workspace",
        }
    }
}

/// One directory to search, in the order hooks run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookDir {
    pub path: PathBuf,
    pub source: Source,
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

/// What to search. Paths are absolute (the binding makes relative ones absolute).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Layout {
    pub workspace_roots: Vec<PathBuf>,
    pub global_hooks_dir: GlobalDir,
    pub extra_hooks_dirs: Vec<PathBuf>,
    pub profile: Profile,
    /// The CLI's data folder (`$CLINE_DIR`, default `~/.cline`); `None` means the default.
    pub cline_dir: Option<PathBuf>,
}

/// Folders that depend on the user's machine, found at the edge (see `Defaults::find`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Defaults {
    /// `<Documents>/Cline/Hooks`.
    pub global_hooks_dir: Option<PathBuf>,
    /// `$CLINE_DIR`, else `~/.cline`.
    pub cline_dir: Option<PathBuf>,
}

impl Defaults {
    /// Reads the environment and, on Linux, `user-dirs.dirs`: call it off the JavaScript
    /// thread (the factory does, on every rescan, so a changed `CLINE_DIR` or `HOME` is seen).
    pub fn find() -> Defaults {
        Defaults {
            global_hooks_dir: default_global_dir(),
            cline_dir: std::env::var_os("CLINE_DIR")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| dirs::home_dir().map(|h| h.join(".cline"))),
        }
    }
}

/// The directories to search, in order: extra, global, then each workspace root's
/// `.clinerules/hooks`. The CLI profile adds `$CLINE_DIR/hooks` after the global folder and
/// `<root>/.cline/hooks` after each root's `.clinerules/hooks`; `GlobalDir::Off` turns off
/// both global folders.
///
/// A directory named twice is searched once. A global or workspace folder keeps that
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
        GlobalDir::Default => defaults
            .global_hooks_dir
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
    let mut owned: Vec<HookDir> = Vec::new();
    for dir in global.chain(workspace) {
        if !owned.iter().any(|d| d.path == dir.path) {
            owned.push(dir);
        }
    }
    let mut dirs: Vec<HookDir> = Vec::new();
    for path in &layout.extra_hooks_dirs {
        let seen = |d: &HookDir| d.path == *path;
        if !owned.iter().any(seen) && !dirs.iter().any(seen) {
            dirs.push(HookDir {
                path: path.clone(),
                source: Source::Extra,
                workspace_root: None,
            });
        }
    }
    dirs.extend(owned);
    dirs
}

/// `<Documents>/Cline/Hooks`: the Documents known folder on Windows (OneDrive redirection
/// included), `XDG_DOCUMENTS_DIR` on Linux, `~/Documents` otherwise.
pub fn default_global_dir() -> Option<PathBuf> {
    let documents =
        dirs::document_dir().or_else(|| dirs::home_dir().map(|h| h.join("Documents")))?;
    Some(documents.join("Cline").join("Hooks"))
}

/// The file-naming rules to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Platform {
    /// macOS and Linux: the extensionless, executable file named like the hook.
    Unix,
    /// Windows: `Name.ps1`, then `Name<ext>` for each PATHEXT extension, in that order.
    Windows { pathext: Vec<String> },
}

const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC";

impl Platform {
    pub fn current() -> Platform {
        if cfg!(windows) {
            let raw = std::env::var("PATHEXT").unwrap_or_default();
            Platform::windows(&raw)
        } else {
            Platform::Unix
        }
    }

    /// Windows rules for a PATHEXT value; an empty one means Windows' default.
    pub fn windows(pathext: &str) -> Platform {
        let raw = if pathext.trim().is_empty() {
            DEFAULT_PATHEXT
        } else {
            pathext
        };
        let mut exts: Vec<String> = Vec::new();
        for ext in raw
            .split(';')
            .map(str::trim)
            .filter(|e| e.starts_with('.') && e.len() > 1)
        {
            let ext = ext.to_ascii_lowercase();
            if ext != ".ps1" && !exts.contains(&ext) {
                exts.push(ext);
            }
        }
        Platform::Windows { pathext: exts }
    }
}

/// What a directory entry turned out to be (symlinks followed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    File { executable: bool },
    Directory,
    BrokenSymlink,
    SymlinkLoop,
    Special,
    Uninspectable(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub kind: EntryKind,
    /// The text after `#!` on a file's first line.
    pub shebang: Option<String>,
    /// How it starts (interpreters resolved when the directory was scanned).
    pub launch: Launch,
}

/// What a directory held, as far as hook discovery cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contents {
    Missing,
    /// It cannot be listed; the sentence says why and what to do.
    Unreadable(String),
    Entries(Vec<Entry>),
}

/// One searched directory and what it held when it was scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub dir: HookDir,
    pub contents: Contents,
}

/// A file that is a hook, or would be if it were runnable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    pub file_name: String,
    pub kind: LaunchKind,
    /// Why it will not run; `None` means it runs.
    pub disabled: Option<String>,
    pub launch: Launch,
}

/// How Windows starts a file with extension `ext` (lower case, with the dot).
fn windows_kind(ext: &str) -> LaunchKind {
    match ext {
        ".ps1" => LaunchKind::PowerShell,
        ".exe" | ".com" => LaunchKind::Direct,
        ".bat" | ".cmd" => LaunchKind::Cmd,
        _ => LaunchKind::Unsupported,
    }
}

/// Which entry of one directory is the hook `hook_name` (at most one per directory).
pub fn pick(hook_name: &str, entries: &[Entry], platform: &Platform) -> Option<Pick> {
    match platform {
        Platform::Unix => {
            let entry = entries.iter().find(|e| e.name == hook_name)?;
            let disabled = match &entry.kind {
                EntryKind::File { executable: true } => None,
                EntryKind::File { executable: false } => {
                    Some("it is not executable; run chmod +x on it to enable it".to_owned())
                }
                other => Some(kind_problem(other)),
            };
            Some(Pick {
                file_name: entry.name.clone(),
                kind: LaunchKind::Direct,
                disabled,
                launch: entry.launch.clone(),
            })
        }
        Platform::Windows { pathext } => {
            let exts = std::iter::once(".ps1").chain(pathext.iter().map(String::as_str));
            for ext in exts {
                let wanted = format!("{hook_name}{ext}");
                let Some(entry) = entries
                    .iter()
                    .find(|e| e.name.eq_ignore_ascii_case(&wanted))
                else {
                    continue;
                };
                let kind = windows_kind(ext);
                let disabled = match (&entry.kind, kind) {
                    (EntryKind::File { .. }, LaunchKind::Unsupported) => Some(format!(
                        "{ext} files are in PATHEXT but are not started as hooks; use .ps1, .exe, .com, .bat or .cmd"
                    )),
                    (EntryKind::File { .. }, _) => None,
                    (other, _) => Some(kind_problem(other)),
                };
                return Some(Pick {
                    file_name: entry.name.clone(),
                    kind,
                    disabled,
                    launch: entry.launch.clone(),
                });
            }
            None
        }
    }
}

/// Extensions the CLI profile runs, lower case.
pub const CLI_EXTENSIONS: [&str; 12] = [
    ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".ps1", "",
];

/// The CLI profile's rule: every file whose base name is the hook name (any case), with no
/// extension or a known one, in path order. Several per directory are allowed.
pub fn pick_cli(hook_name: &str, entries: &[Entry]) -> Vec<Pick> {
    let mut picks: Vec<Pick> = entries
        .iter()
        .filter(|e| {
            let (stem, ext) = split_extension(&e.name);
            stem.eq_ignore_ascii_case(hook_name)
                && CLI_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
        })
        .map(|e| Pick {
            file_name: e.name.clone(),
            kind: LaunchKind::Interpreted,
            disabled: match &e.kind {
                EntryKind::File { .. } => None,
                other => Some(kind_problem(other)),
            },
            launch: e.launch.clone(),
        })
        .collect();
    picks.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    picks
}

/// `PreToolUse.sh` -> (`PreToolUse`, `.sh`); `PreToolUse` -> (`PreToolUse`, ``).
fn split_extension(name: &str) -> (&str, &str) {
    match name.find('.') {
        Some(dot) => (&name[..dot], &name[dot..]),
        None => (name, ""),
    }
}

/// How the file `path` (whose `#!` line is `shebang`) starts under `profile` on `platform`.
pub fn launch_for(
    path: &Path,
    shebang: Option<&str>,
    profile: Profile,
    platform: &Platform,
    tools: &mut Interpreters,
) -> Launch {
    match (profile, platform) {
        (Profile::Cli, _) => launch::interpreted_command(path, shebang, tools),
        (Profile::Extension, Platform::Unix) => launch::direct_command(path, shebang, tools),
        (Profile::Extension, Platform::Windows { .. }) => {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let ext = split_extension(name).1.to_ascii_lowercase();
            launch::command(path, windows_kind(&ext), tools)
        }
    }
}

fn kind_problem(kind: &EntryKind) -> String {
    match kind {
        EntryKind::File { .. } => "it is a file".to_owned(),
        EntryKind::Directory => "it is a directory, not a file".to_owned(),
        EntryKind::BrokenSymlink => {
            "it is a symbolic link to a file that does not exist".to_owned()
        }
        EntryKind::SymlinkLoop => "it is a symbolic link that loops back on itself".to_owned(),
        EntryKind::Special => "it is not a regular file (a pipe, socket or device)".to_owned(),
        EntryKind::Uninspectable(err) => format!("it cannot be inspected: {err}"),
    }
}

/// Why a hooks directory could not be listed, as far as the advice differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirError {
    /// ELOOP: the path goes through a symbolic link loop.
    Loop,
    /// ENOTDIR: something on the path is a file.
    NotADirectory,
    /// ENAMETOOLONG.
    NameTooLong,
    /// EACCES/EPERM.
    PermissionDenied,
    Other,
}

impl DirError {
    pub fn of(err: &io::Error) -> DirError {
        match err.raw_os_error() {
            Some(code) if code == errno::LOOP => DirError::Loop,
            Some(code) if code == errno::NOT_A_DIRECTORY => DirError::NotADirectory,
            Some(code) if code == errno::NAME_TOO_LONG => DirError::NameTooLong,
            _ if err.kind() == io::ErrorKind::PermissionDenied => DirError::PermissionDenied,
            _ => DirError::Other,
        }
    }
}

/// The reason every hook of an unlistable directory is reported disabled: what is wrong with
/// `dir` and how to fix it. `detail` is the system's message, for errors without advice.
pub fn dir_problem(dir: &Path, error: DirError, detail: &str) -> String {
    let dir = dir.display();
    match error {
        DirError::Loop => format!(
            "its hooks directory {dir} is a symbolic link loop; fix or remove the link"
        ),
        DirError::NotADirectory => format!(
            "its hooks directory {dir} goes through a file, not a folder; move the file or name another folder"
        ),
        DirError::NameTooLong => format!(
            "its hooks directory {dir} has a path longer than the system allows; use a shorter path"
        ),
        DirError::PermissionDenied => format!(
            "its hooks directory {dir} cannot be read (permission denied); fix the directory's permissions"
        ),
        DirError::Other => format!("its hooks directory {dir} cannot be read ({detail})"),
    }
}

/// A hook found by discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveredHook {
    pub hook_name: String,
    pub path: PathBuf,
    pub source: Source,
    pub workspace_root: Option<PathBuf>,
    pub kind: LaunchKind,
    /// Why it will not run; `None` means enabled.
    pub disabled: Option<String>,
    pub command: Vec<OsString>,
    /// Why it cannot be started although it is enabled (a missing interpreter): running it
    /// reports `failed` with this sentence.
    pub launch_error: Option<String>,
}

impl DiscoveredHook {
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
    for Listing { dir, contents } in listings {
        let entries = match contents {
            Contents::Missing => continue,
            Contents::Unreadable(why) => {
                // Say so for every hook name: the author must learn why their hook is not seen.
                found.push(DiscoveredHook {
                    hook_name: hook_name.to_owned(),
                    path: dir.path.join(hook_name),
                    source: dir.source,
                    workspace_root: dir.workspace_root.clone(),
                    kind: LaunchKind::Direct,
                    disabled: Some(why.clone()),
                    command: Vec::new(),
                    launch_error: None,
                });
                continue;
            }
            Contents::Entries(entries) => entries,
        };
        let picks = match profile {
            Profile::Extension => pick(hook_name, entries, platform).into_iter().collect(),
            Profile::Cli => pick_cli(hook_name, entries),
        };
        for picked in picks {
            let path = dir.path.join(&picked.file_name);
            let mut disabled = picked.disabled;
            if picked.kind == LaunchKind::Cmd && disabled.is_none() {
                disabled = launch::cmd_unsafe_path(&path.to_string_lossy()).map(str::to_owned);
            }
            let (command, launch_error) = match picked.launch {
                Launch::Argv(argv) => (argv, None),
                Launch::Fails(why) => (Vec::new(), Some(why)),
                Launch::Disabled(why) => {
                    disabled.get_or_insert(why);
                    (Vec::new(), None)
                }
            };
            found.push(DiscoveredHook {
                hook_name: hook_name.to_owned(),
                path,
                source: dir.source,
                workspace_root: dir.workspace_root.clone(),
                kind: picked.kind,
                disabled,
                command,
                launch_error,
            });
        }
    }
    found
}

/// Scans one hooks directory (see [`scan_dir`]).
pub fn scan(
    dir: HookDir,
    profile: Profile,
    platform: &Platform,
    tools: &mut Interpreters,
) -> Listing {
    let contents = scan_dir(&dir.path, profile, platform, tools);
    Listing { dir, contents }
}

/// Lists one hooks directory. Only entries that could be hooks (a valid hook name, with or
/// without an extension) are inspected, so a crowded directory costs one `stat` per hook,
/// plus the PATH lookups of their interpreters (each once per scan).
pub fn scan_dir(
    dir: &Path,
    profile: Profile,
    platform: &Platform,
    tools: &mut Interpreters,
) -> Contents {
    let read = match std::fs::read_dir(dir) {
        Ok(read) => read,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Contents::Missing,
        // A file where the folder would be (`.clinerules` is also a rules file) means no hooks.
        Err(err) if DirError::of(&err) == DirError::NotADirectory => return Contents::Missing,
        Err(err) => {
            return Contents::Unreadable(dir_problem(dir, DirError::of(&err), &err.to_string()))
        }
    };
    let mut entries = Vec::new();
    for item in read {
        let Ok(item) = item else { continue };
        let Ok(name) = item.file_name().into_string() else {
            continue;
        };
        if !name::could_be_hook(split_extension(&name).0) {
            continue;
        }
        let path = item.path();
        let kind = inspect(&path);
        let shebang = match kind {
            EntryKind::File { .. } => read_shebang(&path),
            _ => None,
        };
        let launch = launch_for(&path, shebang.as_deref(), profile, platform, tools);
        entries.push(Entry {
            launch,
            kind,
            name,
            shebang,
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Contents::Entries(entries)
}

/// The text after `#!` on the first line, if the file starts with one.
pub fn read_shebang(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 512];
    let n = std::fs::File::open(path).ok()?.read(&mut head).ok()?;
    let rest = head[..n].strip_prefix(b"#!")?;
    let line = rest.split(|b| *b == b'\n').next()?;
    Some(String::from_utf8_lossy(line).trim().to_owned())
}

fn inspect(path: &Path) -> EntryKind {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => EntryKind::File {
            executable: is_executable(&meta),
        },
        Ok(meta) if meta.is_dir() => EntryKind::Directory,
        Ok(_) => EntryKind::Special,
        Err(err) if err.kind() == io::ErrorKind::NotFound => EntryKind::BrokenSymlink,
        Err(err) if DirError::of(&err) == DirError::Loop => EntryKind::SymlinkLoop,
        Err(err) => EntryKind::Uninspectable(err.to_string()),
    }
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    true
}

/// The system error codes `DirError` tells apart.
#[cfg(unix)]
mod errno {
    pub const LOOP: i32 = libc::ELOOP;
    pub const NOT_A_DIRECTORY: i32 = libc::ENOTDIR;
    pub const NAME_TOO_LONG: i32 = libc::ENAMETOOLONG;
}

#[cfg(not(unix))]
mod errno {
    /// ERROR_CANT_RESOLVE_FILENAME
    pub const LOOP: i32 = 1921;
    /// ERROR_DIRECTORY
    pub const NOT_A_DIRECTORY: i32 = 267;
    /// ERROR_FILENAME_EXCED_RANGE
    pub const NAME_TOO_LONG: i32 = 206;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::launch::tests::FixedMachine;

    fn file(name: &str, executable: bool) -> Entry {
        entry(name, EntryKind::File { executable })
    }

    /// An entry whose launch is its own path (what a direct start resolves to).
    fn entry(name: &str, kind: EntryKind) -> Entry {
        Entry {
            name: name.to_owned(),
            kind,
            shebang: None,
            launch: Launch::Argv(vec![OsString::from(name)]),
        }
    }

    fn defaults(global: &str) -> Defaults {
        Defaults {
            global_hooks_dir: Some(global.into()),
            cline_dir: Some("/home/u/.cline".into()),
        }
    }

    /// `dirs` paired with `contents`, as a scan would give them.
    fn listings(dirs: Vec<HookDir>, contents: Vec<Contents>) -> Vec<Listing> {
        assert_eq!(dirs.len(), contents.len());
        dirs.into_iter()
            .zip(contents)
            .map(|(dir, contents)| Listing { dir, contents })
            .collect()
    }

    fn paths_and_sources(dirs: &[HookDir]) -> Vec<(PathBuf, Source, Option<PathBuf>)> {
        dirs.iter()
            .map(|d| (d.path.clone(), d.source, d.workspace_root.clone()))
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
    fn cli_profile_takes_every_known_extension_in_any_case_in_path_order() {
        let entries = [
            file("PreToolUse.sh", false),
            file("pretooluse.PY", false),
            file("PreToolUse", false),
            file("PreToolUse.example", true),
            file("PreToolUse.md", true),
            file("PreToolUse.ts", false),
            file("PreToolUseX.sh", true),
            file("PreToolUse.test.sh", true),
            entry("PreToolUse.js", EntryKind::Directory),
        ];
        let picks = pick_cli("PreToolUse", &entries);
        let names: Vec<_> = picks.iter().map(|p| p.file_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "PreToolUse",
                "PreToolUse.js",
                "PreToolUse.sh",
                "PreToolUse.ts",
                "pretooluse.PY"
            ]
        );
        assert!(picks
            .iter()
            .filter(|p| p.file_name != "PreToolUse.js")
            .all(|p| p.disabled.is_none()));
        assert!(picks[1].disabled.as_ref().unwrap().contains("directory"));
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
    fn global_dir_can_be_moved_or_turned_off() {
        let mut layout = Layout {
            global_hooks_dir: GlobalDir::Off,
            ..Layout::default()
        };
        assert!(hook_dirs(&layout, &defaults("/d")).is_empty());
        layout.global_hooks_dir = GlobalDir::At("/g".into());
        assert_eq!(hook_dirs(&layout, &defaults("/d"))[0].path, Path::new("/g"));
        layout.global_hooks_dir = GlobalDir::Default;
        assert!(hook_dirs(&layout, &Defaults::default()).is_empty());
    }

    #[test]
    fn unix_takes_the_exact_extensionless_executable() {
        let entries = [
            file("PreToolUse.sh", true),
            file("PreToolUse.ps1", true),
            file("pretooluse", true),
        ];
        assert_eq!(pick("PreToolUse", &entries, &Platform::Unix), None);
        let entries = [file("PreToolUse", true), file("PreToolUse.sh", true)];
        let picked = pick("PreToolUse", &entries, &Platform::Unix).unwrap();
        assert_eq!(
            (picked.file_name.as_str(), picked.disabled),
            ("PreToolUse", None)
        );
    }

    #[test]
    fn unix_lists_unrunnable_entries_with_a_reason() {
        for (kind, needle) in [
            (EntryKind::File { executable: false }, "chmod +x"),
            (EntryKind::Directory, "directory"),
            (EntryKind::BrokenSymlink, "does not exist"),
            (EntryKind::SymlinkLoop, "loops"),
            (EntryKind::Special, "not a regular file"),
        ] {
            let picked = pick("TaskStart", &[entry("TaskStart", kind)], &Platform::Unix).unwrap();
            assert!(picked.disabled.unwrap().contains(needle), "{needle}");
        }
    }

    #[test]
    fn windows_prefers_ps1_then_pathext_order_and_ignores_extensionless() {
        let win = Platform::windows(".EXE;.BAT;.CMD");
        let entries = [
            file("PreToolUse", true),
            file("PreToolUse.cmd", true),
            file("PreToolUse.bat", true),
        ];
        assert_eq!(
            pick("PreToolUse", &entries, &win).unwrap().file_name,
            "PreToolUse.bat"
        );
        let entries = [file("PreToolUse.exe", true), file("pretooluse.PS1", true)];
        let picked = pick("PreToolUse", &entries, &win).unwrap();
        assert_eq!(
            (picked.file_name.as_str(), picked.kind),
            ("pretooluse.PS1", LaunchKind::PowerShell)
        );
        assert_eq!(pick("PreToolUse", &[file("PreToolUse", true)], &win), None);
    }

    #[test]
    fn windows_exe_and_com_start_directly_and_bat_cmd_through_cmd() {
        let win = Platform::windows("");
        for (file_name, kind) in [
            ("Hook.exe", LaunchKind::Direct),
            ("Hook.COM", LaunchKind::Direct),
            ("Hook.bat", LaunchKind::Cmd),
            ("Hook.Cmd", LaunchKind::Cmd),
            ("Hook.ps1", LaunchKind::PowerShell),
        ] {
            let picked = pick("Hook", &[file(file_name, true)], &win).unwrap();
            assert_eq!((picked.kind, picked.disabled), (kind, None), "{file_name}");
        }
    }

    #[test]
    fn windows_launches_follow_the_extension_in_any_case() {
        let machine = &mut FixedMachine::default();
        let mut tools = Interpreters::new(machine, None, true);
        let win = Platform::windows("");
        let argv0 = |launch: Launch| match launch {
            Launch::Argv(argv) => argv[0].to_string_lossy().into_owned(),
            other => panic!("{other:?}"),
        };
        let mut start = |name: &str| {
            argv0(launch_for(
                &PathBuf::from(r"C:\h").join(name),
                None,
                Profile::Extension,
                &win,
                &mut tools,
            ))
        };
        assert!(start("Hook.PS1").ends_with("powershell.exe"));
        assert!(start("Hook.Bat").ends_with("cmd.exe"));
        assert!(start("Hook.exe").ends_with("Hook.exe"));
    }

    #[test]
    fn windows_custom_pathext_decides_what_counts() {
        let win = Platform::windows(".CMD;.EXE");
        let entries = [
            file("TaskStart.bat", true),
            file("TaskStart.exe", true),
            file("TaskStart.cmd", true),
        ];
        let picked = pick("TaskStart", &entries, &win).unwrap();
        assert_eq!(
            (picked.file_name.as_str(), picked.kind),
            ("TaskStart.cmd", LaunchKind::Cmd)
        );
        assert_eq!(
            pick("TaskStart", &[file("TaskStart.bat", true)], &win),
            None
        );
        let vbs = pick(
            "TaskStart",
            &[file("TaskStart.vbs", true)],
            &Platform::windows(""),
        )
        .unwrap();
        assert!(vbs.disabled.unwrap().contains(".vbs"));
    }

    #[test]
    fn windows_default_pathext_applies_when_unset() {
        let Platform::Windows { pathext } = Platform::windows("") else {
            panic!()
        };
        assert_eq!(&pathext[..4], [".com", ".exe", ".bat", ".cmd"]);
    }

    #[test]
    fn each_directory_error_gets_its_own_advice() {
        let dir = Path::new("/w/.clinerules/hooks");
        let says = |error, detail| dir_problem(dir, error, detail);
        let lp = says(DirError::Loop, "");
        assert!(lp.contains("/w/.clinerules/hooks") && lp.contains("symbolic link loop"));
        assert!(
            lp.contains("fix or remove the link") && !lp.contains("permission"),
            "{lp}"
        );
        let nd = says(DirError::NotADirectory, "");
        assert!(
            nd.contains("a file, not a folder") && !nd.contains("permission"),
            "{nd}"
        );
        let long = says(DirError::NameTooLong, "");
        assert!(
            long.contains("shorter path") && !long.contains("permission"),
            "{long}"
        );
        let denied = says(DirError::PermissionDenied, "");
        assert!(
            denied.contains("fix the directory's permissions"),
            "{denied}"
        );
        let other = says(DirError::Other, "Input/output error (os error 5)");
        assert!(
            other.contains("(Input/output error (os error 5))"),
            "{other}"
        );
        assert!(!other.contains("permission"), "{other}");
    }

    #[cfg(unix)]
    #[test]
    fn system_errors_map_to_their_advice() {
        let of = |code| DirError::of(&io::Error::from_raw_os_error(code));
        assert_eq!(of(libc::ELOOP), DirError::Loop);
        assert_eq!(of(libc::ENOTDIR), DirError::NotADirectory);
        assert_eq!(of(libc::ENAMETOOLONG), DirError::NameTooLong);
        assert_eq!(of(libc::EACCES), DirError::PermissionDenied);
        assert_eq!(of(libc::EPERM), DirError::PermissionDenied);
        assert_eq!(of(libc::EIO), DirError::Other);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_loop_as_hooks_folder_is_reported_as_a_loop() {
        let tmp = std::env::temp_dir().join(format!(
            "cline-hooks-loop-{}-{:?}",
            std::process::id(),
            std::time::SystemTime::now()
        ));
        std::fs::create_dir_all(&tmp).unwrap();
        let looped = tmp.join("loop");
        std::os::unix::fs::symlink(&looped, &looped).unwrap();
        let machine = &mut FixedMachine::default();
        let mut tools = Interpreters::new(machine, None, false);
        let got = scan_dir(&looped, Profile::Extension, &Platform::Unix, &mut tools);
        let _ = std::fs::remove_dir_all(&tmp);
        let Contents::Unreadable(why) = got else {
            panic!("{got:?}")
        };
        assert!(why.contains("symbolic link loop"), "{why}");
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
