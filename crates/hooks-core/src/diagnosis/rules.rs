//! The doctor's rules: what is wrong with a file in a hooks folder, said for its author, with
//! the fix. Pure functions over names, entry kinds and the reasons discovery already gave.

use std::path::Path;

use crate::discovery::{EntryKind, Platform, Profile, KNOWN_HOOKS};
use crate::launch::{kernel_shebang, LaunchKind, NO_PWSH};
use crate::policy::{DISABLED, NOT_TRUSTED_CHANGED, NOT_TRUSTED_NEW};

/// Why a file in a searched folder will not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// macOS/Linux: the exec bit is off.
    NotExecutable,
    /// Named after a hook, but not the way this platform and profile run it (`PreToolUse.sh`
    /// in the extension profile on macOS/Linux, `PreToolUse` without extension on Windows).
    WrongPlatformName,
    /// Named close to a hook (`PretoolUse`, `PreTolUse`, `PreToolUse.bak`), not as one.
    UnknownHookName,
    /// Named like no hook at all (a helper script, notes): ignored, and that is fine.
    NotAHook,
    /// Its `#!` line names a program that does not exist, or a PATH lookup that fails.
    MissingInterpreter,
    /// Its `#!` line ends with a carriage return: the file has Windows line endings.
    WindowsLineEndings,
    /// macOS/Linux: a script without a `#!` line, which the system cannot start.
    NoShebang,
    /// A `.ps1` hook where no PowerShell is found.
    NoPowerShell,
    /// A directory, a broken or looping link, a device.
    NotAFile,
    /// Windows runs one file per hook per folder, and another one of this hook comes first.
    Shadowed,
    /// The user disabled it in the policy store.
    DisabledByUser,
    /// Trust is on and these bytes are not approved.
    NotTrusted,
    /// Any other reason discovery gave (a PATHEXT type not started, an unsafe path, a managed
    /// hook others can write).
    CannotRun,
    /// A Claude settings handler whose command runs a script that is not there: it starts,
    /// and fails (or, where the interpreter exits 2, blocks) every time.
    MissingScript,
}

impl Problem {
    /// Its name in reports: `notExecutable`, `wrongPlatformName`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Problem::NotExecutable => "notExecutable",
            Problem::WrongPlatformName => "wrongPlatformName",
            Problem::UnknownHookName => "unknownHookName",
            Problem::NotAHook => "notAHook",
            Problem::MissingInterpreter => "missingInterpreter",
            Problem::WindowsLineEndings => "windowsLineEndings",
            Problem::NoShebang => "noShebang",
            Problem::NoPowerShell => "noPowerShell",
            Problem::NotAFile => "notAFile",
            Problem::Shadowed => "shadowed",
            Problem::DisabledByUser => "disabledByUser",
            Problem::NotTrusted => "notTrusted",
            Problem::CannotRun => "cannotRun",
            Problem::MissingScript => "missingScript",
        }
    }

    /// Whether it is a mistake to fix (the doctor's exit status 1): everything but a file
    /// named like no hook, which is left alone on purpose (helpers, notes, `.gitkeep`).
    pub fn is_mistake(self) -> bool {
        self != Problem::NotAHook
    }
}

/// One finding: what is wrong, in a sentence, and how to fix it (a command when there is one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What kind of problem.
    pub problem: Problem,
    /// Why the file will not run, for its author.
    pub reason: String,
    /// What to do: a command to run, or a sentence.
    pub fix: Option<String>,
    /// For a misnamed file, the hook it most likely meant to be (in the report: `hookName`).
    pub meant: Option<&'static str>,
    /// The name its fix renames it to, when the fix is a rename: two files of a folder are
    /// never both advised onto one name (see [`settle_renames`]).
    pub renames_to: Option<String>,
}

impl Finding {
    pub(super) fn new(problem: Problem, reason: impl Into<String>, fix: Option<String>) -> Finding {
        Finding {
            problem,
            reason: reason.into(),
            fix,
            meant: None,
            renames_to: None,
        }
    }

    fn meaning(mut self, hook: &'static str) -> Finding {
        self.meant = Some(hook);
        self
    }

    fn renaming(mut self, to: Option<String>) -> Finding {
        self.renames_to = to;
        self
    }
}

/// Extensions of programs and scripts: a file named `<Hook><one of these>` was meant as that
/// hook, written for another platform or profile.
const PROGRAM_EXTENSIONS: [&str; 20] = [
    ".sh", ".bash", ".zsh", ".fish", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".rb",
    ".pl", ".php", ".ps1", ".cmd", ".bat", ".exe", ".com", ".psm1",
];

