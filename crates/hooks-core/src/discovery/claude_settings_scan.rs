//! Reads a `.claude` folder's settings files for a scan (`settings.json`, and in a workspace
//! root `settings.local.json`): each file's hooks parsed, the scripts their commands name
//! fingerprinted, the shell that runs them found. I/O; what runs is decided from the result
//! by claude_settings_hooks.rs.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Contents, HookDir, Source};
use crate::claude::{parse_settings, scripts_named, Handler, Script, SettingsEntry};
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
    /// Its handlers, each with the scripts its command names and their sha256s.
    pub entries: Vec<(SettingsEntry, Vec<Script>)>,
    /// What is wrong with it (not JSON, a wrong shape), without its name.
    pub warnings: Vec<String>,
    /// Why none of it could be read, if so (unreadable, too large, not JSON).
    pub unreadable: Option<String>,
    /// It sets `"disableAllHooks": true`: its handlers are listed, none runs.
    pub disable_all_hooks: bool,
    /// How its commands start: the shell's argv before the command, or why none can.
    pub shell: Launch,
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
                let area = dir.workspace_root.as_deref();
                file.entries = parsed
                    .entries
                    .into_iter()
                    .map(|entry| {
                        let scripts = match (&entry.handler, area) {
                            (Handler::Command { command, .. }, Some(root)) => {
                                scripts_of(command, root)
                            }
                            _ => Vec::new(),
                        };
                        (entry, scripts)
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
        Some(root) => scripts_of(command, root),
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

/// What an approval of the command `command` of the project `root` covers, each file with
/// the sha256 of its bytes now: the files it names (see [`scripts_named`]; the one it runs
/// is recorded even when missing, the others when they exist), then every file of
/// `<root>/.claude/hooks`, links followed.
pub fn scripts_of(command: &str, root: &Path) -> Vec<Script> {
    let mut scripts: Vec<Script> = scripts_named(command, root, root)
        .into_iter()
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
    if more {
        scripts.push((
            folder,
            Some(format!(
                "{UNFINGERPRINTABLE}it holds more than {HOOKS_FOLDER_FILES} files, more than an approval can cover"
            )),
        ));
    }
    scripts
}

/// The files of `dir` and of its subfolders one level down (links followed: what the path
/// leads to is what runs), sorted, at most [`HOOKS_FOLDER_FILES`]; and whether it holds more.
fn hooks_folder_files(dir: &Path) -> (Vec<PathBuf>, bool) {
    let mut files = Vec::new();
    let mut seen = 0usize;
    let mut list = |dir: &Path, depth: usize, files: &mut Vec<PathBuf>| -> Vec<PathBuf> {
        let mut subfolders = Vec::new();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return subfolders;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > 2 * HOOKS_FOLDER_FILES {
                break;
            }
            match std::fs::metadata(entry.path()) {
                Ok(m) if m.is_file() => files.push(entry.path()),
                Ok(m) if m.is_dir() && depth == 0 => subfolders.push(entry.path()),
                // A pipe, a device, a link to nothing: nothing a command runs from a file.
                _ => {}
            }
        }
        subfolders
    };
    for sub in list(dir, 0, &mut files) {
        list(&sub, 1, &mut files);
    }
    files.sort();
    let more = files.len() > HOOKS_FOLDER_FILES || seen > 2 * HOOKS_FOLDER_FILES;
    files.truncate(HOOKS_FOLDER_FILES);
    (files, more)
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
