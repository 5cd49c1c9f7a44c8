//! The doctor: every file in every folder discovery searches, whether it will run, and when it
//! will not, why and how to fix it; plus the facts of the machine that decide it (the
//! PowerShell a `.ps1` hook would use, PATHEXT, the global folder resolved).
//!
//! [`diagnose`] is the I/O edge: it scans the folders with discovery's own [`Scanner`] (every
//! known hook's files, their argv resolved, the user's policy applied), lists each folder once
//! more for the files discovery passes over, and hands everything to the pure rules of
//! rules.rs. It costs a full scan: for a command or a settings page, not for every tool call.

mod files;
mod json;
mod rules;
mod settings_handlers;

pub use files::*;
pub use rules::*;

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::discovery::{
    discover, hook_dirs, Contents, Defaults, DiscoveredHook, Entry, EntryKind, GlobalDir, Layout,
    ManagedDir, Platform, Profile, Scanner, Source, KNOWN_HOOKS,
};
use crate::error::HookError;
use crate::launch::{Interpreters, LaunchKind, LiveMachine, Machine};
use crate::policy::{self, TrustScope};

/// One folder discovery searches.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FolderReport {
    /// The folder.
    #[serde(serialize_with = "json::path")]
    pub path: PathBuf,
    /// Which kind of folder it is.
    #[serde(serialize_with = "json::source")]
    pub source: Source,
    /// The workspace root it belongs to (workspace folders only).
    #[serde(
        serialize_with = "json::some_path",
        skip_serializing_if = "Option::is_none"
    )]
    pub workspace_root: Option<PathBuf>,
    /// Whether it exists (a folder that does not is normal: no hooks there).
    pub exists: bool,
    /// Why it cannot be read, with the fix; `None` when it can (or does not exist).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// One file (or entry named like a hook) in a searched folder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    /// The file.
    #[serde(serialize_with = "json::path")]
    pub path: PathBuf,
    /// The hook it is a file of, or, for a misnamed file, the hook it most likely means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hook_name: Option<String>,
    /// Which kind of folder it is in.
    #[serde(serialize_with = "json::source")]
    pub source: Source,
    /// The workspace root of its folder (workspace folders only).
    #[serde(
        serialize_with = "json::some_path",
        skip_serializing_if = "Option::is_none"
    )]
    pub workspace_root: Option<PathBuf>,
    /// Whether it runs when its hook fires and starts.
    pub will_run: bool,
    /// Why not, when it will not.
    #[serde(
        serialize_with = "json::some_problem",
        skip_serializing_if = "Option::is_none"
    )]
    pub problem: Option<Problem>,
    /// The problem in a sentence for the hook's author.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What to do: a command to run, or a sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// The facts of this machine and call that decide which files run and how.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Runtime {
    /// `linux`, `darwin`, `win32`, ... (Node's `process.platform` names).
    pub platform: &'static str,
    /// Whose conventions apply.
    #[serde(serialize_with = "json::profile")]
    pub profile: Profile,
    /// The global hooks folder, resolved (`None`: global hooks are off, or no Documents folder).
    #[serde(
        serialize_with = "json::some_path",
        skip_serializing_if = "Option::is_none"
    )]
    pub global_hooks_dir: Option<PathBuf>,
    /// The CLI's data folder (`$CLINE_DIR` or `~/.cline`), the `cli` profile only.
    #[serde(
        serialize_with = "json::some_path",
        skip_serializing_if = "Option::is_none"
    )]
    pub cline_dir: Option<PathBuf>,
    /// The managed hooks folder, if any.
    #[serde(
        serialize_with = "json::some_path",
        skip_serializing_if = "Option::is_none"
    )]
    pub managed_hooks_dir: Option<PathBuf>,
    /// The PowerShell a `.ps1` hook starts with; `None` when there is none.
    #[serde(
        serialize_with = "json::some_path",
        skip_serializing_if = "Option::is_none"
    )]
    pub powershell: Option<PathBuf>,
    /// PATHEXT as this process read it (Windows only; `None` elsewhere or when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pathext: Option<String>,
    /// The user's policy store, if one was given.
    #[serde(
        serialize_with = "json::some_path",
        skip_serializing_if = "Option::is_none"
    )]
    pub policy_file: Option<PathBuf>,
    /// Which hooks must be approved.
    #[serde(serialize_with = "json::trust")]
    pub trust: TrustScope,
    /// Which hooks run confined (`sandbox`), and whether this machine can confine them.
    pub sandbox: SandboxReport,
}

