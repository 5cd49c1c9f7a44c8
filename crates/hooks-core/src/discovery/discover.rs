//! Which directories are searched, which of their files are hooks, and how each one starts.
//!
//! The rules are pure functions over a directory listing, so the Windows rules are tested on
//! Linux too; `scan_dir` is the only part that touches the file system, and it also resolves
//! every interpreter, so that picking hooks from a listing makes no system call.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use crate::launch::{self, Interpreters, Launch, LaunchKind};

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
    // Sets, not pairwise searches: a caller may pass thousands of roots.
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let owned: Vec<HookDir> = global
        .chain(workspace)
        .filter(|dir| seen.insert(dir.path.clone()))
        .collect();
    let mut dirs: Vec<HookDir> = Vec::new();
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
    Windows { pathext: PathExt },
}

const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC";

/// Most PATHEXT extensions searched. Windows' default has 11; a PATHEXT grown without bound
/// is cut here, and a hook file with an extension past the cap is listed disabled, saying so.
pub const PATHEXT_CAP: usize = 64;

/// PATHEXT, read once: the extensions searched after `.ps1`, and what every other extension
/// PATHEXT mentions means.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PathExt {
    /// Lower case, with the dot, in PATHEXT order, without `.ps1` (always searched first).
    searched: Vec<String>,
    /// Every extension PATHEXT names in some way, lower case with the dot.
    rules: HashMap<String, ExtRule>,
}

/// What PATHEXT makes of one extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtRule {
    /// Searched, at this place (`.ps1` is 0, the first PATHEXT extension 1).
    Rank(usize),
    /// Not searched because of how PATHEXT is written: a file with it is listed disabled
    /// with this reason.
    Ignored(String),
}

impl PathExt {
    /// Parses a PATHEXT value; an empty one means Windows' default. Pure.
    pub fn parse(raw: &str) -> PathExt {
        let raw = if raw.trim().is_empty() {
            DEFAULT_PATHEXT
        } else {
            raw
        };
        let mut searched: Vec<String> = Vec::new();
        let mut rules = HashMap::from([(".ps1".to_owned(), ExtRule::Rank(0))]);
        for entry in raw.split(';').map(str::trim).filter(|e| !e.is_empty()) {
            match entry.strip_prefix('.') {
                Some("") => {}
                Some(_) => {
                    let ext = entry.to_ascii_lowercase();
                    if matches!(rules.get(&ext), Some(ExtRule::Rank(_))) {
                        continue;
                    }
                    if searched.len() < PATHEXT_CAP {
                        searched.push(ext.clone());
                        rules.insert(ext, ExtRule::Rank(searched.len()));
                    } else {
                        rules.entry(ext).or_insert_with(|| ExtRule::Ignored(format!(
                            "PATHEXT lists {entry} after its first {PATHEXT_CAP} extensions, the most that are searched; move {entry} earlier in PATHEXT or remove entries from it"
                        )));
                    }
                }
                // Windows appends each entry as written: `Name` + `CMD` never names Name.cmd.
                None => {
                    let ext = format!(".{}", entry.to_ascii_lowercase());
                    rules.entry(ext.clone()).or_insert_with(|| ExtRule::Ignored(format!(
                        "PATHEXT lists {entry} without its leading dot, so Windows does not count {ext} files as programs; write .{entry} in PATHEXT to enable it"
                    )));
                }
            }
        }
        PathExt { searched, rules }
    }

    /// The searched extensions after `.ps1`, in order.
    pub fn searched(&self) -> &[String] {
        &self.searched
    }

    /// What PATHEXT makes of `ext` (with the dot, any case).
    pub fn rule(&self, ext: &str) -> Option<&ExtRule> {
        self.rules.get(&ext.to_ascii_lowercase())
    }
}

impl Platform {
    /// The rules of this machine. PATHEXT is read once per process, like Windows' own
    /// programs do; a different PATHEXT needs a new process.
    pub fn current() -> Platform {
        static CURRENT: OnceLock<Platform> = OnceLock::new();
        CURRENT
            .get_or_init(|| {
                if cfg!(windows) {
                    Platform::windows(&std::env::var("PATHEXT").unwrap_or_default())
                } else {
                    Platform::Unix
                }
            })
            .clone()
    }

    /// Windows rules for a PATHEXT value; an empty one means Windows' default.
    pub fn windows(pathext: &str) -> Platform {
        Platform::Windows {
            pathext: PathExt::parse(pathext),
        }
    }
}

/// What a directory entry turned out to be (symlinks followed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    File {
        executable: bool,
    },
    Directory,
    BrokenSymlink,
    SymlinkLoop,
    Special,
    /// It could not be inspected; the sentence says why and what to do.
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

/// Whether a directory entry named `name` can be a hook file under these rules, for some
/// hook name. Only such entries are inspected (opened and read), so a folder crowded with
/// other files costs one listing. Pure.
pub fn could_be_hook_file(name: &str, profile: Profile, platform: &Platform) -> bool {
    let (stem, ext) = split_extension(name);
    match (profile, platform) {
        (Profile::Cli, _) => {
            super::is_valid_ignoring_case(stem)
                && CLI_EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext))
        }
        (Profile::Extension, Platform::Unix) => super::is_valid(name),
        (Profile::Extension, Platform::Windows { pathext }) => {
            !ext.is_empty() && super::is_valid_ignoring_case(stem) && pathext.rule(ext).is_some()
        }
    }
}

