//! Starting a hook's process: the command built from its argv, at the head of its own tree,
//! marked in its environment, with the `#!`-less fallback to `/bin/sh`, announced to the
//! watchdog for attended runs.

use std::ffi::OsString;
use std::io;
use std::path::Path;
use std::process::Stdio;

use tokio::process::{Child, Command};

use crate::discovery::DiscoveredHook;
use crate::process::{announce, ProcessTree, Registration, StartMarker};

/// Starts a hook whose end is awaited, with piped stdin, stdout and stderr. It is announced to
/// the watchdog before the start, so a host that dies during it still leaves nothing, and its
/// tree is attached to `registration` once it runs. A hook the watchdog cannot watch still
/// runs, with a warning saying so.
pub(super) fn spawn_watched(
    hook: &DiscoveredHook,
    cwd: &Path,
    env: &[(OsString, OsString)],
    registration: &mut Registration,
    warnings: &mut Vec<String>,
) -> io::Result<Child> {
    let marker = StartMarker::next();
    let announced = match announce(marker) {
        Ok(announced) => Some(announced),
        Err(why) => {
            warnings.push(why);
            None
        }
    };
    let (child, tree) = spawn(
        hook,
        cwd,
        env,
        marker,
        warnings,
        Stdio::piped(),
        Stdio::piped,
    )?;
    let watched = announced.map(|announced| announced.started(tree.group()));
    registration.attach(tree, watched);
    Ok(child)
}

/// Starts the hook's process as the head of its own tree, with `stdin` and `output()` for
/// stdout and stderr. Its environment is `env` and `marker`'s variable (every start carries
/// one: it is how the processes that leave the tree's group are found when it is stopped).
pub(super) fn spawn(
    hook: &DiscoveredHook,
    cwd: &Path,
    env: &[(OsString, OsString)],
    marker: StartMarker,
    warnings: &mut Vec<String>,
    stdin: Stdio,
    output: fn() -> Stdio,
) -> io::Result<(Child, ProcessTree)> {
    let cwd = &working_directory(cwd)?;
    // The retry without a #! line needs stdin again: a file is shared, a pipe made anew.
    let mut stdin = Some(stdin);
    let mut spawn_argv = |argv: &[OsString]| -> io::Result<Child> {
        let stdin = stdin.take().unwrap_or_else(Stdio::piped);
        let mut command = Command::new(program_path(&argv[0]));
        add_args(&mut command, hook, &argv[1..]);
        let (key, value) = marker.env();
        command
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (k, v)))
            // Last, so a caller's variable of the same name cannot take its place.
            .env(key, value)
            .stdin(stdin)
            .stdout(output())
            .stderr(output())
            .kill_on_drop(false);
        crate::process::configure(&mut command);
        command.spawn()
    };
    if hook.command.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no command"));
    }
    let child = match spawn_argv(&hook.command) {
        Err(err) if is_exec_format_error(&err) => {
            // What execvp does for a script without a #! line: hand it to /bin/sh.
            let mut argv = vec![OsString::from("/bin/sh")];
            argv.extend(hook.command.iter().cloned());
            let child = spawn_argv(&argv)?;
            warnings.push("has no #! line, so it was run with /bin/sh; start it with a line like #!/usr/bin/env bash".to_owned());
            child
        }
        other => other?,
    };
    let tree = match ProcessTree::adopt(&child, marker) {
        Ok(tree) => tree,
        Err(err) => {
            let mut child = child;
            let _ = child.start_kill();
            return Err(err);
        }
    };
    Ok((child, tree))
}

/// Windows gives a process a current directory of at most 258 characters (MAX_PATH less the
/// final `\` and NUL); cmd.exe knows no longer one. A deeper workspace runs from its short
/// (8.3) form when that fits, and fails with a sentence when it has none that does.
#[cfg(windows)]
fn working_directory(cwd: &Path) -> io::Result<std::borrow::Cow<'_, Path>> {
    use std::borrow::Cow;
    if !too_long_for_a_current_directory(utf16_len(cwd.as_os_str())) {
        return Ok(Cow::Borrowed(cwd));
    }
    match short_name(cwd) {
        Some(short) if !too_long_for_a_current_directory(utf16_len(short.as_os_str())) => {
            Ok(Cow::Owned(short))
        }
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "its working directory {} is longer than the 258 characters Windows allows a process's current directory, and has no short (8.3) name that fits; move the workspace to a shorter path",
                cwd.display()
            ),
        )),
    }
}

#[cfg(not(windows))]
fn working_directory(cwd: &Path) -> io::Result<std::borrow::Cow<'_, Path>> {
    Ok(std::borrow::Cow::Borrowed(cwd))
}

/// The program to start: a path past MAX_PATH (a deep `.exe` hook) is given by its short (8.3)
/// form when it has one, as not every Windows (nor Wine) starts a longer one.
#[cfg(windows)]
fn program_path(program: &OsString) -> OsString {
    let long = utf16_len(program) >= 260;
    match long.then(|| short_name(Path::new(program))).flatten() {
        Some(short) => short.into_os_string(),
        None => program.clone(),
    }
}

#[cfg(not(windows))]
fn program_path(program: &OsString) -> OsString {
    program.clone()
}

/// How long a path is for Windows: in UTF-16 units.
#[cfg(windows)]
fn utf16_len(path: &std::ffi::OsStr) -> usize {
    use std::os::windows::ffi::OsStrExt;
    path.encode_wide().count()
}

/// The short (8.3) form of an existing path, if the volume keeps short names.
#[cfg(windows)]
fn short_name(path: &Path) -> Option<std::path::PathBuf> {
    use std::os::windows::ffi::{OsStrExt, OsStringExt};
    use windows_sys::Win32::Storage::FileSystem::GetShortPathNameW;

    let wide: Vec<u16> = path.as_os_str().encode_wide().chain(Some(0)).collect();
    let mut short = vec![0u16; wide.len()];
    // SAFETY: both buffers are valid for their lengths; `wide` is NUL-terminated.
    let written =
        unsafe { GetShortPathNameW(wide.as_ptr(), short.as_mut_ptr(), short.len() as u32) }
            as usize;
    if written == 0 || written >= short.len() {
        return None;
    }
    short.truncate(written);
    Some(std::ffi::OsString::from_wide(&short).into())
}

/// Whether a path of `len` UTF-16 units is past what Windows takes as a current directory.
#[cfg_attr(not(windows), allow(dead_code))]
fn too_long_for_a_current_directory(len: usize) -> bool {
    len > 258
}

#[cfg(windows)]
fn add_args(command: &mut Command, hook: &DiscoveredHook, args: &[OsString]) {
    use crate::launch::LaunchKind;
    match (hook.kind, args.split_last()) {
        // cmd.exe parses its own command line; the tail is already quoted for it.
        (LaunchKind::Cmd, Some((tail, flags))) => {
            command.args(flags);
            command.raw_arg(tail);
        }
        _ => {
            command.args(args);
        }
    }
}

#[cfg(not(windows))]
fn add_args(command: &mut Command, _hook: &DiscoveredHook, args: &[OsString]) {
    command.args(args);
}

#[cfg(unix)]
fn is_exec_format_error(err: &io::Error) -> bool {
    err.raw_os_error() == Some(libc::ENOEXEC)
}

#[cfg(not(unix))]
fn is_exec_format_error(_err: &io::Error) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_current_directory_may_hold_258_characters_and_no_more() {
        assert!(!too_long_for_a_current_directory(258));
        assert!(too_long_for_a_current_directory(259));
    }
}
