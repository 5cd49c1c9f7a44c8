//! What a hook's exit status means, in words for its author: the exit code, or the signal
//! that killed it, with the last line of its stderr.

use std::process::ExitStatus;

/// Why an exit is a failure, with the last non-empty line of `stderr`; `None` for exit 0.
pub(super) fn exit_failure(status: &ExitStatus, stderr: &str) -> Option<String> {
    if status.success() {
        return None;
    }
    let last_line = stderr.lines().rev().map(str::trim).find(|l| !l.is_empty());
    let said = last_line
        .map(|l| format!(" (stderr: {})", l.chars().take(200).collect::<String>()))
        .unwrap_or_default();
    Some(match (status.code(), signal_name(status)) {
        (Some(code), _) => format!("exited with code {code}{said}"),
        (None, Some(signal)) => format!("was killed by signal {signal}{said}"),
        (None, None) => format!("ended abnormally{said}"),
    })
}

/// The signal that ended the process, named with its number, such as `SIGKILL (9)`.
#[cfg(unix)]
pub(super) fn signal_name(status: &ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let signal = status.signal()?;
    let name = match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => return Some(format!("signal {signal}")),
    };
    Some(format!("{name} ({signal})"))
}

/// Windows has no signals.
#[cfg(not(unix))]
pub(super) fn signal_name(_status: &ExitStatus) -> Option<String> {
    None
}