/// Which entries of one directory are listed for the hook `hook_name`: on macOS/Linux the
/// one named exactly so; on Windows the file Windows itself would run (the first *file* in
/// `.ps1`-then-PATHEXT order: Windows passes over folders), after every non-file that
/// comes before it (listed disabled, so a folder named `Hook.exe` cannot silently take a
/// gate's place), and files whose extension PATHEXT names in a way Windows ignores.
pub fn pick(hook_name: &str, entries: &[Entry], platform: &Platform) -> Vec<Pick> {
    match platform {
        Platform::Unix => entries
            .iter()
            .filter(|e| e.name == hook_name)
            .map(|entry| {
                let disabled = match &entry.kind {
                    EntryKind::File { executable: true } => None,
                    EntryKind::File { executable: false } => {
                        Some("it is not executable; run chmod +x on it to enable it".to_owned())
                    }
                    other => Some(kind_problem(other)),
                };
                Pick {
                    file_name: entry.name.clone(),
                    kind: LaunchKind::Direct,
                    disabled,
                    launch: entry.launch.clone(),
                }
            })
            .collect(),
        Platform::Windows { pathext } => pick_windows(hook_name, entries, pathext),
    }
}

fn pick_windows(hook_name: &str, entries: &[Entry], pathext: &PathExt) -> Vec<Pick> {
    let mut named: Vec<(&ExtRule, &Entry, String)> = entries
        .iter()
        .filter_map(|entry| {
            let (stem, ext) = split_extension(&entry.name);
            if ext.is_empty() || !stem.eq_ignore_ascii_case(hook_name) {
                return None;
            }
            let ext = ext.to_ascii_lowercase();
            pathext.rule(&ext).map(|rule| (rule, entry, ext))
        })
        .collect();
    named.sort_by_key(|(rule, _, _)| match rule {
        ExtRule::Rank(rank) => (0, *rank),
        ExtRule::Ignored(_) => (1, 0),
    });
    let pick_of = |entry: &Entry, kind, disabled| Pick {
        file_name: entry.name.clone(),
        kind,
        disabled,
        launch: entry.launch.clone(),
    };
    let mut picks = Vec::new();
    let mut runs: Option<&str> = None;
    for (rule, entry, ext) in named {
        let kind = windows_kind(&ext);
        match (rule, &entry.kind) {
            // Behind the file Windows runs: Windows never gets to it.
            (ExtRule::Rank(_), _) if runs.is_some() => {}
            (ExtRule::Rank(_), EntryKind::File { .. }) => {
                let disabled = (kind == LaunchKind::Unsupported).then(|| format!(
                    "{ext} files are in PATHEXT but are not started as hooks; use .ps1, .exe, .com, .bat or .cmd"
                ));
                runs = Some(&entry.name);
                picks.push(pick_of(entry, kind, disabled));
            }
            (ExtRule::Rank(_), other) => {
                picks.push(pick_of(entry, kind, Some(kind_problem(other))));
            }
            (ExtRule::Ignored(why), EntryKind::File { .. }) => {
                picks.push(pick_of(entry, kind, Some(why.clone())));
            }
            (ExtRule::Ignored(_), _) => {}
        }
    }
    if let Some(file) = runs {
        for shadow in picks.iter_mut().take_while(|p| p.file_name != file) {
            if let Some(why) = &mut shadow.disabled {
                why.push_str(&format!("; Windows passes over it, so {file} runs instead"));
            }
        }
    }
    picks
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
        EntryKind::Uninspectable(why) => why.clone(),
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
    /// A name the system does not accept (Windows' `* ? " < > |`, a NUL byte).
    InvalidName,
    Other,
}

impl DirError {
    pub fn of(err: &io::Error) -> DirError {
        match err.raw_os_error() {
            Some(code) if code == errno::LOOP => DirError::Loop,
            Some(code) if code == errno::NOT_A_DIRECTORY => DirError::NotADirectory,
            Some(code) if code == errno::NAME_TOO_LONG => DirError::NameTooLong,
            Some(code) if errno::INVALID_NAME == Some(code) => DirError::InvalidName,
            _ if err.kind() == io::ErrorKind::PermissionDenied => DirError::PermissionDenied,
            // std refuses a path holding a NUL byte with InvalidInput, before any system call.
            _ if matches!(
                err.kind(),
                io::ErrorKind::InvalidInput | io::ErrorKind::InvalidFilename
            ) =>
            {
                DirError::InvalidName
            }
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
        DirError::InvalidName => format!(
            "its hooks directory {dir} is not a valid path on this system (a name in it holds a character the system does not allow, such as * ? \" < > | or a control character); correct the path"
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
    /// The program its `#!` line named when discovery read it: a start that fails is
    /// explained from this, never from a second look at a file that may have been replaced.
    pub shebang_program: Option<String>,
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
                    shebang_program: None,
                });
                continue;
            }
            Contents::Entries(entries) => entries,
        };
        let picks = match profile {
            Profile::Extension => pick(hook_name, entries, platform),
            Profile::Cli => pick_cli(hook_name, entries),
        };
        for picked in picks {
            let path = dir.path.join(&picked.file_name);
            let shebang_program = entries
                .iter()
                .find(|entry| entry.name == picked.file_name)
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
            });
        }
    }
    found
}