/// The sandbox as the doctor sees it: the option, and this machine's support.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxReport {
    /// `off`, `workspace` or `all`.
    pub mode: &'static str,
    /// Whether this machine can confine hooks.
    pub supported: bool,
    /// What confinement gives here, or why there is none (then a confined hook does not start).
    pub detail: String,
}

/// What the doctor found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// Every folder searched, in search order.
    pub folders: Vec<FolderReport>,
    /// Every file of every readable folder, folder by folder, by name.
    pub hooks: Vec<FileReport>,
    /// The machine's facts.
    pub runtime: Runtime,
    /// Problems outside the folders (a policy store that cannot be used).
    pub warnings: Vec<String>,
    /// How many mistakes: folders that cannot be read, and files that will not run for a
    /// reason other than being named like no hook ([`Problem::is_mistake`]). 0: every hook
    /// file found runs.
    pub mistakes: usize,
}

/// How many mistakes `folders` and `hooks` hold: folders that cannot be read, and files that
/// will not run for a reason other than being named like no hook. Pure.
fn mistakes(folders: &[FolderReport], hooks: &[FileReport]) -> usize {
    let folders = folders.iter().filter(|f| f.problem.is_some()).count();
    let files = hooks
        .iter()
        .filter(|h| h.problem.is_some_and(Problem::is_mistake))
        .count();
    folders + files
}

