//! The user's decisions about one hook file, recorded in the policy store: approve its
//! current bytes (`trustHook`), withdraw the approval (`untrustHook`), disable or enable it
//! (`setHookEnabled`). Blocking file I/O: call off any event loop.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::fingerprint::{sha256_of, FINGERPRINT_LIMIT};
use super::paths::real_path;
#[cfg(unix)]
use super::paths::{hook_area, leads_out};
use super::policy_file::update;
use super::store::{is_sha256, key};
use crate::discovery::{could_be_hook_file, Platform, Profile};
use crate::error::HookError;

/// An approval as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    /// The hook file, as the store keys it.
    pub path: PathBuf,
    /// The sha256 of the bytes approved.
    pub sha256: String,
}

/// Approves the hook file at `path` as its bytes are now; with `expected`, only if they are
/// still the bytes with that sha256 (the ones the user was shown), so a file changed between
/// the question and the answer is not approved.
pub fn trust_hook(
    path: &Path,
    policy_file: &Path,
    expected: Option<&str>,
) -> Result<Approval, HookError> {
    if let Some(expected) = expected.filter(|e| !is_sha256(e)) {
        return Err(HookError::InvalidOption {
            option: "sha256",
            reason: format!(
                "{} is not a sha256; pass the 64 lowercase hex digits discovery reported as the hook's sha256",
                crate::error::quoted(expected)
            ),
        });
    }
    // What is approved: a hook file's bytes, or a Claude settings handler's (`<file>#<position>`)
    // event, matcher, command and the files it runs, as they are now.
    let (sha256, what) = match crate::claude::split_entry_path(path) {
        Some((file, position)) => (
            handler_sha256(path, &file, &position)?,
            "its command, matcher or a file it runs is not what you were shown",
        ),
        None => (
            file_sha256(path)?,
            "its bytes are not the ones you were shown",
        ),
    };
    if let Some(expected) = expected.filter(|e| **e != sha256) {
        return Err(HookError::PolicyFile(format!(
            "{} changed since it was reviewed (its sha256 is {sha256}, not {expected}): {what}, so it was not approved; review it again",
            path.display()
        )));
    }
    let real = real_path(path);
    update(policy_file, |policy| {
        policy.approved.insert(key(&real), sha256.clone());
        Ok(())
    })?;
    Ok(Approval {
        path: path.to_owned(),
        sha256,
    })
}

/// The sha256 of the hook file at `path` now.
fn file_sha256(path: &Path) -> Result<String, HookError> {
    let file = open_hook(path)?;
    sha256_of(&file)
        .map_err(|e| not_a_hook(path, format!("it cannot be read ({e})")))?
        .ok_or_else(|| {
            not_a_hook(
                path,
                format!(
                    "it is larger than {} MiB, more than a hook file can be to be fingerprinted",
                    FINGERPRINT_LIMIT / 1024 / 1024
                ),
            )
        })
}

/// The sha256 of the Claude settings handler at `position` of `file` now (`path` names both).
fn handler_sha256(path: &Path, file: &Path, position: &str) -> Result<String, HookError> {
    let user_dir = crate::discovery::Defaults::find().claude_dir;
    crate::discovery::handler_digest_now(file, position, user_dir.as_deref()).map_err(|why| {
        HookError::PolicyFile(format!(
            "{} cannot be approved: {why}; list the hooks again (cline-hooks list --claude-settings) and approve one of them",
            path.display()
        ))
    })
}

/// Withdraws the approval of `path`; whether there was one. The file need not exist anymore.
pub fn untrust_hook(path: &Path, policy_file: &Path) -> Result<bool, HookError> {
    let real = real_path(path);
    update(policy_file, |policy| {
        // Either spelling: one recorded before links were resolved is withdrawn too.
        let had_real = policy.approved.remove(&key(&real)).is_some();
        Ok(policy.approved.remove(&key(path)).is_some() || had_real)
    })
}

/// Records whether the hook file at `path` runs. Enabling a file that lacks the exec bit
/// (macOS/Linux) sets it, since the user asked for it to run, but never on a file a link leads
/// to outside the hook's workspace root or folder (that is refused); disabling leaves its mode
/// alone.
pub fn set_hook_enabled(path: &Path, enabled: bool, policy_file: &Path) -> Result<(), HookError> {
    // A Claude settings handler (`<file>#<position>`) is its file's to switch: nothing to make
    // executable.
    if let Some((file, _)) = crate::claude::split_entry_path(path) {
        if !file.is_file() {
            return Err(not_a_hook(
                path,
                "its settings file does not exist; pass the path `cline-hooks list --claude-settings` shows".to_owned(),
            ));
        }
    } else {
        let file = open_hook(path)?;
        if enabled {
            make_executable(path, &file)?;
        }
    }
    let real = real_path(path);
    update(policy_file, |policy| {
        if enabled {
            policy.disabled.remove(&key(&real));
            policy.disabled.remove(&key(path));
        } else {
            policy.disabled.insert(key(&real));
        }
        Ok(())
    })
}