/// Scans hooks directories for one factory, remembering each directory's listing so that a
/// directory that has not changed is not listed again: a rescan of an unchanged folder of
/// 100,000 files costs one `stat` of the folder plus the inspection of the files named after
/// the hooks asked for (however many other files are named like hooks).
#[derive(Debug, Default)]
pub struct Scanner {
    listed: HashMap<PathBuf, Listed>,
}

/// One directory's entries that could be hooks, as of its change stamp.
#[derive(Debug, Clone)]
struct Listed {
    stamp: Stamp,
    /// Each with the type the listing reported (no `stat` needed for it).
    candidates: Vec<(String, Option<std::fs::FileType>)>,
    /// The candidates by their stem in ASCII lower case (`pretooluse` for `PreToolUse.ps1`),
    /// so a rescan finds the files of the hooks asked for without looking at the others.
    by_stem: HashMap<String, Vec<usize>>,
}

impl Listed {
    fn new(
        stamp: Stamp,
        mut candidates: Vec<(String, Option<std::fs::FileType>)>,
        profile: Profile,
        platform: &Platform,
    ) -> Listed {
        candidates.sort_by(|a, b| a.0.cmp(&b.0));
        let mut by_stem: HashMap<String, Vec<usize>> = HashMap::new();
        for (at, (name, _)) in candidates.iter().enumerate() {
            let stem = hook_stem(name, profile, platform).to_ascii_lowercase();
            by_stem.entry(stem).or_default().push(at);
        }
        Listed {
            stamp,
            candidates,
            by_stem,
        }
    }

    /// The candidates that are files of the hooks in `wanted` (all of them for `None`), in
    /// name order.
    fn of_hooks<'a>(
        &'a self,
        wanted: Option<&BTreeSet<String>>,
        profile: Profile,
        platform: &Platform,
    ) -> Vec<&'a (String, Option<std::fs::FileType>)> {
        let Some(wanted) = wanted else {
            return self.candidates.iter().collect();
        };
        let mut at: Vec<usize> = wanted
            .iter()
            .filter_map(|hook| self.by_stem.get(&hook.to_ascii_lowercase()))
            .flatten()
            .copied()
            .collect();
        at.sort_unstable();
        at.dedup();
        at.into_iter()
            .map(|i| &self.candidates[i])
            .filter(|(name, _)| {
                wanted
                    .iter()
                    .any(|hook| is_file_of(name, hook, profile, platform))
            })
            .collect()
    }
}

/// The part of a file name that names its hook: the whole name for the extension profile on
/// macOS/Linux (no extension), else the name before its first dot.
fn hook_stem<'n>(file_name: &'n str, profile: Profile, platform: &Platform) -> &'n str {
    match (profile, platform) {
        (Profile::Extension, Platform::Unix) => file_name,
        _ => split_extension(file_name).0,
    }
}

/// Whether `file_name` (one that [`could_be_hook_file`]) is a file of the hook `hook_name`:
/// named exactly so for the extension profile on macOS/Linux, its stem in any letter case on
/// Windows and for the CLI profile.
pub fn is_file_of(file_name: &str, hook_name: &str, profile: Profile, platform: &Platform) -> bool {
    let stem = hook_stem(file_name, profile, platform);
    match (profile, platform) {
        (Profile::Extension, Platform::Unix) => stem == hook_name,
        _ => stem.eq_ignore_ascii_case(hook_name),
    }
}

impl Scanner {
    /// Scans `dirs` in order, inspecting the files of the hooks in `wanted` only. Only the
    /// directories of this scan stay remembered.
    pub fn scan(
        &mut self,
        dirs: Vec<HookDir>,
        wanted: &BTreeSet<String>,
        profile: Profile,
        platform: &Platform,
        tools: &mut Interpreters,
    ) -> Vec<Listing> {
        let mut previous = std::mem::take(&mut self.listed);
        dirs.into_iter()
            .map(|dir| {
                let previous = previous.remove(&dir.path);
                let (contents, listed) =
                    scan_dir_with(&dir.path, Some(wanted), profile, platform, tools, previous);
                if let Some(listed) = listed {
                    self.listed.insert(dir.path.clone(), listed);
                }
                Listing { dir, contents }
            })
            .collect()
    }
}

/// Scans one hooks directory with nothing remembered (see [`Scanner`]).
pub fn scan(
    dir: HookDir,
    profile: Profile,
    platform: &Platform,
    tools: &mut Interpreters,
) -> Listing {
    let contents = scan_dir(&dir.path, profile, platform, tools);
    Listing { dir, contents }
}

