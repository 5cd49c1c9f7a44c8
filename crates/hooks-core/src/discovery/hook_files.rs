//! Which entries of a folder's listing are hooks, and how each one starts. Pure rules over
//! names and entry types (the hook name, PATHEXT, the CLI's extensions), so the Windows rules
//! are tested on Linux too.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use super::Profile;
use crate::launch::{self, node_extname, Interpreters, Launch, LaunchKind};
use crate::verdict::is_js_space;

/// The file-naming rules to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Platform {
    /// macOS and Linux: the extensionless, executable file named like the hook.
    Unix,
    /// Windows: `Name.ps1`, then `Name<ext>` for each PATHEXT extension, in that order.
    Windows {
        /// The extensions searched after `.ps1`, and what PATHEXT makes of the others.
        pathext: PathExt,
    },
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
    /// A regular file.
    File {
        /// Whether any exec bit is set (always true on Windows, which has none).
        executable: bool,
    },
    /// A directory.
    Directory,
    /// A symbolic link whose target does not exist.
    BrokenSymlink,
    /// A symbolic link that leads back to itself.
    SymlinkLoop,
    /// A pipe, socket or device.
    Special,
    /// It could not be inspected; the sentence says why and what to do.
    Uninspectable(String),
    /// A managed hook whose file or folder someone other than root/Administrators can write;
    /// the sentence says who and what to do (see `managed.rs`).
    Refused(String),
}

/// A directory entry named like a hook, as the scan found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its file name.
    pub name: String,
    /// What it is.
    pub kind: EntryKind,
    /// The text after `#!` on a file's first line.
    pub shebang: Option<String>,
    /// How it starts (interpreters resolved when the directory was scanned).
    pub launch: Launch,
    /// The sha256 of its bytes (see [`crate::policy::sha256_of`]), for a file.
    pub sha256: Option<String>,
    /// Its `cline-hook:` header, for a file.
    pub header: super::Header,
}

/// A file that is a hook, or would be if it were runnable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    /// Its file name.
    pub file_name: String,
    /// How it is started.
    pub kind: LaunchKind,
    /// Why it will not run; `None` means it runs.
    pub disabled: Option<String>,
    /// Its entry's launch, as the scan resolved it.
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
        // Windows drops a trailing space from a name it opens, so such a file would be
        // inspected and run as another one (`PreToolUse ` as `PreToolUse`).
        (Profile::Cli, Platform::Windows { .. }) if name.ends_with(' ') => false,
        (Profile::Cli, _) => cli_stem(name).is_some_and(names_a_hook),
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

/// The CLI profile's rule: every file of the hook (see [`is_cli_file_of`]), in path order.
/// Several per directory are allowed.
pub fn pick_cli(hook_name: &str, entries: &[Entry]) -> Vec<Pick> {
    let mut picks: Vec<Pick> = entries
        .iter()
        .filter(|e| is_cli_file_of(&e.name, hook_name))
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

/// Whether `file_name` is a file of the hook `hook_name` under the CLI profile's rule, the
/// Cline SDK's: its extension ([`node_extname`]) is none or one of [`CLI_EXTENSIONS`], and the
/// rest of its name, trimmed as JavaScript's `trim` trims and lowered as `toLowerCase` lowers,
/// is the hook name in lower case. So `PreToolUse .sh`, ` pretooluse.py` and `PRETOOLUSE`
/// count, and `PreToolUse.test.sh` does not. The extension counts in any case
/// (`pretooluse.SH`): the SDK lowers it to compare it too, but then cuts the lowered extension
/// off the name with Node's `basename(name, ext)`, which compares case-sensitively, so there
/// `pretooluse.SH` keeps its `.SH`, names no hook and never runs. Pure.
pub fn is_cli_file_of(file_name: &str, hook_name: &str) -> bool {
    cli_stem(file_name).is_some_and(|stem| {
        lowered(stem).eq(hook_name.chars().map(|c| c.to_ascii_lowercase())) && names_a_hook(stem)
    })
}

/// The name of a CLI-profile file without its extension and the blanks around it, when its
/// extension is one the profile runs.
fn cli_stem(file_name: &str) -> Option<&str> {
    let ext = node_extname(file_name);
    CLI_EXTENSIONS
        .iter()
        .any(|e| e.eq_ignore_ascii_case(ext))
        .then(|| file_name[..file_name.len() - ext.len()].trim_matches(is_js_space))
}

/// `stem` as `toLowerCase` lowers it (Unicode's rules: the Kelvin sign becomes `k`).
fn lowered(stem: &str) -> impl Iterator<Item = char> + '_ {
    stem.chars().flat_map(char::to_lowercase)
}