/// Examines every folder `layout` searches, on this machine. Blocking I/O: call it off the
/// JavaScript thread. `node` is the host's Node binary (for `.js` hooks of the `cli` profile).
pub fn diagnose(layout: &Layout, node: Option<PathBuf>) -> Diagnosis {
    let layout = layout.made_absolute();
    let profile = layout.profile;
    let platform = Platform::current();
    let windows = matches!(platform, Platform::Windows { .. });
    let defaults = Defaults::find();
    let dirs = hook_dirs(&layout, &defaults);
    let mut machine = LiveMachine::default();
    let (listings, powershell) = {
        let mut tools = Interpreters::new(&mut machine, node, windows);
        let wanted: BTreeSet<String> = KNOWN_HOOKS.iter().map(|h| (*h).to_owned()).collect();
        let listings = Scanner::default().scan(dirs, &wanted, profile, &platform, &mut tools);
        // Windows' own PowerShell is assumed by discovery; the doctor checks it is there.
        let powershell = tools.powershell().filter(|p| !windows || p.is_file());
        (listings, powershell)
    };
    let loaded = layout
        .policy_file
        .as_deref()
        .map(|file| policy::load(file, &layout.workspace_roots))
        .unwrap_or_default();
    let mut found: Vec<DiscoveredHook> = Vec::new();
    for hook in KNOWN_HOOKS {
        let mut hooks = discover(hook, &listings, profile, &platform);
        policy::apply(&mut hooks, &loaded.policy, layout.trust);
        crate::discovery::give_sandboxes(
            &mut hooks,
            &layout.sandbox,
            &layout.workspace_roots,
            &std::env::temp_dir(),
        );
        found.extend(hooks);
    }

    let mut folders = Vec::new();
    let mut hooks = Vec::new();
    for listing in &listings {
        let dir = &listing.dir;
        let (exists, problem) = match &listing.contents {
            // Something else where the folder should be hides every hook of it.
            Contents::Missing => match std::fs::symlink_metadata(&dir.path) {
                Ok(meta) if !meta.is_dir() && std::fs::metadata(&dir.path).is_ok_and(|m| !m.is_dir()) => (
                    true,
                    Some(format!(
                        "{} is a file, not a folder, so no hook in it can run; move it away and make a folder there",
                        dir.path.display()
                    )),
                ),
                _ => (false, None),
            },
            Contents::Unreadable(why) => (true, Some(folder_problem(why))),
            Contents::Entries(_) => (true, None),
            Contents::Settings(files) => (
                true,
                files.iter().find_map(|f| {
                    f.unreadable
                        .as_ref()
                        .map(|why| format!("{}: {why}", f.path.display()))
                }),
            ),
        };
        folders.push(FolderReport {
            path: dir.path.clone(),
            source: dir.source,
            workspace_root: dir.workspace_root.clone(),
            exists,
            problem,
        });
        let entries = match &listing.contents {
            Contents::Entries(entries) => entries,
            Contents::Settings(_) => {
                hooks.extend(settings_handlers::handler_reports(&dir.path, &found));
                continue;
            }
            Contents::Missing | Contents::Unreadable(_) => continue,
        };
        let names = names_in(&dir.path, entries);
        let siblings: Vec<String> = names.iter().map(|n| n.name.clone()).collect();
        hooks.extend(files::folder_reports(
            listing,
            entries,
            &names,
            &siblings,
            &found,
            profile,
            &platform,
            &mut |hook, entry| {
                start_check(hook, entry, &platform, profile, &powershell, &mut machine)
            },
        ));
    }

    let runtime = Runtime {
        platform: node_platform(),
        profile,
        global_hooks_dir: match &layout.global_hooks_dir {
            GlobalDir::Off => None,
            GlobalDir::Default if profile == Profile::Cli => defaults.cli_global_hooks_dir.clone(),
            GlobalDir::Default => defaults.global_hooks_dir.clone(),
            GlobalDir::At(dir) => Some(dir.clone()),
        },
        cline_dir: (profile == Profile::Cli)
            .then(|| layout.cline_dir.clone().or(defaults.cline_dir.clone()))
            .flatten(),
        managed_hooks_dir: match &layout.managed_hooks_dir {
            ManagedDir::Off => None,
            ManagedDir::Default => defaults.managed_hooks_dir.clone(),
            ManagedDir::At(dir) => Some(dir.clone()),
        },
        powershell,
        pathext: if windows {
            std::env::var("PATHEXT").ok()
        } else {
            None
        },
        policy_file: layout.policy_file.clone(),
        trust: layout.trust,
        sandbox: {
            let support = crate::sandbox::support();
            SandboxReport {
                mode: layout.sandbox.mode.as_str(),
                supported: support.is_ok(),
                detail: support.unwrap_or_else(|why| why.to_string()),
            }
        },
    };
    Diagnosis {
        mistakes: mistakes(&folders, &hooks),
        folders,
        hooks,
        runtime,
        warnings: loaded
            .problem
            .into_iter()
            .chain(files::root_warnings(&found, &platform))
            .collect(),
    }
}

/// [`diagnose`] on a blocking thread, never the caller's: a system that refuses the thread is
/// [`HookError::NoThread`], and folders that do not answer within `limit` (a hung network
/// filesystem) are [`HookError::DiscoveryTimedOut`].
pub async fn diagnose_off_thread(
    layout: Layout,
    node: Option<PathBuf>,
    limit: std::time::Duration,
) -> Result<Diagnosis, HookError> {
    let work = crate::blocking::spawn(move || diagnose(&layout, node)).map_err(|refused| {
        HookError::NoThread {
            what: "read the hooks folders",
            reason: refused.reason,
        }
    })?;
    match tokio::time::timeout(limit, work).await {
        Err(_) => Err(HookError::DiscoveryTimedOut {
            waited_ms: limit.as_millis(),
        }),
        Ok(Ok(Some(found))) => Ok(found),
        Ok(Ok(None)) => Err(HookError::Internal(
            "the doctor's scan was taken back from the blocking pool".into(),
        )),
        Ok(Err(e)) => Err(HookError::Internal(format!(
            "the doctor's scan failed: {e}"
        ))),
    }
}