/// Lists and inspects one hooks directory with nothing remembered (see [`scan_dir_with`]).
pub fn scan_dir(
    dir: &Path,
    profile: Profile,
    platform: &Platform,
    tools: &mut Interpreters,
) -> Contents {
    scan_dir_with(dir, None, profile, platform, tools, None).0
}

/// Lists one hooks directory (or reuses `previous`, its listing from the last scan, if the
/// directory has not changed since) and inspects the entries that could be hooks: each costs
/// an `open`, an `fstat` and a read of its first bytes, plus the PATH lookups of its
/// interpreter (each once per scan). Also returns what to remember for the next scan.
fn scan_dir_with(
    dir: &Path,
    wanted: Option<&BTreeSet<String>>,
    profile: Profile,
    platform: &Platform,
    tools: &mut Interpreters,
    previous: Option<Listed>,
) -> (Contents, Option<Listed>) {
    // The clock is read before the directory, so that a change made after this point can
    // never carry a time that counts as settled (see `settled`).
    let now = SystemTime::now();
    let listed = match list(dir, profile, platform, previous, now) {
        Ok(listed) => listed,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return (Contents::Missing, None),
        // A file where the folder would be (`.clinerules` is also a rules file) means no hooks.
        Err(err) if DirError::of(&err) == DirError::NotADirectory => {
            return (Contents::Missing, None)
        }
        Err(err) => {
            let why = dir_problem(dir, DirError::of(&err), &err.to_string());
            return (Contents::Unreadable(why), None);
        }
    };
    // Windows' extension profile starts files by their extension, never by a #! line.
    let want_shebang = profile == Profile::Cli || *platform == Platform::Unix;
    let mut entries = Vec::new();
    for (name, listed_as) in listed.of_hooks(wanted, profile, platform) {
        let path = dir.join(name);
        // Gone since the listing: it is not there, so it is not listed.
        let Some((kind, shebang)) = inspect(&path, *listed_as, want_shebang) else {
            continue;
        };
        let launch = launch_for(&path, shebang.as_deref(), profile, platform, tools);
        entries.push(Entry {
            launch,
            kind,
            name: name.clone(),
            shebang,
        });
    }
    (
        Contents::Entries(entries),
        listed.stamp.reusable.then_some(listed),
    )
}

/// The entries of `dir` that could be hooks, sorted by name: `previous` again when the
/// directory's stamp shows it unchanged and settled at `now`, else a fresh listing.
fn list(
    dir: &Path,
    profile: Profile,
    platform: &Platform,
    previous: Option<Listed>,
    now: SystemTime,
) -> io::Result<Listed> {
    let stamp = Stamp::of(dir, now);
    if let Some(previous) = previous {
        if stamp.reusable && previous.stamp == stamp {
            return Ok(previous);
        }
    }
    let mut candidates = Vec::new();
    for item in std::fs::read_dir(dir)? {
        let Ok(item) = item else { continue };
        let Ok(name) = item.file_name().into_string() else {
            continue;
        };
        if could_be_hook_file(&name, profile, platform) {
            candidates.push((name, item.file_type().ok()));
        }
    }
    Ok(Listed::new(stamp, candidates, profile, platform))
}

/// How long after its last change a directory's listing may be reused. Timestamps are
/// coarse (a kernel tick, or 2 s on FAT): a file created in the same tick as the last
/// change leaves the stamp as it was. A directory whose last change is older than this
/// cannot be changed again without its stamp changing, so only then is its listing kept.
pub const SETTLE: Duration = Duration::from_secs(3);

/// What identifies a directory's contents without reading them: on macOS/Linux creating,
/// removing or renaming an entry updates the directory's change time (POSIX), and its inode
/// tells a replaced directory apart. Elsewhere nothing is reusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    /// Device, inode, size, link count, then modification and change times (s, ns).
    id: Option<([u64; 4], [i64; 4])>,
    /// Whether a listing made now may be reused while the stamp stays the same.
    reusable: bool,
}

impl Stamp {
    #[cfg(unix)]
    fn of(dir: &Path, now: SystemTime) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        let Ok(m) = std::fs::metadata(dir) else {
            return Stamp {
                id: None,
                reusable: false,
            };
        };
        let changed = (m.ctime(), m.ctime_nsec()).max((m.mtime(), m.mtime_nsec()));
        Stamp {
            id: Some((
                [m.dev(), m.ino(), m.size(), m.nlink()],
                [m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec()],
            )),
            reusable: settled(changed, now),
        }
    }

    #[cfg(not(unix))]
    fn of(_dir: &Path, _now: SystemTime) -> Stamp {
        Stamp {
            id: None,
            reusable: false,
        }
    }
}

/// Whether a directory last changed at `changed` (seconds and nanoseconds since the epoch)
/// is settled at `now`: changed more than [`SETTLE`] ago. Pure.
#[cfg_attr(not(unix), allow(dead_code))]
fn settled(changed: (i64, i64), now: SystemTime) -> bool {
    let Ok(now) = now.duration_since(SystemTime::UNIX_EPOCH) else {
        return false;
    };
    let (Ok(secs), Ok(nanos)) = (u64::try_from(changed.0), u32::try_from(changed.1)) else {
        return false;
    };
    Duration::new(secs, nanos.min(999_999_999)) + SETTLE < now
}

