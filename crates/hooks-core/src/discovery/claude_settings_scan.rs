//! Reads a `.claude` folder's settings files for a scan (`settings.json`, and in a workspace
//! root `settings.local.json`): each file's hooks parsed, the scripts their commands name
//! fingerprinted, the shell that runs them found. I/O; what runs is decided from the result
//! by claude_settings_hooks.rs.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Contents, HookDir, Source};
use crate::claude::{parse_settings, scripts_named, unfollowed, Handler, Script, SettingsEntry};
use crate::launch::{claude_command, Interpreters, Launch};

/// Largest settings file read, in bytes: a settings file is a few KiB.
pub const SETTINGS_LIMIT: u64 = 4 << 20;

/// A Claude Code settings file as a scan read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsFile {
    /// The file.
    pub path: PathBuf,
    /// Whose it is: the user's, the project's shared one or its local one.
    pub source: Source,
    /// Its path with the links on its folder's path resolved (the user's policy store keys
    /// its handlers by it).
    pub real_path: PathBuf,
    /// Its handlers, in the file's order, with what the scan read of each.
    pub entries: Vec<ScannedHandler>,
    /// What is wrong with it (not JSON, a wrong shape), without its name.
    pub warnings: Vec<String>,
    /// Why none of it could be read, if so (unreadable, too large, not JSON).
    pub unreadable: Option<String>,
    /// It sets `"disableAllHooks": true`: its handlers are listed, none runs.
    pub disable_all_hooks: bool,
    /// How its commands start: the shell's argv before the command, or why none can.
    pub shell: Launch,
}

/// A handler of a settings file with what a scan read of it: read once per scan, then used by
/// every hook name the handler runs for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannedHandler {
    /// The handler as written.
    pub entry: SettingsEntry,
    /// The scripts its command names and their sha256s (what an approval covers).
    pub scripts: Vec<Script>,
    /// The files it runs that are missing, wherever they are (what is said: see [`missing_of`]).
    pub missing: Vec<PathBuf>,
    /// What in its command runs files a reading cannot follow (`eval`, `$(...)`): said.
    pub unfollowed: Vec<&'static str>,
}

/// Reads the settings files of `dir` (a `.claude` folder); `Missing` when it holds none.
pub fn scan_claude_dir(dir: &HookDir, tools: &mut Interpreters) -> Contents {
    let names: &[(&str, Source)] = match dir.source {
        Source::ClaudeUser => &[("settings.json", Source::ClaudeUser)],
        _ => &[
            ("settings.json", Source::ClaudeProject),
            ("settings.local.json", Source::ClaudeLocal),
        ],
    };
    let real_dir = crate::policy::policy_dir(&dir.path).unwrap_or_else(|| dir.path.clone());
    let mut files = Vec::new();
    for (name, source) in names {
        let path = dir.path.join(name);
        let text = match read_limited(&path) {
            Ok(Some(text)) => Ok(text),
            Ok(None) => continue,
            Err(why) => Err(why),
        };
        let shell = claude_command("", tools);
        let mut file = SettingsFile {
            real_path: real_dir.join(name),
            path,
            source: *source,
            entries: Vec::new(),
            warnings: Vec::new(),
            unreadable: None,
            disable_all_hooks: false,
            shell,
        };
        match text {
            Err(why) => file.unreadable = Some(why),
            Ok(text) => {
                let parsed = parse_settings(&text);
                file.disable_all_hooks = parsed.disable_all_hooks;
                // Nothing read and something said: the file as a whole is unusable.
                if parsed.entries.is_empty() && !parsed.warnings.is_empty() {
                    file.unreadable = Some(format!("it {}", parsed.warnings.join("; ")));
                } else {
                    file.warnings = parsed.warnings;
                }
                // The user's settings run in any project: their scripts are covered by none.
                let area = dir.workspace_root.as_deref();
                let project = area.filter(|_| dir.source != Source::ClaudeUser);
                let home = host_home();
                file.entries = parsed
                    .entries
                    .into_iter()
                    .map(|entry| match &entry.handler {
                        Handler::Command { command, .. } => ScannedHandler {
                            scripts: project
                                .map(|root| scripts_of(command, root, home.as_deref()))
                                .unwrap_or_default(),
                            missing: missing_of(command, area, home.as_deref()),
                            unfollowed: unfollowed(command),
                            entry,
                        },
                        _ => ScannedHandler {
                            entry,
                            scripts: Vec::new(),
                            missing: Vec::new(),
                            unfollowed: Vec::new(),
                        },
                    })
                    .collect();
            }
        }
        files.push(file);
    }
    if files.is_empty() {
        Contents::Missing
    } else {
        Contents::Settings(files)
    }
}