/// Extensions of temporary files: `PreToolUse.tmp` is an editor's or a tool's save in progress
/// (written, then renamed over the hook), there for a moment, not a hook meant to run.
const TEMPORARY_EXTENSIONS: [&str; 5] = [".tmp", ".temp", ".swp", ".swo", ".part"];

/// Extensions of documents: `PreToolUse.md` is notes about the hook, not a copy of it.
const DOCUMENT_EXTENSIONS: [&str; 10] = [
    ".md", ".txt", ".rst", ".json", ".yaml", ".yml", ".toml", ".log", ".csv", ".html",
];

/// The largest edit distance at which a name still counts as a misspelt hook name.
const MAX_DISTANCE: usize = 2;

/// The known hook `name` most likely means: equal ignoring case, else the nearest within
/// two edits ignoring case (ties: the first in [`KNOWN_HOOKS`]). Pure.
pub fn closest_hook(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let mut best = None;
    let mut best_distance = MAX_DISTANCE + 1;
    for hook in KNOWN_HOOKS {
        let distance = edit_distance(&lower, &hook.to_ascii_lowercase());
        // Equal ignoring case is distance 0, so it always wins.
        if distance < best_distance {
            best = Some(hook);
            best_distance = distance;
        }
    }
    best
}

/// The known hook a file named `file_name` is meant for, by the doctor's reading of names:
/// its stem (the name up to its first dot, trimmed) is a hook's name in any case, or within two
/// edits of one; `None` for a dot file or a name like no hook. Pure, and cheap for the names
/// of a large folder: a stem whose length is far from every hook's costs no edit distance.
pub fn meant_hook(file_name: &str) -> Option<&'static str> {
    if file_name.starts_with('.') {
        return None;
    }
    let stem = name_stem(file_name);
    if stem.is_empty() {
        return None;
    }
    let length = stem.chars().count();
    let counts = letter_counts(stem);
    // An edit changes a name's length by one at most and its letter counts by two at most: a
    // hook farther off in either cannot be within reach, so a folder of other files costs no
    // edit distance.
    static HOOK_COUNTS: std::sync::OnceLock<Vec<[u8; 27]>> = std::sync::OnceLock::new();
    let hook_counts =
        HOOK_COUNTS.get_or_init(|| KNOWN_HOOKS.iter().map(|h| letter_counts(h)).collect());
    let near = KNOWN_HOOKS.iter().zip(hook_counts).any(|(hook, theirs)| {
        let apart: usize = counts
            .iter()
            .zip(theirs.iter())
            .map(|(a, b)| usize::from(a.abs_diff(*b)))
            .sum();
        hook.len().abs_diff(length) <= MAX_DISTANCE && apart <= 2 * MAX_DISTANCE
    });
    if !near {
        return None;
    }
    closest_hook(stem)
}

/// How many of each letter `text` holds, ignoring case; every other character counts as one
/// kind of its own.
fn letter_counts(text: &str) -> [u8; 27] {
    let mut counts = [0u8; 27];
    for c in text.chars() {
        let at = match c.to_ascii_lowercase() {
            letter @ 'a'..='z' => letter as usize - 'a' as usize,
            _ => 26,
        };
        counts[at] = counts[at].saturating_add(1);
    }
    counts
}

/// A file name's stem as the doctor reads it: up to its first dot (one at the start does not
/// count), trimmed.
fn name_stem(file_name: &str) -> &str {
    let trimmed = file_name.trim();
    match trimmed.find('.') {
        Some(dot) if dot > 0 => &trimmed[..dot],
        _ => trimmed,
    }
}

