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

/// The name and number of a signal as an execution's `signal` holds it (`SIGKILL (9)`), for callers
/// that report them apart; an unnamed one (`signal 34`) keeps its text and its number.
pub fn signal_parts(text: &str) -> (&str, Option<i32>) {
    if let Some((name, rest)) = text.split_once(" (") {
        if let Some(number) = rest.strip_suffix(')').and_then(|n| n.parse().ok()) {
            return (name, Some(number));
        }
    }
    let number = text.strip_prefix("signal ").and_then(|n| n.parse().ok());
    (text, number)
}

/// Windows has no signals.
#[cfg(not(unix))]
pub(super) fn signal_name(_status: &ExitStatus) -> Option<String> {
    None
}

#[cfg(test)]
mod signal_parts_tests {
    use super::signal_parts;

    #[test]
    fn name_and_number_apart() {
        assert_eq!(signal_parts("SIGKILL (9)"), ("SIGKILL", Some(9)));
        assert_eq!(signal_parts("SIGTERM (15)"), ("SIGTERM", Some(15)));
        assert_eq!(signal_parts("signal 34"), ("signal 34", Some(34)));
        assert_eq!(signal_parts("odd"), ("odd", None));
    }
}