/// The sha256 that approving the handler at `position` of the settings file `file` records
/// now (see [`entry_digest`](crate::claude::entry_digest)), read as a scan reads it: the
/// scripts a project file's command names are fingerprinted in its project (the folder that
/// holds its `.claude`); the user's settings (`user_dir`, its Claude folder) name none.
pub fn handler_digest_now(
    file: &Path,
    position: &str,
    user_dir: Option<&Path>,
) -> Result<String, String> {
    let text = read_limited(file)?.ok_or_else(|| "it does not exist".to_owned())?;
    let parsed = parse_settings(&text);
    let entry = parsed
        .entries
        .iter()
        .find(|entry| entry.position == position)
        .ok_or_else(|| format!("it has no handler at {position}"))?;
    let Handler::Command { command, .. } = &entry.handler else {
        return Err(format!(
            "its handler at {position} is not a \"command\" handler, which is all that runs here"
        ));
    };
    let folder = file.parent();
    let is_user = match (
        folder.and_then(crate::policy::policy_dir),
        user_dir.and_then(crate::policy::policy_dir),
    ) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    };
    let scripts = match folder.and_then(Path::parent).filter(|_| !is_user) {
        Some(root) => scripts_of(command, root, host_home().as_deref()),
        None => Vec::new(),
    };
    if let Some((path, why)) = scripts
        .iter()
        .find_map(|s| unfingerprintable(s).map(|why| (&s.0, why)))
    {
        return Err(format!(
            "{} cannot be covered by an approval: {why}",
            path.display()
        ));
    }
    Ok(crate::claude::entry_digest(
        &entry.event,
        entry.matcher.as_deref(),
        command,
        &scripts,
    ))
}

/// The file's text; `None` when it does not exist; `Err` says why it cannot be read.
fn read_limited(path: &Path) -> Result<Option<String>, String> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    let file = match open_regular(path) {
        Ok(Some(file)) => file,
        // A link to nothing: as Claude Code, no settings.
        Ok(None) if std::fs::metadata(path).is_err() => return Ok(None),
        Ok(None) => {
            return Err(
                "it is not a regular file (a folder, a pipe or a device); no hook of it runs"
                    .to_owned(),
            )
        }
        Err(err) => return Err(format!("it cannot be read ({err}); no hook of it runs")),
    };
    let mut bytes = Vec::new();
    if let Err(err) = file.take(SETTINGS_LIMIT + 1).read_to_end(&mut bytes) {
        return Err(format!("it cannot be read ({err}); no hook of it runs"));
    }
    if bytes.len() as u64 > SETTINGS_LIMIT {
        return Err(format!(
            "it is larger than {} MiB, more than a settings file can be; no hook of it runs",
            SETTINGS_LIMIT >> 20
        ));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    String::from_utf8(bytes.to_vec()).map(Some).map_err(|err| {
        format!(
            "it is not UTF-8 text (at byte {}); save it as UTF-8; no hook of it runs",
            err.utf8_error().valid_up_to()
        )
    })
}