/// What one look at an entry found.
#[derive(Debug)]
enum Seen {
    Entry(EntryKind, Option<String>),
    /// It is no longer there.
    Gone,
    /// It was replaced between two steps of the look.
    Changed,
}

/// Looks at an entry at most this many times while it keeps being replaced.
const LOOKS: usize = 3;

/// What the entry at `path` is, and its `#!` line (if `want_shebang`), from what was
/// observed: `None` if it was deleted since the listing. Nothing is concluded from two
/// looks that may have seen two different files: the type, mode and first line of a file
/// come from one open file, and a link is called broken only if the same link was there
/// before and after its target could not be found.
fn inspect(
    path: &Path,
    listed_as: Option<std::fs::FileType>,
    want_shebang: bool,
) -> Option<(EntryKind, Option<String>)> {
    for _ in 0..LOOKS {
        match look(path, listed_as, want_shebang) {
            Seen::Entry(kind, shebang) => return Some((kind, shebang)),
            Seen::Gone => return None,
            Seen::Changed => {}
        }
    }
    Some((
        EntryKind::Uninspectable(
            "it was replaced again and again while it was being inspected; it is looked at again on the next discovery".to_owned(),
        ),
        None,
    ))
}

fn look(path: &Path, listed_as: Option<std::fs::FileType>, want_shebang: bool) -> Seen {
    // Listed as a regular file: open it without following links and learn everything
    // from the open file.
    if listed_as.is_some_and(|t| t.is_file()) {
        match open_entry(path, false) {
            Ok(file) => return from_open(&file, None, want_shebang),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Seen::Gone,
            // Replaced by a link, or unreadable: the general way below tells which.
            Err(_) => {}
        }
    }
    let before = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Seen::Gone,
        Err(err) => return Seen::Entry(EntryKind::Uninspectable(inspect_problem(&err)), None),
    };
    if !before.file_type().is_symlink() {
        return with_shebang(path, &before, false, want_shebang);
    }
    match std::fs::metadata(path) {
        Ok(target) => with_shebang(path, &target, true, want_shebang),
        Err(err) => {
            let kind = if err.kind() == io::ErrorKind::NotFound {
                EntryKind::BrokenSymlink
            } else if DirError::of(&err) == DirError::Loop {
                EntryKind::SymlinkLoop
            } else {
                return Seen::Entry(EntryKind::Uninspectable(inspect_problem(&err)), None);
            };
            // Only a link that was there before and after its target was looked for is
            // broken: a link deleted or replaced in between says nothing about its target.
            match std::fs::symlink_metadata(path) {
                Ok(after) if after.file_type().is_symlink() && same_file(&before, &after) => {
                    Seen::Entry(kind, None)
                }
                Err(err) if err.kind() == io::ErrorKind::NotFound => Seen::Gone,
                _ => Seen::Changed,
            }
        }
    }
}

/// The entry whose metadata (`meta`, its target's if it is a link) was just read; for a
/// file, its first line too, read from an open file that must be the same file.
fn with_shebang(path: &Path, meta: &std::fs::Metadata, follow: bool, want_shebang: bool) -> Seen {
    let kind = kind_of(meta);
    if !want_shebang || !matches!(kind, EntryKind::File { .. }) {
        return Seen::Entry(kind, None);
    }
    match open_entry(path, follow) {
        Ok(file) => from_open(&file, Some(meta), want_shebang),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Seen::Changed,
        // Not readable (mode --x): the kernel may still run it; no #! line is known.
        Err(_) => Seen::Entry(kind, None),
    }
}

/// Everything about an entry from its open file; `Changed` if it is not the file whose
/// metadata `expected` is.
fn from_open(
    file: &std::fs::File,
    expected: Option<&std::fs::Metadata>,
    want_shebang: bool,
) -> Seen {
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(err) => return Seen::Entry(EntryKind::Uninspectable(inspect_problem(&err)), None),
    };
    if expected.is_some_and(|expected| !same_file(expected, &meta)) {
        return Seen::Changed;
    }
    let kind = kind_of(&meta);
    let shebang = match kind {
        EntryKind::File { .. } if want_shebang => {
            first_bytes(file).and_then(|head| parse_shebang(&head))
        }
        _ => None,
    };
    Seen::Entry(kind, shebang)
}

/// Opens an entry for reading its first bytes: never blocking (a FIFO swapped in), never
/// taking a terminal, and, unless `follow`, never through a link.
fn open_entry(path: &Path, follow: bool) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | nofollow);
    }
    #[cfg(not(unix))]
    let _ = follow;
    options.open(path)
}

fn first_bytes(file: &std::fs::File) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut head = [0u8; 512];
    let n = (&*file).read(&mut head).ok()?;
    Some(head[..n].to_vec())
}

