//! Starting a hook's process: the command built from its argv, at the head of its own tree,
//! marked in its environment, with the `#!`-less fallback to `/bin/sh`, announced to the
//! watchdog for attended runs.

use std::ffi::OsString;
use std::future::Future;
use std::io;
use std::path::Path;
use std::time::Duration;

use tokio::process::Command;

use super::execution::Status;
use super::hook_child::HookChild;
use super::hook_io::{HookIo, HookOutput, HookStdin};
use crate::discovery::{DiscoveredHook, HookMode};
use crate::process::start_retry::{is_passing_refusal, START_ATTEMPTS, START_PAUSES};
use crate::process::verified_start::VerifiedFile;
use crate::process::{announce, ProcessTree, Registration, StartMarker};

/// The variable that gives every hook its own file's path (its `$0` may be
/// `/proc/self/fd/N` when it was started from its verified file: see verified_start.rs).
pub const HOOK_PATH_VAR: &str = "CLINE_HOOK_PATH";

/// The variable that tells a hook it runs as a persistent process: `persistent`.
pub const MODE_VAR: &str = "CLINE_HOOK_MODE";

/// Why a hook did not start: the start failed, or the run was stopped (its deadline, an abort,
/// `terminateAll()`) while a refused start waited for another try; then, its status and why.
#[derive(Debug)]
pub(super) enum NotStarted {
    Failed(io::Error),
    Stopped(Status, String),
    /// It must run confined (`sandbox`), and cannot be here: the sentence says why.
    Unconfinable(String),
}

impl NotStarted {
    /// Why it did not start, in words for the hook's author (a stop's own words for a stop).
    pub(super) fn explained(&self, hook: &DiscoveredHook, cwd: &Path) -> String {
        match self {
            NotStarted::Failed(err) => super::spawn_failure::explain_start_error(err, hook, cwd),
            NotStarted::Stopped(_, why) | NotStarted::Unconfinable(why) => why.clone(),
        }
    }
}

impl From<io::Error> for NotStarted {
    fn from(err: io::Error) -> NotStarted {
        NotStarted::Failed(err)
    }
}

/// A hook's environment: the variables added to the inherited ones, the inherited ones left
/// out and whether it starts confined (`scrubEnv`), and the run it belongs to (its
/// `CLINE_HOOK_*` variables).
pub(super) struct HookEnv<'a> {
    pub add: &'a [(OsString, OsString)],
    pub remove: &'a [OsString],
    /// Started out of reach of the host's environment and memory (see confine.rs).
    pub confine: bool,
    pub run: &'a crate::process::RunIdentity,
}

/// Starts a hook whose end is awaited, with piped stdin, stdout and stderr. It is announced to
/// the watchdog before the start, so a host that dies during it still leaves nothing, and its
/// tree is attached to `registration` once it runs. A hook the watchdog cannot watch still
/// runs, with a warning saying so. `wait` is as for [`spawn`].
pub(super) async fn spawn_watched<W, F>(
    hook: &DiscoveredHook,
    cwd: &Path,
    env: HookEnv<'_>,
    registration: &mut Registration,
    warnings: &mut Vec<String>,
    verified: Option<&VerifiedFile>,
    wait: W,
) -> Result<HookChild, NotStarted>
where
    W: Fn(Duration, String) -> F,
    F: Future<Output = Result<(), (Status, String)>>,
{
    let marker = StartMarker::next();
    let announced = match announce(marker) {
        Ok(announced) => Some(announced),
        Err(why) => {
            warnings.push(why);
            None
        }
    };
    let io = HookIo {
        stdin: HookStdin::Piped,
        output: HookOutput::Piped,
    };
    let (child, tree) = spawn(hook, cwd, env, marker, warnings, io, verified, wait).await?;
    let watched = announced.map(|announced| announced.started(tree.group()));
    registration.attach(tree, watched);
    Ok(child)
}