/// Whether `stem` lowered is a hook name in lower case (`^[a-z][a-z0-9]{0,63}$`), without
/// building it: every entry of a crowded folder is asked.
fn names_a_hook(stem: &str) -> bool {
    // A hook name is at most 64 characters: a stem of more than 4 × 64 bytes has more than
    // 64 characters, and lowering never drops one.
    if stem.len() > 4 * 64 {
        return false;
    }
    let mut count = 0;
    for (at, c) in lowered(stem).enumerate() {
        if !(c.is_ascii_lowercase() || (at > 0 && c.is_ascii_digit())) {
            return false;
        }
        count = at + 1;
    }
    (1..=64).contains(&count)
}

/// `stem` lowered, when that is a hook name in lower case.
fn lowered_name(stem: &str) -> Option<String> {
    names_a_hook(stem).then(|| lowered(stem).collect())
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
        EntryKind::Uninspectable(why) | EntryKind::Refused(why) => why.clone(),
    }
}

/// The hook name in ASCII lower case that a file name (one that [`could_be_hook_file`]) is
/// filed under: the whole name for the extension profile on macOS/Linux (no extension), the
/// name before its first dot on Windows, the name the CLI profile's rule finds in it.
pub(super) fn stem_key(file_name: &str, profile: Profile, platform: &Platform) -> String {
    match (profile, platform) {
        (Profile::Extension, Platform::Unix) => file_name.to_ascii_lowercase(),
        (Profile::Extension, Platform::Windows { .. }) => {
            split_extension(file_name).0.to_ascii_lowercase()
        }
        (Profile::Cli, _) => cli_stem(file_name)
            .and_then(lowered_name)
            .unwrap_or_default(),
    }
}