/// Files of a project's `.claude/hooks` folder (and its subfolders) an approval covers, at
/// most: where a command's scripts usually are, so one the command runs in a way this reading
/// does not follow (`cat x.sh | sh`) is covered all the same. A folder holding more cannot be
/// covered, so its handlers cannot be approved.
pub const HOOKS_FOLDER_FILES: usize = 256;

/// What a script's fingerprint says when its bytes cannot be fingerprinted (larger than
/// [`FINGERPRINT_LIMIT`](crate::policy::FINGERPRINT_LIMIT), or a folder with too many files):
/// never a sha256, so an approval of it never holds (see [`unfingerprintable`]).
pub const UNFINGERPRINTABLE: &str = "unfingerprintable: ";

/// Why `script` cannot be covered by an approval, if it cannot.
pub fn unfingerprintable(script: &Script) -> Option<&str> {
    script.1.as_deref()?.strip_prefix(UNFINGERPRINTABLE)
}

/// The home folder the shell expands `~` and `$HOME` to: `HOME`, else the account's.
pub fn host_home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::home_dir)
}

/// The files `command` runs (its program when a path, an interpreter's script) that are not
/// readable files now, wherever they are: said, never covered (see [`missing_script`]).
/// Relative paths are resolved in `project` (none for the user's settings: only absolute
/// ones, and `~`, are then read).
///
/// [`missing_script`]: crate::claude::missing_script
pub fn missing_of(command: &str, project: Option<&Path>, home: Option<&Path>) -> Vec<PathBuf> {
    scripts_named(command, project, home)
        .into_iter()
        .filter(|named| named.primary && !matches!(open_regular(&named.path), Ok(Some(_))))
        .map(|named| named.path)
        .collect()
}

/// What an approval of the command `command` of the project `root` covers, each file with
/// the sha256 of its bytes now: the files it names inside `root` (see [`scripts_named`],
/// `home` expanding `~` and `$HOME`; the one it runs is recorded even when missing, the
/// others when they exist), then every file of `<root>/.claude/hooks`, links followed.
pub fn scripts_of(command: &str, root: &Path, home: Option<&Path>) -> Vec<Script> {
    let mut scripts: Vec<Script> = scripts_named(command, Some(root), home)
        .into_iter()
        .filter(|named| named.path.starts_with(root))
        .filter_map(|named| {
            let sha256 = sha256_now(&named.path);
            (named.primary || sha256.is_some()).then_some((named.path, sha256))
        })
        .collect();
    let folder = root.join(".claude").join("hooks");
    let (files, more) = hooks_folder_files(&folder);
    for path in files {
        if !scripts.iter().any(|(p, _)| *p == path) {
            if let Some(sha256) = sha256_now(&path) {
                scripts.push((path, Some(sha256)));
            }
        }
    }
    if let Some(why) = more {
        scripts.push((folder, Some(format!("{UNFINGERPRINTABLE}{why}"))));
    }
    scripts
}

/// Deepest subfolder of a project's `.claude/hooks` an approval covers: a folder deeper is
/// not covered, so its handlers cannot be approved.
pub const HOOKS_FOLDER_DEPTH: usize = 16;