/// Every entry of `dir` by name, in order: a fresh listing, or (should that fail now) the
/// entries the scan found.
fn names_in(dir: &Path, entries: &[Entry]) -> Vec<files::Name> {
    let named: BTreeSet<(String, bool)> = match std::fs::read_dir(dir) {
        Ok(items) => items
            .filter_map(Result::ok)
            .map(|item| {
                let name = item.file_name().to_string_lossy().into_owned();
                // A link to a folder is a folder here, as `is_dir` follows links.
                let folder = dir.join(&name).is_dir();
                (name, folder)
            })
            .collect(),
        Err(_) => entries
            .iter()
            .map(|e| (e.name.clone(), dir.join(&e.name).is_dir()))
            .collect(),
    };
    named
        .into_iter()
        .map(|(name, folder)| files::Name { name, folder })
        .collect()
}

/// Checks of an enabled hook that discovery leaves to the moment it starts: a `#!/usr/bin/env X`
/// whose X is not on PATH, a script with no `#!` line (macOS/Linux, extension profile), and a
/// `.ps1` hook where the PowerShell discovery assumed is missing (Windows).
fn start_check(
    hook: &DiscoveredHook,
    entry: Option<&Entry>,
    platform: &Platform,
    profile: Profile,
    powershell: &Option<PathBuf>,
    machine: &mut LiveMachine,
) -> Option<Finding> {
    if hook.kind == LaunchKind::PowerShell && powershell.is_none() {
        return Some(no_powershell_on_windows());
    }
    if profile != Profile::Extension
        || *platform != Platform::Unix
        || hook.kind != LaunchKind::Direct
    {
        return None;
    }
    let entry = entry?;
    if !matches!(entry.kind, EntryKind::File { .. }) {
        return None;
    }
    match entry.shebang.as_deref() {
        Some(line) => {
            if let Some(finding) = interpreter_problem(line) {
                return Some(finding);
            }
            if let Some(finding) = unreadable(&hook.path) {
                return Some(finding);
            }
            let program = env_program(line)?;
            match machine.on_path(program) {
                Some(_) => None,
                None => Some(env_program_missing(program)),
            }
        }
        None => {
            if let Some(finding) = unreadable(&hook.path) {
                return Some(finding);
            }
            let mut head = [0u8; 5];
            let read = std::fs::File::open(&hook.path)
                .and_then(|mut file| file.read(&mut head))
                .ok()?;
            // Without a `#!` line the system hands a script to /bin/sh, so it runs; one whose
            // `#!` line hides behind a byte-order mark runs as shell, not as what it names.
            head[..read]
                .starts_with(b"\xEF\xBB\xBF#!")
                .then(|| no_shebang(&hook.path))
        }
    }
}

/// The finding for a `#!` line naming, by its absolute path, something that is not a program:
/// a folder, a FIFO, a file without the exec bit (the system refuses to start the hook).
fn interpreter_problem(line: &str) -> Option<Finding> {
    let (program, arg) = crate::launch::kernel_shebang(line);
    if !program.starts_with('/') {
        return None;
    }
    if program.ends_with("/env") && arg.is_none_or(|a| a.trim().is_empty()) {
        return Some(Finding {
            problem: Problem::MissingInterpreter,
            reason: format!("its #! line runs {program} with no program to find, so env starts the hook itself again, over and over, until its timeout"),
            fix: Some("name the interpreter: #!/usr/bin/env bash (or python3, node)".to_owned()),
            meant: None,
            renames_to: None,
        });
    }
    let meta = std::fs::metadata(program).ok()?;
    let what = if meta.is_dir() {
        "a folder"
    } else if !meta.is_file() {
        "not a regular file (a FIFO or a device)"
    } else if !crate::discovery::is_executable(&meta) {
        "a file without the exec bit"
    } else {
        return None;
    };
    Some(Finding {
        problem: Problem::MissingInterpreter,
        reason: format!("its #! line names {program}, which is {what}, not a program, so the system refuses to start it"),
        fix: Some("change the #! line to an interpreter that exists, such as #!/usr/bin/env bash".to_owned()),
        meant: None,
        renames_to: None,
    })
}