/// Whether `file_name` (one that [`could_be_hook_file`]) is a file of the hook `hook_name`:
/// named exactly so for the extension profile on macOS/Linux, its stem in any letter case on
/// Windows, and by [`is_cli_file_of`] for the CLI profile.
pub fn is_file_of(file_name: &str, hook_name: &str, profile: Profile, platform: &Platform) -> bool {
    match (profile, platform) {
        (Profile::Extension, Platform::Unix) => file_name == hook_name,
        (Profile::Extension, Platform::Windows { .. }) => {
            split_extension(file_name).0.eq_ignore_ascii_case(hook_name)
        }
        (Profile::Cli, _) => is_cli_file_of(file_name, hook_name),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::launch::tests::FixedMachine;
    use std::ffi::OsString;
    use std::path::PathBuf;

    /// A fresh empty folder under the system temp dir.
    pub(crate) fn scratch(tag: &str) -> PathBuf {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "cline-hooks-discover-{tag}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The one pick for `hook_name`, where one at most is expected.
    fn pick_one(hook_name: &str, entries: &[Entry], platform: &Platform) -> Option<Pick> {
        let mut picks = pick(hook_name, entries, platform);
        assert!(picks.len() <= 1, "{picks:?}");
        picks.pop()
    }

    pub(crate) fn file(name: &str, executable: bool) -> Entry {
        entry(name, EntryKind::File { executable })
    }

    /// An entry whose launch is its own path (what a direct start resolves to).
    pub(crate) fn entry(name: &str, kind: EntryKind) -> Entry {
        Entry {
            name: name.to_owned(),
            kind,
            shebang: None,
            launch: Launch::Argv(vec![OsString::from(name)]),
            sha256: None,
            header: Default::default(),
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

    /// The Cline SDK's own rule (its `createHookConfigFileHooks` file listing), checked name by
    /// name with Node 20: every name here but the extension's case is decided the same.
    #[test]
    fn cli_profile_names_follow_the_sdk_rule() {
        let hooks = [
            ("PreToolUse", "PreToolUse"),
            ("pretooluse.sh", "PreToolUse"),
            ("PreToolUse .sh", "PreToolUse"),
            (" PreToolUse.py", "PreToolUse"),
            ("PreToolUse\t.sh", "PreToolUse"),
            ("\u{feff}PreToolUse.js", "PreToolUse"),
            ("\u{3000}PreToolUse\u{a0}.cjs", "PreToolUse"),
            ("PRETOOLUSE", "PreToolUse"),
            (" PreToolUse ", "PreToolUse"),
            ("PreToolUse\r\n.mjs", "PreToolUse"),
            ("PreToolUse.ps1", "PreToolUse"),
            ("PreToolUse.cts", "PreToolUse"),
            // `toLowerCase` lowers the Kelvin sign to `k`.
            ("Tas\u{212a}Start.sh", "TaskStart"),
            // Where this rule and the SDK's part: it finds no hook in these (see is_cli_file_of).
            ("pretooluse.SH", "PreToolUse"),
            ("PreToolUse.Js", "PreToolUse"),
            (" PreToolUse .PY", "PreToolUse"),
        ];
        for (name, hook) in hooks {
            assert!(is_cli_file_of(name, hook), "{name:?}");
            assert!(
                could_be_hook_file(name, Profile::Cli, &Platform::Unix),
                "{name:?}"
            );
            assert_eq!(
                stem_key(name, Profile::Cli, &Platform::Unix),
                hook.to_ascii_lowercase(),
                "{name:?}"
            );
        }
        for name in [
            "PreToolUse.test.sh",
            "PreToolUse.sh.bak",
            "Pre ToolUse.sh",
            "PreToolUse.sh ",
            // NEL is no blank to JavaScript's trim, nor a zero-width space.
            "\u{85}PreToolUse.sh",
            "\u{200b}PreToolUse.sh",
            ".PreToolUse",
            "PreToolUse.",
            "PreToolUse..sh",
            "PreToolUse.md",
            "PreToolUseX.sh",
            "PostToolUse.sh",
            // `toLowerCase` lowers `İ` to `i` and a combining dot.
            "\u{130}Hook.sh",
        ] {
            assert!(!is_cli_file_of(name, "PreToolUse"), "{name:?}");
        }
        // Any name that can be a hook's is a candidate, a future hook's too; others are not.
        for name in ["FutureHook2 .sh", " notification.PY"] {
            assert!(
                could_be_hook_file(name, Profile::Cli, &Platform::Unix),
                "{name:?}"
            );
        }
        for name in [
            "Pre ToolUse.sh",
            "1Hook.sh",
            "\u{85}TaskStart",
            "TaskStart.sh.bak",
            "",
        ] {
            assert!(
                !could_be_hook_file(name, Profile::Cli, &Platform::Unix),
                "{name:?}"
            );
        }
        let long = format!("A{}", "b".repeat(63));
        assert!(could_be_hook_file(
            &format!(" {long}.sh"),
            Profile::Cli,
            &Platform::Unix
        ));
        assert!(!could_be_hook_file(
            &format!(" {long}b.sh"),
            Profile::Cli,
            &Platform::Unix
        ));
    }

    /// Windows drops a trailing space from the name of a file it opens: such a file would be
    /// inspected and started as another one, so on Windows it is no candidate.
    #[test]
    fn cli_profile_on_windows_passes_over_names_ending_in_a_space() {
        let win = Platform::windows("");
        assert!(could_be_hook_file(" PreToolUse.py", Profile::Cli, &win));
        assert!(could_be_hook_file("PreToolUse .SH", Profile::Cli, &win));
        assert!(!could_be_hook_file("PreToolUse ", Profile::Cli, &win));
        assert!(could_be_hook_file(
            "PreToolUse ",
            Profile::Cli,
            &Platform::Unix
        ));
        assert!(could_be_hook_file("PreToolUse\t", Profile::Cli, &win));
    }

    #[test]
    fn cli_picks_files_named_with_blanks_and_any_case_in_path_order() {
        let entries = [
            file(" PreToolUse.py", false),
            file("PreToolUse .cjs", false),
            file("pretooluse.SH", false),
            file("PreToolUse.Js", false),
            file("Pre ToolUse.sh", false),
            file("PreToolUse .sh.bak", false),
        ];
        let names: Vec<_> = pick_cli("PreToolUse", &entries)
            .into_iter()
            .map(|p| (p.file_name, p.disabled))
            .collect();
        assert_eq!(
            names,
            [
                (" PreToolUse.py".to_owned(), None),
                ("PreToolUse .cjs".to_owned(), None),
                ("PreToolUse.Js".to_owned(), None),
                ("pretooluse.SH".to_owned(), None),
            ]
        );
        assert!(is_file_of(
            "PreToolUse .cjs",
            "PreToolUse",
            Profile::Cli,
            &Platform::Unix
        ));
        assert!(!is_file_of(
            "PreToolUse .cjs",
            "PreToolUse",
            Profile::Extension,
            &Platform::Unix
        ));
    }

    #[test]
    fn cli_launches_follow_the_extension_in_any_case_on_both_platforms() {
        let machine = &mut FixedMachine::unix()
            .with("pwsh", "/opt/pwsh")
            .with("py", r"C:\py.exe");
        for windows in [false, true] {
            let mut tools = Interpreters::new(machine, Some("/opt/node".into()), windows);
            let mut argv = |name: &str| match launch_for(
                &PathBuf::from("/h").join(name),
                None,
                Profile::Cli,
                &Platform::Unix,
                &mut tools,
            ) {
                Launch::Argv(argv) => argv
                    .iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect::<Vec<_>>(),
                other => panic!("{name}: {other:?}"),
            };
            for name in ["pretooluse.SH", "PreToolUse .Bash", " PreToolUse "] {
                assert_eq!(argv(name)[0], "/usr/bin/bash", "{name}");
            }
            for name in ["PreToolUse.Js", "PreToolUse .CJS", " PreToolUse.MJS"] {
                assert_eq!(argv(name)[0], "/opt/node", "{name}");
            }
            let python = if windows {
                r"C:\py.exe"
            } else {
                "/usr/bin/python3"
            };
            assert_eq!(argv("PreToolUse.PY")[0], python);
            assert_eq!(argv("PreToolUse.TS")[0], "/usr/bin/bun");
            let ps1 = argv("PreToolUse.Ps1");
            assert_eq!(ps1[0], "/opt/pwsh");
            assert!(
                ps1[ps1.len() - 2] == "-File" && ps1[ps1.len() - 1].ends_with("PreToolUse.Ps1")
            );
        }
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
    fn windows_default_pathext_applies_when_unset() {
        let Platform::Windows { pathext } = Platform::windows("") else {
            panic!()
        };
        assert_eq!(&pathext.searched()[..4], [".com", ".exe", ".bat", ".cmd"]);
    }

    #[test]
    fn a_file_belongs_to_a_hook_by_its_exact_name_or_its_stem_in_any_case() {
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
        assert!(is_file_of(
            "pretooluse.CMD",
            "PreToolUse",
            Profile::Extension,
            &Platform::windows("")
        ));
    }
}