/// Levenshtein distance over characters, with adjacent swaps counted as one edit
/// (`PerToolUse`). Pure; names are short (the caller passes file names).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(128).collect();
    let b: Vec<char> = b.chars().take(128).collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (i, cell) in d.iter_mut().step_by(width).enumerate() {
        *cell = i;
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// The name a hook file of `hook` carries in `profile` on `platform`: `PreToolUse` on
/// macOS/Linux (the CLI profile takes it too), `PreToolUse.ps1` on Windows' extension profile.
pub fn platform_file_name(hook: &str, profile: Profile, platform: &Platform) -> String {
    match (profile, platform) {
        (Profile::Extension, Platform::Windows { .. }) => format!("{hook}.ps1"),
        _ => hook.to_owned(),
    }
}

/// The name a misnamed file of `hook` whose extension is `ext` is to be renamed to: the name
/// this platform and profile run ([`platform_file_name`]), but in the cli profile a file keeps an
/// extension that profile runs it by (`PreTolUse.py` → `PreToolUse.py`: its interpreter).
fn renamed_for(hook: &str, ext: &str, profile: Profile, platform: &Platform) -> String {
    let keeps = profile == Profile::Cli
        && crate::discovery::CLI_EXTENSIONS
            .iter()
            .any(|known| known.eq_ignore_ascii_case(ext));
    if keeps {
        format!("{hook}{ext}")
    } else {
        platform_file_name(hook, profile, platform)
    }
}

/// What is wrong with a file named `file_name` at `path` that is no file of a known hook
/// under these rules (discovery did not list it). `siblings` are the names in its folder: a
/// rename is never advised onto a name that is taken (it would replace that file). Pure.
pub fn name_finding(
    path: &Path,
    file_name: &str,
    siblings: &[String],
    profile: Profile,
    platform: &Platform,
) -> Finding {
    let (finding, meant) = misnamed(path, file_name, siblings, profile, platform);
    match meant {
        Some(hook) => finding.meaning(hook),
        None => finding,
    }
}

fn misnamed(
    path: &Path,
    file_name: &str,
    siblings: &[String],
    profile: Profile,
    platform: &Platform,
) -> (Finding, Option<&'static str>) {
    let windows = matches!(platform, Platform::Windows { .. });
    let trimmed = file_name.trim();
    let (stem, ext) = match trimmed.find('.') {
        Some(dot) if dot > 0 => (&trimmed[..dot], &trimmed[dot..]),
        _ => (trimmed, ""),
    };
    let ext_lower = ext.to_ascii_lowercase();
    let taken = |to: &str| {
        siblings
            .iter()
            .any(|n| n != file_name && (n == to || (windows && n.eq_ignore_ascii_case(to))))
    };
    let rename = |to: &str| {
        if taken(to) {
            format!("{to} already exists beside it: keep what you need of {file_name} in {to}, then remove {file_name}")
        } else {
            rename_fix(path, to, windows)
        }
    };
    // The name a rename fix lands on, when it is one (and not refused for a taken name).
    let target = |to: &str| (!taken(to)).then(|| to.to_owned());
    let exact = KNOWN_HOOKS
        .iter()
        .copied()
        .find(|h| h.eq_ignore_ascii_case(stem));
    if let Some(hook) = exact {
        let expected = renamed_for(hook, ext, profile, platform);
        if ext.is_empty() && windows && profile == Profile::Extension {
            return (Finding::new(
                Problem::WrongPlatformName,
                format!("on Windows a hook runs by its extension, and {file_name} has none, so it never runs; name it {expected} (PowerShell) or {hook}.cmd"),
                Some(rename(&expected)),
            ).renaming(target(&expected)), Some(hook));
        }
        if PROGRAM_EXTENSIONS.contains(&ext_lower.as_str()) {
            let reason = match (profile, windows) {
                (Profile::Extension, false) => format!(
                    "on macOS/Linux the extension profile runs only a file named exactly {hook}, without extension (its #! line picks the interpreter), so {file_name} never runs"
                ),
                (Profile::Extension, true) => format!(
                    "on Windows the extension profile runs {hook}.ps1 (PowerShell), .cmd, .bat or .exe, so {file_name} never runs; port it to PowerShell as {expected}"
                ),
                (Profile::Cli, _) => format!(
                    "the cli profile runs {hook} with no extension or one of .sh .bash .zsh .js .mjs .cjs .ts .mts .cts .py .ps1, so {file_name} never runs"
                ),
            };
            return (
                Finding::new(Problem::WrongPlatformName, reason, Some(rename(&expected)))
                    .renaming(target(&expected)),
                Some(hook),
            );
        }
        if TEMPORARY_EXTENSIONS
            .iter()
            .any(|temp| ext_lower.ends_with(temp))
        {
            return (
                Finding::new(
                    Problem::NotAHook,
                    format!("a temporary file of {hook} (an editor's save in progress, by its extension), so it never runs (fine)"),
                    None,
                ),
                Some(hook),
            );
        }
        if DOCUMENT_EXTENSIONS.contains(&ext_lower.as_str()) {
            return (
                Finding::new(
                    Problem::NotAHook,
                    format!("a document about {hook} (not a program's extension), so it never runs (fine for notes)"),
                    None,
                ),
                Some(hook),
            );
        }
        if ext.is_empty() {
            // Only the letter case differs (`PretoolUse`): names are compared exactly here.
            return (Finding::new(
                Problem::UnknownHookName,
                format!("{file_name} is not a hook name (names are case-sensitive), so it never runs; did you mean {hook}?"),
                Some(rename(&expected)),
            ).renaming(target(&expected)), Some(hook));
        }
        return (Finding::new(
            Problem::UnknownHookName,
            format!("{file_name} is not a hook name, so it never runs (a copy or backup?); the hook is {hook}"),
            Some(if taken(&expected) {
                format!("move it out of the hooks folder ({expected} beside it is the hook)")
            } else {
                format!("{}, or move it out of the hooks folder", rename(&expected))
            }),
        ).renaming(target(&expected)), Some(hook));
    }
    if !stem.is_empty() && !file_name.starts_with('.') {
        if let Some(hook) = closest_hook(stem) {
            let expected = renamed_for(hook, ext, profile, platform);
            return (
                Finding::new(
                    Problem::UnknownHookName,
                    format!(
                        "{file_name} is not a hook name, so it never runs; did you mean {hook}?"
                    ),
                    Some(rename(&expected)),
                )
                .renaming(target(&expected)),
                Some(hook),
            );
        }
    }
    (
        Finding::new(
            Problem::NotAHook,
            "not named after a hook Cline fires, so it never runs (fine for a helper script or notes)",
            None,
        ),
        None,
    )
}

/// The finding for a file discovery listed for a known hook (with the user's policy applied)
/// that will not run or will fail to start. `kind` is what the scan found it to be, `shebang`
/// its `#!` line. Pure.
pub fn hook_finding(
    path: &Path,
    disabled: Option<&str>,
    launch_error: Option<&str>,
    kind: Option<&EntryKind>,
    shebang: Option<&str>,
    profile: Profile,
) -> Option<Finding> {
    let unix_fix = |command: &str| format!("{command} {}", shell_quote(&path.to_string_lossy()));
    if let Some(why) = disabled {
        let finding = if why == DISABLED {
            Finding::new(
                Problem::DisabledByUser,
                "disabled in the policy store (a Hooks tab toggle or cline-hooks disable)",
                Some(unix_fix("cline-hooks enable")),
            )
        } else if why == NOT_TRUSTED_NEW || why == NOT_TRUSTED_CHANGED {
            Finding::new(
                Problem::NotTrusted,
                format!("{why}: trust is on, and these bytes are not approved"),
                Some("review it, then approve it: cline-hooks trust".to_owned()),
            )
        } else if why == NO_PWSH {
            Finding::new(
                Problem::NoPowerShell,
                why,
                Some("install PowerShell 7: https://aka.ms/install-powershell".to_owned()),
            )
        } else {
            match kind {
                Some(EntryKind::File { executable: false }) if profile == Profile::Extension => {
                    Finding::new(
                        Problem::NotExecutable,
                        "it is not executable (on macOS/Linux the exec bit is what makes a hook run)",
                        Some(unix_fix("chmod +x")),
                    )
                }
                Some(EntryKind::File { .. }) | None => classify_launch(why, shebang, path),
                Some(EntryKind::Refused(_)) => Finding::new(Problem::CannotRun, why, None),
                Some(_) => Finding::new(
                    Problem::NotAFile,
                    why,
                    Some("replace it with the hook file".to_owned()),
                ),
            }
        };
        return Some(finding);
    }
    launch_error.map(|why| classify_launch(why, shebang, path))
}

/// A reason about starting the file: Windows line endings, a missing interpreter, or other.
fn classify_launch(why: &str, shebang: Option<&str>, path: &Path) -> Finding {
    let quoted = shell_quote(&path.to_string_lossy());
    if shebang.is_some_and(|line| line.ends_with('\r')) || why.contains("carriage return") {
        return Finding::new(
            Problem::WindowsLineEndings,
            why,
            Some(format!(
                "dos2unix {quoted} (or save the file with LF line endings)"
            )),
        );
    }
    if why.contains("#! line") || why.contains("not on PATH") {
        return Finding::new(
            Problem::MissingInterpreter,
            why,
            Some("install the program, or change the #! line to one that exists".to_owned()),
        );
    }
    Finding::new(Problem::CannotRun, why, None)
}

/// The program a `#!/usr/bin/env ...` line asks `env` to find on PATH (`-S` and other
/// options skipped); `None` when the line does not go through `env`. Pure.
pub fn env_program(shebang: &str) -> Option<&str> {
    let (program, arg) = kernel_shebang(shebang);
    if program.rsplit('/').next() != Some("env") {
        return None;
    }
    arg?.split([' ', '\t'])
        .filter(|w| !w.is_empty())
        .find(|w| !w.starts_with('-') && !w.contains('='))
}

/// The finding for a program `env` cannot find on PATH. Pure.
pub fn env_program_missing(program: &str) -> Finding {
    Finding::new(
        Problem::MissingInterpreter,
        format!("its #! line asks env for {program}, which is not on PATH, so it fails to start"),
        Some(format!(
            "install {program}, or change the #! line to a program that exists"
        )),
    )
}

/// The finding for a script whose `#!` line comes after a UTF-8 byte-order mark: the system
/// does not skip the mark, so it hands the file to /bin/sh rather than to that line's
/// interpreter. Pure.
pub fn no_shebang(path: &Path) -> Finding {
    Finding::new(
        Problem::NoShebang,
        "its #! line comes after a byte-order mark (the file is saved as UTF-8 with BOM), which the system does not skip, so it runs as a /bin/sh script, not with the interpreter that line names",
        Some(format!(
            "save {} as UTF-8 without BOM",
            shell_quote(&path.to_string_lossy())
        )),
    )
}

/// The finding for a file Windows passes over because `runs` of the same hook comes first.
pub fn shadowed(runs: &str) -> Finding {
    Finding::new(
        Problem::Shadowed,
        format!("Windows runs one file per hook in a folder, and {runs} comes first (.ps1, then PATHEXT order), so this one never runs"),
        Some("remove one of the two files".to_owned()),
    )
}

/// Windows' device names: a file or folder named so (any case, any extension) opens the device.
const DEVICE_NAMES: [&str; 22] = [
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// Why hooks started as `kind` cannot run in the workspace root `root` on `platform`, with the
/// fix: on Windows, a root given as `\\?\...` to a `.cmd`/`.bat` hook (`cmd.exe` refuses it as
/// its working directory and runs in the Windows folder instead), or a root with a folder
/// named like a device (`aux`, `con`, `nul`, `com1`: Windows opens the device, not the
/// folder). `None` elsewhere. Pure.
pub fn root_problem(root: &Path, kind: LaunchKind, platform: &Platform) -> Option<String> {
    if !matches!(platform, Platform::Windows { .. }) {
        return None;
    }
    let text = root.to_string_lossy();
    let shown = root.display();
    if kind == LaunchKind::Cmd && (text.starts_with(r"\\?\") || text.starts_with(r"\\.\")) {
        return Some(format!(
            "the workspace root {shown} is a \\\\?\\ path, which cmd.exe cannot use as its working directory (it runs the hook in the Windows folder instead), so its .cmd and .bat hooks cannot run there; open the workspace by its drive path (C:\\...) or use a .ps1 hook"
        ));
    }
    let plain = text
        .strip_prefix(r"\\?\")
        .or_else(|| text.strip_prefix(r"\\.\"))
        .unwrap_or(&text);
    let device = plain.split(['\\', '/']).find(|part| {
        let stem = part.split('.').next().unwrap_or_default().trim_end();
        DEVICE_NAMES.iter().any(|d| d.eq_ignore_ascii_case(stem))
    })?;
    Some(format!(
        "the workspace root {shown} has a folder named {device}, which Windows takes for a device, not a folder, so no hook can run there; rename the folder"
    ))
}

/// Makes the rename fixes of one folder's findings land on distinct names: when several are
/// advised onto one name, the file most likely meant as that hook keeps its rename (its stem
/// is the hook's name, then name order), and each other one is told to merge into it instead,
/// so following every fix never renames two files onto one name. Pure.
pub fn settle_renames<'a>(findings: impl IntoIterator<Item = (&'a str, &'a mut Finding)>) {
    let mut findings: Vec<(&'a str, &'a mut Finding)> = findings
        .into_iter()
        .filter(|(_, f)| f.renames_to.is_some())
        .collect();
    // A name no printed command can hold gives way to one that can; then a stem that is the
    // hook's name comes first. Stable: name order within a rank.
    findings.sort_by_key(|(name, f)| {
        let unpasteable = name.chars().any(|c| c.is_control() || c == '\u{FFFD}');
        let misspelt = !f
            .meant
            .is_some_and(|hook| name_stem(name).eq_ignore_ascii_case(hook));
        (unpasteable, misspelt)
    });
    let mut claimed: Vec<(String, &'a str)> = Vec::new();
    for (file_name, finding) in findings {
        let Some(to) = finding.renames_to.clone() else {
            continue;
        };
        match claimed
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(&to))
        {
            Some((_, first)) => {
                finding.renames_to = None;
                finding.fix = Some(format!(
                    "{to} is also the name advised for {first}: keep one of the two as {to} (merge what you need of {file_name} into it), and move the other out of the hooks folder"
                ));
            }
            None => claimed.push((to, file_name)),
        }
    }
}

/// The command that renames `path` to `to` in its folder: `mv` on macOS/Linux, PowerShell's
/// `Rename-Item` on Windows.
fn rename_fix(path: &Path, to: &str, windows: bool) -> String {
    if windows {
        let ps = |s: &str| format!("'{}'", s.replace('\'', "''"));
        return format!(
            "Rename-Item -LiteralPath {} -NewName {}",
            ps(&path.to_string_lossy()),
            ps(to)
        );
    }
    let target = path.with_file_name(to);
    format!(
        "mv {} {}",
        shell_quote(&path.to_string_lossy()),
        shell_quote(&target.to_string_lossy())
    )
}

/// Why a command naming `path` cannot be pasted into a shell as printed, with what to do:
/// its name is not valid UTF-8 (printed, its bytes are replaced) or holds a control character
/// (a line break, an escape); `None` when it can. Pure.
pub fn unpasteable(path: &Path) -> Option<String> {
    // U+FFFD too: a name read lossily has it where its bytes were not UTF-8.
    let text = path.to_str();
    let bad = text.is_none_or(|t| t.chars().any(|c| c.is_control() || c == '\u{FFFD}'));
    bad.then(|| {
        "its name holds a control character or bytes that are not UTF-8, which no command printed here can name exactly: rename it by hand (for example in a file manager), then run doctor again".to_owned()
    })
}

/// `text` as one POSIX shell word: bare when it holds only safe characters, else in single
/// quotes. Pure.
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b));
    if safe {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn at(name: &str) -> PathBuf {
        PathBuf::from("/w/.clinerules/hooks").join(name)
    }

    fn named(name: &str, profile: Profile, platform: &Platform) -> Finding {
        name_finding(&at(name), name, &[], profile, platform)
    }

    #[test]
    fn closest_hook_finds_case_slips_and_typos_within_two_edits() {
        assert_eq!(closest_hook("PretoolUse"), Some("PreToolUse"));
        assert_eq!(closest_hook("pretooluse"), Some("PreToolUse"));
        assert_eq!(closest_hook("PreTolUse"), Some("PreToolUse"));
        assert_eq!(closest_hook("PerToolUse"), Some("PreToolUse"));
        assert_eq!(closest_hook("TaskStrat"), Some("TaskStart"));
        assert_eq!(closest_hook("PostToolUsed"), Some("PostToolUse"));
        assert_eq!(closest_hook("helpers"), None);
        assert_eq!(closest_hook("FutureHook"), None);
        assert_eq!(edit_distance("abc", "abc"), 0);
        assert_eq!(edit_distance("abc", "acb"), 1);
        assert_eq!(edit_distance("", "ab"), 2);
    }

    // The macOS/Linux fixes name paths as that system writes them (`/`); a Windows `Path`
    // joins with `\`.
    #[cfg(unix)]
    #[test]
    fn an_extension_on_macos_linux_is_the_wrong_platform_name_with_a_rename() {
        let f = named("PreToolUse.sh", Profile::Extension, &Platform::Unix);
        assert_eq!(f.problem, Problem::WrongPlatformName);
        assert!(f.reason.contains("without extension"), "{}", f.reason);
        assert_eq!(
            f.fix.as_deref(),
            Some("mv /w/.clinerules/hooks/PreToolUse.sh /w/.clinerules/hooks/PreToolUse")
        );
    }

    #[test]
    fn no_extension_on_windows_is_the_wrong_platform_name_with_a_ps1_rename() {
        let f = named("PreToolUse", Profile::Extension, &Platform::windows(""));
        assert_eq!(f.problem, Problem::WrongPlatformName);
        let fix = f.fix.unwrap();
        assert!(fix.starts_with("Rename-Item -LiteralPath '"), "{fix}");
        assert!(fix.ends_with("-NewName 'PreToolUse.ps1'"), "{fix}");
        let sh = named("PreToolUse.sh", Profile::Extension, &Platform::windows(""));
        assert_eq!(sh.problem, Problem::WrongPlatformName);
        assert!(sh.reason.contains("port it to PowerShell"), "{}", sh.reason);
    }

    // The macOS/Linux fixes name paths as that system writes them (`/`); a Windows `Path`
    // joins with `\`.
    #[cfg(unix)]
    #[test]
    fn case_slips_backups_and_typos_name_the_closest_hook() {
        for name in [
            "PretoolUse",
            "PreTolUse",
            "PreToolUse.bak",
            "pretooluse.orig",
        ] {
            let f = named(name, Profile::Extension, &Platform::Unix);
            assert_eq!(f.problem, Problem::UnknownHookName, "{name}");
            assert!(f.reason.contains("PreToolUse"), "{name}: {}", f.reason);
            assert!(
                f.fix.as_deref().unwrap().contains("/PreToolUse"),
                "{name}: {:?}",
                f.fix
            );
            assert!(f.problem.is_mistake());
        }
        for temporary in ["PreToolUse.tmp", "PreToolUse.sh.swp"] {
            let f = named(temporary, Profile::Extension, &Platform::Unix);
            assert_eq!(f.problem, Problem::NotAHook, "{temporary}");
        }
        let bak = named("PreToolUse.bak", Profile::Extension, &Platform::Unix);
        assert!(bak
            .fix
            .unwrap()
            .ends_with("or move it out of the hooks folder"));
    }

    #[test]
    fn a_rename_never_lands_on_a_file_that_exists() {
        let siblings = ["PreToolUse".to_owned(), "PretoolUse".to_owned()];
        let f = name_finding(
            &at("PretoolUse"),
            "PretoolUse",
            &siblings,
            Profile::Extension,
            &Platform::Unix,
        );
        assert_eq!(f.problem, Problem::UnknownHookName);
        let fix = f.fix.unwrap();
        assert!(!fix.starts_with("mv "), "{fix}");
        assert!(
            fix.starts_with("PreToolUse already exists beside it"),
            "{fix}"
        );
    }

    #[test]
    fn files_named_like_no_hook_are_left_alone() {
        for name in [
            "README.md",
            "lib.sh",
            ".gitkeep",
            "FutureHook",
            ".PreToolUse",
        ] {
            let f = named(name, Profile::Extension, &Platform::Unix);
            assert_eq!(f.problem, Problem::NotAHook, "{name}");
            assert!(!f.problem.is_mistake() && f.fix.is_none());
        }
    }

    #[test]
    fn the_cli_profile_names_its_extensions() {
        let f = named("PreToolUse.rb", Profile::Cli, &Platform::Unix);
        assert_eq!(f.problem, Problem::WrongPlatformName);
        assert!(f.reason.contains("cli profile"), "{}", f.reason);
    }

    // The macOS/Linux fixes name paths as that system writes them (`/`); a Windows `Path`
    // joins with `\`.
    #[cfg(unix)]
    #[test]
    fn discovery_reasons_become_problems_with_fixes() {
        let path = at("PreToolUse");
        let find = |disabled: Option<&str>, launch: Option<&str>, kind, shebang| {
            hook_finding(&path, disabled, launch, kind, shebang, Profile::Extension).unwrap()
        };
        let exec = find(
            Some("it is not executable; run chmod +x on it to enable it"),
            None,
            Some(&EntryKind::File { executable: false }),
            None,
        );
        assert_eq!(exec.problem, Problem::NotExecutable);
        assert_eq!(
            exec.fix.as_deref(),
            Some("chmod +x /w/.clinerules/hooks/PreToolUse")
        );
        let crlf = find(
            None,
            Some("its #! line ends with a carriage return ..."),
            Some(&EntryKind::File { executable: true }),
            Some("/bin/bash\r"),
        );
        assert_eq!(crlf.problem, Problem::WindowsLineEndings);
        assert!(crlf.fix.unwrap().starts_with("dos2unix "));
        let missing = find(
            None,
            Some("its #! line names /nope, which does not exist; install it or fix the #! line"),
            Some(&EntryKind::File { executable: true }),
            Some("/nope"),
        );
        assert_eq!(missing.problem, Problem::MissingInterpreter);
        let user = find(Some(DISABLED), None, None, None);
        assert_eq!(user.problem, Problem::DisabledByUser);
        assert!(user.fix.unwrap().starts_with("cline-hooks enable "));
        let trust = find(Some(NOT_TRUSTED_NEW), None, None, None);
        assert_eq!(trust.problem, Problem::NotTrusted);
        let ps = find(Some(NO_PWSH), None, None, None);
        assert_eq!(ps.problem, Problem::NoPowerShell);
        let dir = find(
            Some("it is a directory, not a file"),
            None,
            Some(&EntryKind::Directory),
            None,
        );
        assert_eq!(dir.problem, Problem::NotAFile);
        assert!(hook_finding(&path, None, None, None, None, Profile::Extension).is_none());
    }

    #[test]
    fn env_lines_name_the_program_env_looks_up() {
        assert_eq!(env_program("/usr/bin/env python3"), Some("python3"));
        assert_eq!(
            env_program("/usr/bin/env -S node --no-warnings"),
            Some("node")
        );
        assert_eq!(env_program("/usr/bin/env"), None);
        assert_eq!(env_program("/bin/bash"), None);
        assert!(env_program_missing("nope").reason.contains("not on PATH"));
    }

    #[test]
    fn a_shebang_behind_a_byte_order_mark_says_so_with_the_fix() {
        let bom = no_shebang(&at("X"));
        assert_eq!(bom.problem, Problem::NoShebang);
        assert!(bom.reason.contains("byte-order mark"), "{}", bom.reason);
        assert!(bom.fix.unwrap_or_default().contains("without BOM"));
    }

    #[test]
    fn a_path_with_a_line_break_or_bytes_not_utf8_gets_no_command() {
        assert!(unpasteable(Path::new("/w/Task\nComplete")).is_some());
        assert!(unpasteable(Path::new("/w/a\x1b]0;x\x07")).is_some());
        assert!(unpasteable(Path::new("/w/it's PreToolUse")).is_none());
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let bytes = std::ffi::OsStr::from_bytes(b"/w/PreToolUse\xff");
            assert!(unpasteable(Path::new(bytes)).is_some());
        }
    }

    #[test]
    fn shell_quote_leaves_plain_paths_bare() {
        assert_eq!(shell_quote("/a/b-c.d"), "/a/b-c.d");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn the_hook_a_name_is_meant_for() {
        for (name, meant) in [
            ("PreToolUse.py", Some("PreToolUse")),
            ("PreTooluse", Some("PreToolUse")),
            ("PreTolUse", Some("PreToolUse")),
            (" pretooluse .sh", Some("PreToolUse")),
            ("TaskStrat.ps1", Some("TaskStart")),
            (".PreToolUse", None),
            ("helper.sh", None),
            ("notes", None),
            ("", None),
        ] {
            assert_eq!(meant_hook(name), meant, "{name:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_cli_profile_keeps_the_extension_that_picks_the_interpreter() {
        let f = named("PreTolUse.py", Profile::Cli, &Platform::Unix);
        assert_eq!(f.renames_to.as_deref(), Some("PreToolUse.py"));
        let f = named("PreTolUse", Profile::Cli, &Platform::Unix);
        assert_eq!(f.renames_to.as_deref(), Some("PreToolUse"));
        let f = named("PreTolUse.py", Profile::Extension, &Platform::Unix);
        assert_eq!(f.renames_to.as_deref(), Some("PreToolUse"));
    }

    #[test]
    fn two_files_are_never_advised_onto_one_name() {
        let unix = Platform::Unix;
        let siblings: Vec<String> = ["PreTolUse", "PreToolUse.py", "PreTooluse"]
            .map(str::to_owned)
            .to_vec();
        let mut findings: Vec<(String, Finding)> = siblings
            .iter()
            .map(|n| {
                (
                    n.clone(),
                    name_finding(&at(n), n, &siblings, Profile::Extension, &unix),
                )
            })
            .collect();
        assert!(findings
            .iter()
            .all(|(_, f)| f.renames_to.as_deref() == Some("PreToolUse")));
        settle_renames(findings.iter_mut().map(|(n, f)| (n.as_str(), f)));
        let renames: Vec<&str> = findings
            .iter()
            .filter(|(_, f)| f.renames_to.is_some())
            .map(|(n, _)| n.as_str())
            .collect();
        // The one whose stem is the hook's name, first by name, keeps the rename.
        assert_eq!(renames, ["PreToolUse.py"]);
        let fixes: Vec<&str> = findings
            .iter()
            .filter_map(|(_, f)| f.fix.as_deref())
            .collect();
        assert_eq!(
            fixes.iter().filter(|f| f.starts_with("mv ")).count(),
            1,
            "{fixes:?}"
        );
        assert!(fixes[0].starts_with("PreToolUse is also the name advised for PreToolUse.py"));
    }

    #[test]
    fn a_root_windows_cannot_run_hooks_in_is_named() {
        let windows = Platform::windows("");
        let cmd = LaunchKind::Cmd;
        let ps = LaunchKind::PowerShell;
        assert!(root_problem(Path::new(r"\\?\C:\ws"), cmd, &windows)
            .is_some_and(|w| w.contains("cmd.exe cannot use as its working directory")));
        assert_eq!(root_problem(Path::new(r"\\?\C:\ws"), ps, &windows), None);
        assert!(root_problem(Path::new(r"C:\work\aux\ws"), ps, &windows)
            .is_some_and(|w| w.contains("a folder named aux")));
        assert!(root_problem(Path::new(r"C:\work\COM1.old"), ps, &windows).is_some());
        assert_eq!(
            root_problem(Path::new(r"C:\work\auxiliary"), ps, &windows),
            None
        );
        assert_eq!(
            root_problem(Path::new("/work/aux"), cmd, &Platform::Unix),
            None
        );
    }
}