/// The files of `dir` and of its subfolders at every depth (links followed: what the path
/// leads to is what runs), sorted, at most [`HOOKS_FOLDER_FILES`]; and why not all of it can
/// be covered, if so: more files, more entries than twice that, or a subfolder deeper than
/// [`HOOKS_FOLDER_DEPTH`]. A folder reached again by a link (a loop) is not read again: its
/// files are listed under the first path.
fn hooks_folder_files(dir: &Path) -> (Vec<PathBuf>, Option<String>) {
    let mut files = Vec::new();
    let mut seen = 0usize;
    let mut too_deep = false;
    let mut more = false;
    let mut visited: Vec<PathBuf> = Vec::new();
    let mut folders = vec![(dir.to_path_buf(), 0usize)];
    while let Some((folder, depth)) = folders.pop() {
        if let Ok(real) = std::fs::canonicalize(&folder) {
            if visited.contains(&real) {
                continue;
            }
            visited.push(real);
        }
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > 2 * HOOKS_FOLDER_FILES {
                more = true;
                break;
            }
            match std::fs::metadata(entry.path()) {
                Ok(m) if m.is_file() => files.push(entry.path()),
                Ok(m) if m.is_dir() && depth < HOOKS_FOLDER_DEPTH => {
                    folders.push((entry.path(), depth + 1))
                }
                Ok(m) if m.is_dir() => too_deep = true,
                // A pipe, a device, a link to nothing: nothing a command runs from a file.
                _ => {}
            }
        }
        if more {
            break;
        }
    }
    files.sort();
    let why = if more || files.len() > HOOKS_FOLDER_FILES {
        Some(format!(
            "it holds more than {HOOKS_FOLDER_FILES} files, more than an approval can cover"
        ))
    } else if too_deep {
        Some(format!(
            "it has folders more than {HOOKS_FOLDER_DEPTH} levels deep, more than an approval can cover"
        ))
    } else {
        None
    };
    files.truncate(HOOKS_FOLDER_FILES);
    (files, why)
}

/// The sha256 of the regular file at `path` now; `None` when it is missing, not a regular
/// file (a FIFO is never opened for reading: it would wait for a writer) or unreadable; an
/// [`UNFINGERPRINTABLE`] sentence when it is too large to fingerprint.
fn sha256_now(path: &Path) -> Option<String> {
    let file = open_regular(path).ok().flatten()?;
    match crate::policy::sha256_of(&file) {
        Ok(Some(sha256)) => Some(sha256),
        Ok(None) => Some(format!(
            "{UNFINGERPRINTABLE}it is larger than {} MiB, more than can be fingerprinted",
            crate::policy::FINGERPRINT_LIMIT >> 20
        )),
        Err(_) => None,
    }
}