/// Starts the hook's process as the head of its own tree, with `io`. Its environment is the
/// inherited one without `env.remove`, with `env.add` added, and `marker`'s variable (every start carries one: it is how the processes that leave the
/// tree's group are found when it is stopped); `env.confine` starts it confined. A start the system refuses for a reason that
/// passes is tried again, up to [`START_ATTEMPTS`] times, after `wait(pause, the refusal)`,
/// which ends early with the hook's status when the run is stopped meanwhile; a later try that
/// succeeds says so in `warnings`. A `verified` hook starts from its checked file.
#[allow(clippy::too_many_arguments)]
pub(super) async fn spawn<W, F>(
    hook: &DiscoveredHook,
    cwd: &Path,
    env: HookEnv<'_>,
    marker: StartMarker,
    warnings: &mut Vec<String>,
    io: HookIo,
    verified: Option<&VerifiedFile>,
    wait: W,
) -> Result<(HookChild, ProcessTree), NotStarted>
where
    W: Fn(Duration, String) -> F,
    F: Future<Output = Result<(), (Status, String)>>,
{
    let cwd = &working_directory(cwd)?;
    let argv = verified.map_or_else(|| hook.command.clone(), |v| v.argv(hook));
    let HookEnv {
        add: env,
        remove: env_remove,
        confine,
        run,
    } = env;
    let identity = run.variables(hook);
    // A hook that must run confined never runs without its sandbox.
    let sandbox = match &hook.sandbox {
        Some(sandbox) => Some(
            crate::sandbox::prepare(sandbox, warnings)
                .map_err(|why| NotStarted::Unconfinable(why.to_string()))?,
        ),
        None => None,
    };
    #[cfg(target_os = "macos")]
    let argv = match &sandbox {
        Some(crate::sandbox::Prepared::Seatbelt(profile)) => {
            let mut confined: Vec<OsString> =
                vec!["/usr/bin/sandbox-exec".into(), "-p".into(), profile.into()];
            confined.extend(argv);
            confined
        }
        None => argv,
    };
    let spawn_argv = |argv: &[OsString]| -> io::Result<HookChild> {
        let mut command = Command::new(program_path(&argv[0]));
        add_args(&mut command, hook, &argv[1..]);
        let (key, value) = marker.env();
        for name in env_remove {
            command.env_remove(name);
        }
        command
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env(HOOK_PATH_VAR, &hook.path)
            // After the caller's `env` (and `scrubEnv`'s removals): the runtime's values win.
            .envs(identity.iter().map(|(k, v)| (k, v)))
            // Last, so a caller's variable of the same name cannot take its place.
            .env(key, value)
            .stdin(io.stdin.stdio()?)
            .stdout(io.output.stdio())
            .stderr(io.output.stdio())
            .kill_on_drop(false);
        // Only a persistent hook is told it is one: a host that itself runs inside one (a
        // `cline-hooks run` from a persistent hook) must not pass the word on.
        match hook.settings.mode {
            HookMode::Persistent => command.env(MODE_VAR, "persistent"),
            HookMode::PerEvent => command.env_remove(MODE_VAR),
        };
        crate::process::configure(&mut command);
        if let Some(verified) = verified {
            verified.keep_in_child(&mut command);
        }
        // Confined (a sandbox's domain, or scrubEnv's: either keeps the host out of reach):
        // started by the own spawn, whose child enters the domain before its exec without the
        // fork a `pre_exec` closure would cost (see own_spawn.rs). A sandboxed start also
        // closes the host's descriptors at exec and installs its seccomp filter; the verified
        // file's descriptor is kept open after that.
        #[cfg(target_os = "linux")]
        {
            let confined = match &sandbox {
                Some(crate::sandbox::Prepared::Landlock { ruleset, filter }) => {
                    Some((std::os::fd::AsRawFd::as_raw_fd(ruleset), Some(*filter)))
                }
                None if confine => super::confine::scrub_ruleset().map(|ruleset| (ruleset, None)),
                None => None,
            };
            if let Some((ruleset, filter)) = confined {
                let keep = verified.and_then(VerifiedFile::kept_fd);
                return super::own_spawn::spawn(command.as_std(), &io, keep, ruleset, filter);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (confine, &sandbox);
        command.spawn().map(HookChild::from)
    };
    if argv.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no command").into());
    }
    // One try: the hook's own argv, then (what execvp does for a script without a #! line)
    // the same handed to /bin/sh. A refusal of either is tried again whole.
    let try_start = || -> io::Result<(HookChild, bool)> {
        match spawn_argv(&argv) {
            Err(err) if is_exec_format_error(&err) => {
                let mut by_sh = vec![OsString::from("/bin/sh")];
                by_sh.extend(argv.iter().cloned());
                Ok((spawn_argv(&by_sh)?, true))
            }
            started => Ok((started?, false)),
        }
    };
    let (child, by_sh) = retry_refused(try_start, wait, warnings).await.inspect_err(
        |not_started| {
            if let NotStarted::Failed(err) = not_started {
                tracing::info!(hook = %hook.path.display(), ?argv, %err, "hook could not start");
            }
        },
    )?;
    tracing::debug!(
        hook = %hook.path.display(),
        ?argv,
        pid = child.id(),
        cwd = %cwd.display(),
        run = %run.id,
        "hook started"
    );
    if by_sh {
        warnings.push("has no #! line, so it was run with /bin/sh; start it with a line like #!/usr/bin/env bash".to_owned());
    }
    let tree = match ProcessTree::adopt(&child, marker) {
        Ok(tree) => tree,
        Err(err) => {
            let mut child = child;
            let _ = child.start_kill();
            return Err(err.into());
        }
    };
    Ok((child, tree))
}

/// Calls `start` until it succeeds, fails for a reason that will not pass, or has been tried
/// [`START_ATTEMPTS`] times, calling `wait` with each pause and refusal between tries (the
/// run's stop ends the tries there); a start that succeeded after a refusal says so in
/// `warnings`.
async fn retry_refused<T, W, F>(
    mut start: impl FnMut() -> io::Result<T>,
    wait: W,
    warnings: &mut Vec<String>,
) -> Result<T, NotStarted>
where
    W: Fn(Duration, String) -> F,
    F: Future<Output = Result<(), (Status, String)>>,
{
    let (mut attempt, mut first_refusal) = (1, None);
    loop {
        match start() {
            Err(err) if is_passing_refusal(&err) && attempt < START_ATTEMPTS => {
                let refusal = err.to_string();
                first_refusal.get_or_insert_with(|| refusal.clone());
                wait(START_PAUSES[attempt - 1], refusal)
                    .await
                    .map_err(|(status, why)| NotStarted::Stopped(status, why))?;
                attempt += 1;
            }
            result => {
                if let (Ok(_), Some(refusal)) = (&result, first_refusal) {
                    warnings.push(format!(
                        "the system refused to start it at first ({refusal}); it started at try {attempt} of {START_ATTEMPTS}"
                    ));
                }
                return Ok(result?);
            }
        }
    }
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

    /// The error code of a refusal that passes, on this system.
    fn passing_code() -> i32 {
        #[cfg(unix)]
        return libc::EAGAIN;
        #[cfg(windows)]
        return 1359;
    }

    /// The wait between tries as a run that is never stopped makes it: the pause itself.
    async fn just_pause(pause: Duration, _refusal: String) -> Result<(), (Status, String)> {
        tokio::time::sleep(pause).await;
        Ok(())
    }

    /// The error of a retry that did not start, as its os error code or its stop's status.
    fn code_of(not_started: NotStarted) -> Result<Option<i32>, Status> {
        match not_started {
            NotStarted::Failed(err) => Ok(err.raw_os_error()),
            NotStarted::Stopped(status, _) => Err(status),
            NotStarted::Unconfinable(why) => panic!("no sandbox was asked for, yet: {why}"),
        }
    }

    /// A start refused twice for a reason that passes is tried a third time, after a wait
    /// of each pause, and the success says it came after a refusal.
    #[tokio::test]
    async fn a_refused_start_is_tried_again_and_says_so() {
        let mut tries = 0;
        let mut warnings = Vec::new();
        let began = std::time::Instant::now();
        let started = retry_refused(
            || {
                tries += 1;
                if tries < START_ATTEMPTS {
                    Err(io::Error::from_raw_os_error(passing_code()))
                } else {
                    Ok(tries)
                }
            },
            just_pause,
            &mut warnings,
        )
        .await;
        assert_eq!(started.ok(), Some(START_ATTEMPTS));
        assert!(began.elapsed() >= START_PAUSES.iter().sum());
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("the system refused to start it at first (")
                && warnings[0].ends_with(&format!("it started at try 3 of {START_ATTEMPTS}")),
            "{warnings:?}"
        );
    }

    /// Refused at every try: the last refusal is returned, after [`START_ATTEMPTS`] tries.
    /// A refusal that will not pass (a missing file) is not tried again, and a first-try
    /// success warns of nothing.
    #[tokio::test]
    async fn only_a_passing_refusal_is_tried_again_and_only_so_often() {
        let (mut tries, mut warnings) = (0, Vec::new());
        let refused = retry_refused(
            || -> io::Result<()> {
                tries += 1;
                Err(io::Error::from_raw_os_error(passing_code()))
            },
            just_pause,
            &mut warnings,
        )
        .await;
        assert_eq!(refused.map_err(code_of), Err(Ok(Some(passing_code()))));
        assert_eq!(tries, START_ATTEMPTS);

        let mut tries = 0;
        let missing = retry_refused(
            || -> io::Result<()> {
                tries += 1;
                Err(io::Error::from(io::ErrorKind::NotFound))
            },
            just_pause,
            &mut warnings,
        )
        .await;
        assert!(missing.is_err());
        assert_eq!(tries, 1);

        let first = retry_refused(|| Ok(7), just_pause, &mut warnings).await;
        assert_eq!(first.ok(), Some(7));
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    /// A run stopped while a refused start waits (an abort, `terminateAll()`, its deadline)
    /// tries no more: the wait's status and reason are the outcome, and nothing started.
    #[tokio::test]
    async fn a_stop_during_the_wait_ends_the_tries() {
        let (mut tries, mut warnings) = (0, Vec::new());
        let stopped = retry_refused(
            || -> io::Result<()> {
                tries += 1;
                Err(io::Error::from_raw_os_error(passing_code()))
            },
            |_pause, refusal: String| async move {
                Err((Status::Aborted, format!("stopped after {refusal}")))
            },
            &mut warnings,
        )
        .await;
        assert_eq!(tries, 1);
        match stopped {
            Err(NotStarted::Stopped(Status::Aborted, why)) => {
                assert!(why.starts_with("stopped after "), "{why}")
            }
            other => panic!("expected a stop, got {other:?}"),
        }
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn a_current_directory_may_hold_258_characters_and_no_more() {
        assert!(!too_long_for_a_current_directory(258));
        assert!(too_long_for_a_current_directory(259));
    }
}