/// The hook file at `path`, open: a regular file (a link to one counts) whose name is a hook
/// file's under some profile.
fn open_hook(path: &Path) -> Result<File, HookError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let platform = Platform::current();
    if !could_be_hook_file(&name, Profile::Extension, &platform)
        && !could_be_hook_file(&name, Profile::Cli, &platform)
    {
        return Err(not_a_hook(
            path,
            "its name is not a hook's; hook files are named after their hook (PreToolUse, TaskStart, ...; on Windows and in the CLI profile with an extension such as .ps1 or .sh)".to_owned(),
        ));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // A FIFO named like a hook would hold the open until a writer came: opened without
    // waiting, it is refused below as not a regular file (a regular file reads as ever).
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(|e| {
        let why = if e.kind() == std::io::ErrorKind::NotFound {
            "it does not exist; pass the path `cline-hooks list` shows".to_owned()
        } else {
            format!("it cannot be opened ({e})")
        };
        not_a_hook(path, why)
    })?;
    let meta = file
        .metadata()
        .map_err(|e| not_a_hook(path, format!("it cannot be inspected ({e})")))?;
    if !meta.is_file() {
        return Err(not_a_hook(
            path,
            "it is not a regular file; a hook is a file".to_owned(),
        ));
    }
    Ok(file)
}

/// Sets the exec bit of the hook file at `path` (open as `file`) if it lacks it. Only for a file
/// that lies, links resolved, in the hook's workspace root or folder ([`leads_out`]): a link a
/// repository planted must not make us change a file elsewhere. The mode is changed through a
/// descriptor opened on that real path without following a link at its end, and only when it
/// is the file opened as the hook.
#[cfg(unix)]
fn make_executable(path: &Path, file: &File) -> Result<(), HookError> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
    let inspect = |e: std::io::Error| not_a_hook(path, format!("it cannot be inspected ({e})"));
    let meta = file.metadata().map_err(inspect)?;
    let mode = meta.permissions().mode();
    if mode & 0o111 != 0 {
        return Ok(());
    }
    let real = std::fs::canonicalize(path).map_err(inspect)?;
    let area = path.parent().and_then(hook_area).ok_or_else(|| {
        not_a_hook(
            path,
            "its folder cannot be resolved, so it was not made executable".to_owned(),
        )
    })?;
    if let Some(why) = leads_out(&real, &area) {
        return Err(not_a_hook(path, why));
    }
    let target = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(&real)
        .map_err(|e| {
            not_a_hook(
                path,
                format!(
                    "{} cannot be opened without following links ({e}), so it was not made executable",
                    real.display()
                ),
            )
        })?;
    let same = target
        .metadata()
        .is_ok_and(|t| t.dev() == meta.dev() && t.ino() == meta.ino());
    if !same {
        return Err(not_a_hook(
            path,
            "it was replaced while it was being enabled, so it was not made executable; try again"
                .to_owned(),
        ));
    }
    // Executable for whoever may read it, as `chmod +x` under the usual umask does.
    let with_exec = mode | ((mode & 0o444) >> 2);
    target
        .set_permissions(std::fs::Permissions::from_mode(with_exec))
        .map_err(|e| {
            HookError::PolicyFile(format!(
                "{} cannot be made executable ({e}), so it cannot be enabled; run chmod +x on it",
                path.display()
            ))
        })
}

#[cfg(not(unix))]
fn make_executable(_path: &Path, _file: &File) -> Result<(), HookError> {
    Ok(())
}

fn not_a_hook(path: &Path, reason: String) -> HookError {
    HookError::NotAHook {
        path: path.display().to_string(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::policy_file::load;

    #[test]
    fn approving_records_the_bytes_now_and_refuses_what_is_not_a_hook() {
        let dir = std::env::temp_dir().join(format!("cline-hooks-decide-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = dir.join("policy.json");
        let hook = dir.join("PreToolUse");
        std::fs::write(&hook, "test").unwrap();
        let approval = trust_hook(&hook, &store, None).unwrap();
        assert_eq!(
            approval.sha256,
            super::super::fingerprint::sha256_of_bytes(b"test")
        );
        assert_eq!(
            load(&store, &[]).policy.approval(&hook),
            Some(approval.sha256.as_str())
        );
        // Reviewed as other bytes: refused, nothing recorded.
        std::fs::write(&hook, "edited").unwrap();
        let err = trust_hook(&hook, &store, Some(&approval.sha256)).unwrap_err();
        assert!(
            err.to_string().contains("changed since it was reviewed"),
            "{err}"
        );
        assert_eq!(
            load(&store, &[]).policy.approval(&hook),
            Some(approval.sha256.as_str())
        );
        assert!(untrust_hook(&hook, &store).unwrap());
        assert!(!untrust_hook(&hook, &store).unwrap());

        let not_hook = dir.join("notes.txt");
        std::fs::write(&not_hook, "x").unwrap();
        assert!(matches!(
            trust_hook(&not_hook, &store, None),
            Err(HookError::NotAHook { .. })
        ));
        assert!(matches!(
            trust_hook(&dir.join("TaskStart"), &store, None),
            Err(HookError::NotAHook { .. })
        ));
        std::fs::create_dir_all(dir.join("TaskCancel")).unwrap();
        assert!(matches!(
            set_hook_enabled(&dir.join("TaskCancel"), false, &store),
            Err(HookError::NotAHook { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn enabling_a_hook_without_the_exec_bit_sets_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("cline-hooks-enable-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = dir.join("policy.json");
        let hook = dir.join("TaskStart");
        std::fs::write(&hook, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644)).unwrap();
        set_hook_enabled(&hook, false, &store).unwrap();
        assert!(load(&store, &[]).policy.is_disabled(&hook));
        assert_eq!(
            std::fs::metadata(&hook).unwrap().permissions().mode() & 0o777,
            0o644
        );
        set_hook_enabled(&hook, true, &store).unwrap();
        assert!(!load(&store, &[]).policy.is_disabled(&hook));
        assert_eq!(
            std::fs::metadata(&hook).unwrap().permissions().mode() & 0o777,
            0o755
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
