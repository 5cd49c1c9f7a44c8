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
            shell,
        };
        match text {
            Err(why) => file.unreadable = Some(why),
            Ok(text) => {
                let parsed = parse_settings(&text);
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
                                fingerprint(scripts_named(command, root, root))
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
        Some(root) => fingerprint(scripts_named(command, root, root)),
        None => Vec::new(),
    };
    Ok(crate::claude::entry_digest(
        &entry.event,
        entry.matcher.as_deref(),
        command,
        &scripts,
    ))
}

/// The file's text; `None` when it does not exist; `Err` says why it cannot be read.
fn read_limited(path: &Path) -> Result<Option<String>, String> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("it cannot be read ({err}); no hook of it runs")),
    };
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Ok(None);
    }
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

/// Each script with the sha256 of its bytes now (`None`: missing or unreadable).
fn fingerprint(scripts: Vec<PathBuf>) -> Vec<Script> {
    scripts
        .into_iter()
        .map(|path| {
            let sha256 = File::open(&path)
                .ok()
                .filter(|f| f.metadata().is_ok_and(|m| m.is_file()))
                .and_then(|f| crate::policy::sha256_of(&f).ok().flatten());
            (path, sha256)
        })
        .collect()
}