/// The finding for a script its user cannot read: the system starts it, and its interpreter
/// then fails to open it.
#[cfg(unix)]
fn unreadable(path: &std::path::Path) -> Option<Finding> {
    use std::os::unix::ffi::OsStrExt;
    let path_c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: a valid C string; access() only reads it.
    if unsafe { libc::access(path_c.as_ptr(), libc::R_OK) } == 0 {
        return None;
    }
    Some(Finding {
        problem: Problem::CannotRun,
        reason: "it is executable but not readable by this user, so its interpreter cannot read it (a compiled program would run)".to_owned(),
        fix: Some(format!("chmod +r {}", rules::shell_quote(&path.to_string_lossy()))),
        meant: None,
        renames_to: None,
    })
}

#[cfg(not(unix))]
fn unreadable(_: &std::path::Path) -> Option<Finding> {
    None
}

/// The finding for a `.ps1` hook on Windows with no PowerShell found.
fn no_powershell_on_windows() -> Finding {
    Finding {
        problem: Problem::NoPowerShell,
        reason: "PowerShell hooks need pwsh on PATH or Windows PowerShell (System32\\WindowsPowerShell\\v1.0\\powershell.exe), and neither was found".to_owned(),
        fix: Some("install PowerShell 7 (https://aka.ms/install-powershell), or use a .cmd hook".to_owned()),
        meant: None,
        renames_to: None,
    }
}

/// A folder's problem, from the sentence discovery gives each of its hooks.
fn folder_problem(why: &str) -> String {
    match why.strip_prefix("its hooks directory ") {
        Some(rest) => format!("the folder {rest}"),
        None => why.to_owned(),
    }
}

/// This system's name as Node's `process.platform` gives it.
fn node_platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn scratch() -> PathBuf {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("cline-hooks-doctor-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(dir.join(".clinerules/hooks")).unwrap();
        dir
    }

    fn write(dir: &Path, name: &str, text: &str, mode: u32) {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn every_file_of_a_folder_is_reported_with_what_stops_it() {
        let root = scratch();
        let hooks = root.join(".clinerules/hooks");
        write(&hooks, "TaskStart", "#!/bin/sh\necho '{}'\n", 0o755);
        write(&hooks, "PreToolUse", "#!/bin/sh\n", 0o644);
        write(&hooks, "PostToolUse", "#!/bin/sh\r\necho\r\n", 0o755);
        write(
            &hooks,
            "TaskCancel",
            "#!/usr/bin/env no-such-program-x\n",
            0o755,
        );
        write(&hooks, "TaskComplete", "echo no shebang\n", 0o755);
        write(&hooks, "UserPromptSubmit.sh", "#!/bin/sh\n", 0o755);
        write(&hooks, "PretoolUse", "#!/bin/sh\n", 0o755);
        write(&hooks, "notes.md", "", 0o644);
        std::fs::create_dir(hooks.join("lib")).unwrap();
        let layout = Layout {
            workspace_roots: vec![root.clone()],
            global_hooks_dir: GlobalDir::Off,
            managed_hooks_dir: ManagedDir::Off,
            ..Layout::default()
        };
        let got = diagnose(&layout, None);
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(got.folders.len(), 1);
        assert!(got.folders[0].exists && got.folders[0].problem.is_none());
        let problems: Vec<(String, bool, Option<&str>)> = got
            .hooks
            .iter()
            .map(|h| {
                (
                    h.path.file_name().unwrap().to_string_lossy().into_owned(),
                    h.will_run,
                    h.problem.map(Problem::as_str),
                )
            })
            .collect();
        let want = vec![
            ("PostToolUse".into(), false, Some("windowsLineEndings")),
            ("PreToolUse".into(), false, Some("notExecutable")),
            ("PretoolUse".into(), false, Some("unknownHookName")),
            ("TaskCancel".into(), false, Some("missingInterpreter")),
            ("TaskComplete".into(), true, None),
            ("TaskStart".into(), true, None),
            (
                "UserPromptSubmit.sh".into(),
                false,
                Some("wrongPlatformName"),
            ),
            ("notes.md".into(), false, Some("notAHook")),
        ];
        assert_eq!(problems, want);
        assert_eq!(got.mistakes, 5);
        assert_eq!(got.runtime.global_hooks_dir, None);
        assert_eq!(got.runtime.pathext, None);
    }
}