/// `path` opened for reading when it is a regular file (a link to one counts): `Ok(None)`
/// when it does not exist or is something else. Opened without waiting, so a FIFO in its
/// place cannot hold the scan.
pub(crate) fn open_regular(path: &Path) -> std::io::Result<Option<File>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = match options.open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err),
    };
    Ok(file.metadata()?.is_file().then_some(file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Component;

    /// A fresh project folder of its own for a test.
    fn project(name: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("cline-scan-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(".claude/hooks/lib")).expect("a temp folder");
        std::fs::create_dir_all(root.join("scripts")).expect("a temp folder");
        for (file, text) in [
            (".claude/hooks/g.sh", "exit 0\n"),
            (".claude/hooks/lib/u.sh", "true\n"),
            ("scripts/x.py", "pass\n"),
        ] {
            std::fs::write(root.join(file), text).expect("a temp file");
        }
        root
    }

    fn covered(command: &str, root: &Path) -> Vec<String> {
        scripts_of(command, root, Some(Path::new("/nohome")))
            .iter()
            .map(|(path, sha256)| {
                let path = path.strip_prefix(root).unwrap_or(path).display();
                let path = path.to_string().replace('\\', "/");
                match sha256 {
                    Some(s) if s.starts_with(UNFINGERPRINTABLE) => format!("{path}: {s}"),
                    Some(_) => path,
                    None => format!("{path} (missing)"),
                }
            })
            .collect()
    }

    /// What an approval of these commands covered before `cd`, reserved words, `$HOME` and
    /// deep folders were read: the same files, in the same order, so their sha256 (made of
    /// the command and these) is unchanged and their approvals still hold.
    #[test]
    fn the_files_covered_by_common_commands_are_unchanged() {
        let root = project("same");
        let hooks = [".claude/hooks/g.sh", ".claude/hooks/lib/u.sh"];
        for (command, named) in [
            (r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/g.sh"#, vec![]),
            ("python3 scripts/x.py --flag", vec!["scripts/x.py"]),
            ("cd .claude/hooks && ./g.sh", vec![]),
            ("jq -r . | grep -q x", vec![]),
            (
                "sh .claude/hooks/nope.sh",
                vec![".claude/hooks/nope.sh (missing)"],
            ),
            (
                "node -r ./scripts/x.py .claude/hooks/g.sh",
                vec!["scripts/x.py"],
            ),
            ("timeout 5 bash .claude/hooks/g.sh 2>/dev/null", vec![]),
        ] {
            let mut expected: Vec<String> = named.into_iter().map(String::from).collect();
            expected.extend(hooks.iter().map(|h| h.to_string()));
            assert_eq!(covered(command, &root), expected, "{command}");
        }
        let _ = std::fs::remove_dir_all(&root);
    }

    /// Attack 02: a file two folders down in `.claude/hooks` was not covered.
    #[test]
    fn every_depth_of_the_hooks_folder_is_covered_up_to_a_bound() {
        let root = project("deep");
        let deep = root.join(".claude/hooks/a/b/c");
        std::fs::create_dir_all(&deep).expect("a temp folder");
        std::fs::write(deep.join("x.inc"), "true\n").expect("a temp file");
        assert!(covered("true", &root).contains(&".claude/hooks/a/b/c/x.inc".to_owned()));

        // A link back up is a loop: read once, nothing past a bound.
        #[cfg(unix)]
        {
            let link = root.join(".claude/hooks/a/up");
            std::os::unix::fs::symlink(root.join(".claude/hooks"), link).expect("a link");
            let files = covered("true", &root);
            assert!(
                !files.iter().any(|f| f.contains(UNFINGERPRINTABLE)),
                "{files:?}"
            );
            assert_eq!(files.len(), 3, "{files:?}");
        }

        // Deeper than the bound: not silently left out, the handler cannot be approved.
        let mut far = root.join(".claude/hooks");
        for _ in 0..=HOOKS_FOLDER_DEPTH {
            far = far.join("d");
        }
        std::fs::create_dir_all(&far).expect("a temp folder");
        std::fs::write(far.join("x.inc"), "true\n").expect("a temp file");
        let files = covered("true", &root);
        let last = files.last().cloned().unwrap_or_default();
        assert!(
            last.ends_with("more than 16 levels deep, more than an approval can cover"),
            "{last}"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_missing_program_is_found_wherever_it_is_and_home_is_never_the_projects() {
        let root = project("missing");
        let home = root.join("scripts");
        let missing = |command: &str, project: Option<&Path>| -> Vec<PathBuf> {
            missing_of(command, project, Some(&home))
        };
        // (On Windows a path from the root is on the project's drive.)
        let from_root: PathBuf = root
            .components()
            .take_while(|c| matches!(c, Component::Prefix(_)))
            .chain(Path::new("/nonexistent/x.sh").components())
            .collect();
        assert_eq!(missing("/nonexistent/x.sh", Some(&root)), [from_root]);
        assert_eq!(
            missing("~/.claude/hooks/missing.sh", None),
            [home.join(".claude/hooks/missing.sh")]
        );
        assert!(missing("$HOME/x.py; ${HOME}/x.py; python3 ~/x.py", Some(&root)).is_empty());
        assert!(missing("sh .claude/hooks/g.sh; python3 -m x", Some(&root)).is_empty());
        // A relative path with no project: not known, not said.
        assert!(missing("sh nope.sh", None).is_empty());
        assert_eq!(
            missing("python3 scripts/nope.py", Some(&root)),
            [root.join("scripts/nope.py")]
        );
        // `$HOME` names no file of the project: covered only where it really is.
        assert!(!covered("$HOME/bin/guard.sh", &root)
            .iter()
            .any(|f| f.contains("HOME")));
        let _ = std::fs::remove_dir_all(&root);
    }
}