/// The text after `#!` on the first line, if `head` (a file's first bytes) starts with one,
/// as the kernel keeps it: up to the line feed (or a NUL, where the kernel's string ends),
/// less leading and trailing spaces and tabs only. A carriage return or a no-break space stays:
/// the kernel takes it as part of the program's name, and so must the messages.
pub fn parse_shebang(head: &[u8]) -> Option<String> {
    let rest = head.strip_prefix(b"#!")?;
    let line = rest.split(|b| *b == b'\n' || *b == 0).next()?;
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = line.iter().position(|b| !blank(b)).unwrap_or(line.len());
    let end = line
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |i| i + 1);
    Some(String::from_utf8_lossy(&line[start..end]).into_owned())
}

fn kind_of(meta: &std::fs::Metadata) -> EntryKind {
    if meta.is_file() {
        EntryKind::File {
            executable: is_executable(meta),
        }
    } else if meta.is_dir() {
        EntryKind::Directory
    } else {
        EntryKind::Special
    }
}

/// Whether two metadata describe the same file (Windows: assumed, std has no stable file id).
#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_a: &std::fs::Metadata, _b: &std::fs::Metadata) -> bool {
    true
}

/// Why an entry cannot be inspected, with the fix that fits the error.
fn inspect_problem(err: &io::Error) -> String {
    match DirError::of(err) {
        DirError::NameTooLong => {
            "its path is longer than the system allows; move its hooks directory to a shorter path".to_owned()
        }
        DirError::PermissionDenied => {
            "it cannot be inspected (permission denied); give this user read access to it and search access to its directory".to_owned()
        }
        _ => format!("it cannot be inspected ({err})"),
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
    /// Unix takes any byte but `/` and NUL in a name (a NUL is refused by std, see above).
    pub const INVALID_NAME: Option<i32> = None;
}

#[cfg(not(unix))]
mod errno {
    /// ERROR_CANT_RESOLVE_FILENAME
    pub const LOOP: i32 = 1921;
    /// ERROR_DIRECTORY
    pub const NOT_A_DIRECTORY: i32 = 267;
    /// ERROR_FILENAME_EXCED_RANGE
    pub const NAME_TOO_LONG: i32 = 206;
    /// ERROR_INVALID_NAME
    pub const INVALID_NAME: Option<i32> = Some(123);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::tests::FixedMachine;

    /// The one pick for `hook_name`, where one at most is expected.
    fn pick_one(hook_name: &str, entries: &[Entry], platform: &Platform) -> Option<Pick> {
        let mut picks = pick(hook_name, entries, platform);
        assert!(picks.len() <= 1, "{picks:?}");
        picks.pop()
    }

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
        assert_eq!(pick_one("PreToolUse", &entries, &Platform::Unix), None);
        let entries = [file("PreToolUse", true), file("PreToolUse.sh", true)];
        let picked = pick_one("PreToolUse", &entries, &Platform::Unix).unwrap();
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
            let picked =
                pick_one("TaskStart", &[entry("TaskStart", kind)], &Platform::Unix).unwrap();
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
            pick_one("PreToolUse", &entries, &win).unwrap().file_name,
            "PreToolUse.bat"
        );
        let entries = [file("PreToolUse.exe", true), file("pretooluse.PS1", true)];
        let picked = pick_one("PreToolUse", &entries, &win).unwrap();
        assert_eq!(
            (picked.file_name.as_str(), picked.kind),
            ("pretooluse.PS1", LaunchKind::PowerShell)
        );
        assert_eq!(
            pick_one("PreToolUse", &[file("PreToolUse", true)], &win),
            None
        );
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
            let picked = pick_one("Hook", &[file(file_name, true)], &win).unwrap();
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
        let picked = pick_one("TaskStart", &entries, &win).unwrap();
        assert_eq!(
            (picked.file_name.as_str(), picked.kind),
            ("TaskStart.cmd", LaunchKind::Cmd)
        );
        assert_eq!(
            pick_one("TaskStart", &[file("TaskStart.bat", true)], &win),
            None
        );
        let vbs = pick_one(
            "TaskStart",
            &[file("TaskStart.vbs", true)],
            &Platform::windows(""),
        )
        .unwrap();
        assert!(vbs.disabled.unwrap().contains(".vbs"));
    }

    #[test]
    fn a_rescan_inspects_only_the_files_of_the_hooks_asked_for() {
        let names = [
            "Log1",
            "PreToolUse",
            "PreToolUse.ps1",
            "pretooluse.cmd",
            "TaskStart",
            "f2.sh",
        ];
        let wanted: BTreeSet<String> = ["PreToolUse".to_owned()].into();
        let of = |profile, platform: &Platform| {
            let stamp = Stamp {
                id: None,
                reusable: false,
            };
            let listed = Listed::new(stamp, candidates_of(&names), profile, platform);
            listed
                .of_hooks(Some(&wanted), profile, platform)
                .into_iter()
                .map(|(name, _)| name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(of(Profile::Extension, &Platform::Unix), ["PreToolUse"]);
        assert_eq!(
            of(Profile::Extension, &Platform::windows("")),
            ["PreToolUse", "PreToolUse.ps1", "pretooluse.cmd"]
        );
        assert_eq!(
            of(Profile::Cli, &Platform::Unix),
            ["PreToolUse", "PreToolUse.ps1", "pretooluse.cmd"]
        );
        assert!(is_file_of(
            "PreToolUse",
            "PreToolUse",
            Profile::Extension,
            &Platform::Unix
        ));
        assert!(!is_file_of(
            "pretooluse",
            "PreToolUse",
            Profile::Extension,
            &Platform::Unix
        ));
        assert!(!is_file_of(
            "Log1",
            "PreToolUse",
            Profile::Cli,
            &Platform::Unix
        ));
    }

    fn candidates_of(names: &[&str]) -> Vec<(String, Option<std::fs::FileType>)> {
        names.iter().map(|n| ((*n).to_owned(), None)).collect()
    }

    #[test]
    fn only_names_that_can_be_hooks_for_the_profile_are_candidates() {
        let unix = Platform::Unix;
        let win = Platform::windows("");
        let ext = Profile::Extension;
        for name in ["PreToolUse", "FutureHook2", "A"] {
            assert!(could_be_hook_file(name, ext, &unix), "{name}");
        }
        // What a crowded folder holds: none of it is inspected.
        for name in [
            "f12345",
            "file12345",
            "Notes12345.txt",
            "PreToolUse.sh",
            "PreToolUse.ps1",
            "pretooluse",
            "Pre-Tool",
            ".PreToolUse",
            "",
        ] {
            assert!(!could_be_hook_file(name, ext, &unix), "{name}");
        }
        for name in [
            "PreToolUse.ps1",
            "pretooluse.CMD",
            "TaskStart.exe",
            "Hook.vbs",
        ] {
            assert!(could_be_hook_file(name, ext, &win), "{name}");
        }
        for name in [
            "PreToolUse",
            "PreToolUse.txt",
            "PreToolUse.test.cmd",
            "f-1.cmd",
            "1Hook.cmd",
        ] {
            assert!(!could_be_hook_file(name, ext, &win), "{name}");
        }
        let cli = Profile::Cli;
        for name in [
            "PreToolUse.sh",
            "pretooluse.PY",
            "PreToolUse",
            "TaskStart.mjs",
        ] {
            assert!(could_be_hook_file(name, cli, &unix), "{name}");
        }
        for name in [
            "PreToolUse.md",
            "f12345.txt",
            "data-1.json",
            "PreToolUse.sh.bak",
        ] {
            assert!(!could_be_hook_file(name, cli, &unix), "{name}");
        }
    }

    #[test]
    fn pathext_entries_without_a_dot_and_past_the_cap_are_not_searched_and_say_why() {
        let parsed = PathExt::parse(" .cmd ; BAT;;.EXE;.ps1;.CMD;.");
        assert_eq!(parsed.searched(), [".cmd", ".exe"]);
        assert_eq!(parsed.rule(".PS1"), Some(&ExtRule::Rank(0)));
        assert_eq!(parsed.rule(".Cmd"), Some(&ExtRule::Rank(1)));
        let Some(ExtRule::Ignored(why)) = parsed.rule(".bat") else {
            panic!("{parsed:?}")
        };
        assert!(
            why.contains("BAT without its leading dot") && why.contains("write .BAT in PATHEXT"),
            "{why}"
        );
        // A dotless entry does not hide the same extension written properly.
        assert_eq!(
            PathExt::parse("CMD;.CMD").rule(".cmd"),
            Some(&ExtRule::Rank(1))
        );

        let many: Vec<String> = (0..1000).map(|i| format!(".X{i}")).collect();
        let parsed = PathExt::parse(&format!("{};.CMD", many.join(";")));
        assert_eq!(parsed.searched().len(), PATHEXT_CAP);
        assert_eq!(parsed.rule(".x63"), Some(&ExtRule::Rank(64)));
        let Some(ExtRule::Ignored(why)) = parsed.rule(".cmd") else {
            panic!("{:?}", parsed.rule(".cmd"))
        };
        assert!(why.contains("after its first 64 extensions"), "{why}");
    }

    #[test]
    fn windows_a_folder_named_like_a_hook_does_not_shadow_the_file_after_it() {
        let win = Platform::windows("");
        for folder in ["PreToolUse.exe", "PreToolUse.ps1", "PRETOOLUSE.COM"] {
            let entries = [
                entry(folder, EntryKind::Directory),
                file("PreToolUse.cmd", true),
                file("PreToolUse.vbs", true),
            ];
            let picks = pick("PreToolUse", &entries, &win);
            let listed: Vec<_> = picks
                .iter()
                .map(|p| (p.file_name.as_str(), p.disabled.is_none()))
                .collect();
            assert_eq!(
                listed,
                [(folder, false), ("PreToolUse.cmd", true)],
                "{folder}"
            );
            let why = picks[0].disabled.as_deref().unwrap_or_default();
            assert!(
                why.contains("directory, not a file")
                    && why.contains("Windows passes over it, so PreToolUse.cmd runs instead"),
                "{why}"
            );
            assert_eq!(picks[1].kind, LaunchKind::Cmd);
        }
        // With no file behind it, the folder is listed alone, disabled.
        let only = pick(
            "PreToolUse",
            &[entry("PreToolUse.exe", EntryKind::Directory)],
            &win,
        );
        assert_eq!(only.len(), 1);
        assert_eq!(
            only[0].disabled.as_deref(),
            Some("it is a directory, not a file")
        );
        // A file PATHEXT names without a dot is listed disabled with the reason.
        let dotless = Platform::windows("CMD;.BAT");
        let picks = pick("TaskStart", &[file("TaskStart.cmd", true)], &dotless);
        assert_eq!(picks.len(), 1);
        let why = picks[0].disabled.as_deref().unwrap_or_default();
        assert!(why.contains("CMD without its leading dot"), "{why}");
    }

    #[test]
    fn a_listing_is_reused_only_while_its_directory_is_unchanged_and_settled() {
        let t = |secs: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
        assert!(settled((100, 0), t(104)));
        assert!(
            !settled((100, 0), t(103)),
            "within SETTLE of the last change"
        );
        assert!(!settled((100, 0), t(90)), "a change in the future");
        assert!(!settled((-1, 0), t(104)));

        let dir = scratch("reuse");
        std::fs::write(dir.join("PreToolUse"), "#!/bin/sh\n").unwrap();
        let later = SystemTime::now() + SETTLE + Duration::from_secs(1);
        let list_at =
            |previous, now| list(&dir, Profile::Extension, &Platform::Unix, previous, now).unwrap();
        let first = list_at(None, later);
        assert_eq!(first.candidates.len(), 1);
        assert_eq!(first.stamp.reusable, cfg!(unix));
        // Unchanged: the remembered listing comes back without reading the directory.
        let mut marked = first.clone();
        marked.candidates.clear();
        assert_eq!(
            list_at(Some(marked.clone()), later).candidates.len(),
            usize::from(!cfg!(unix))
        );
        // Just changed (the real clock): listed again, and not to be reused.
        let fresh = list_at(Some(marked.clone()), SystemTime::now());
        assert_eq!((fresh.candidates.len(), fresh.stamp.reusable), (1, false));
        // Changed since: listed again.
        std::fs::write(dir.join("TaskStart"), "#!/bin/sh\n").unwrap();
        assert_eq!(list_at(Some(marked), later).candidates.len(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A fresh empty folder under the system temp dir.
    fn scratch(tag: &str) -> PathBuf {
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "cline-hooks-discover-{tag}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[cfg(unix)]
    #[test]
    fn an_entry_is_described_by_what_was_observed_of_it() {
        use std::os::unix::fs::symlink;
        let dir = scratch("inspect");
        let hook = dir.join("PreToolUse");
        std::fs::write(&hook, "#!/bin/sh -e\necho\n").unwrap();
        let listed_as = std::fs::symlink_metadata(&hook).unwrap().file_type();
        assert_eq!(
            inspect(&hook, Some(listed_as), true),
            Some((
                EntryKind::File { executable: false },
                Some("/bin/sh -e".to_owned())
            ))
        );
        // Deleted between the listing and the look: gone, not "a broken symbolic link".
        std::fs::remove_file(&hook).unwrap();
        assert_eq!(inspect(&hook, Some(listed_as), true), None);
        assert_eq!(inspect(&hook, None, true), None);
        // A real broken link is one.
        symlink(dir.join("missing"), &hook).unwrap();
        let listed_as = std::fs::symlink_metadata(&hook).unwrap().file_type();
        assert_eq!(
            inspect(&hook, Some(listed_as), true),
            Some((EntryKind::BrokenSymlink, None))
        );
        // A link to a file is that file; listed as a file but now a link, it is followed.
        std::fs::write(dir.join("target"), "#!/bin/bash\n").unwrap();
        std::fs::remove_file(&hook).unwrap();
        symlink(dir.join("target"), &hook).unwrap();
        let file_type = std::fs::metadata(dir.join("target")).unwrap().file_type();
        assert_eq!(
            inspect(&hook, Some(file_type), true),
            Some((
                EntryKind::File { executable: false },
                Some("/bin/bash".to_owned())
            ))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Issue 18 (B1): the `#!` line is kept as the kernel keeps it.
    #[test]
    fn a_shebang_line_keeps_what_the_kernel_keeps() {
        assert_eq!(
            parse_shebang(b"#!/bin/sh\r\necho\r\n").as_deref(),
            Some("/bin/sh\r")
        );
        assert_eq!(
            parse_shebang("#!/bin/sh\u{a0}\n".as_bytes()).as_deref(),
            Some("/bin/sh\u{a0}")
        );
        assert_eq!(
            parse_shebang(b"#! \t/bin/sh -e \t\n").as_deref(),
            Some("/bin/sh -e")
        );
        assert_eq!(
            parse_shebang(b"#!/bin/sh\0junk\n").as_deref(),
            Some("/bin/sh")
        );
        assert_eq!(parse_shebang(b"#!  \n").as_deref(), Some(""));
        assert_eq!(parse_shebang(b"echo"), None);
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
    fn windows_default_pathext_applies_when_unset() {
        let Platform::Windows { pathext } = Platform::windows("") else {
            panic!()
        };
        assert_eq!(&pathext.searched()[..4], [".com", ".exe", ".bat", ".cmd"]);
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
