//! When a start the system refused is tried again: which refusals pass (no process to spare,
//! memory or quotas running short; by error code), how many tries a start gets and the pauses
//! between them. spawn.rs retries by these rules; spawn_failure.rs explains a start refused at
//! every try.

use std::io;
use std::time::Duration;

/// How many times a start is tried when the system refuses it for a reason that passes (see
/// [`is_passing_refusal`]), and the pauses between the tries. A refused start ran nothing, so
/// trying again cannot run a hook twice.
pub(super) const START_ATTEMPTS: usize = 3;
pub(super) const START_PAUSES: [Duration; START_ATTEMPTS - 1] =
    [Duration::from_millis(25), Duration::from_millis(100)];

/// Whether the system refused a start for a reason that passes, having run nothing: no
/// process to spare (Unix), or memory, quotas or system resources running short, or an
/// internal error of process creation, which Wine reports for a new process that died while
/// it was being set up (Windows, where a hook is created suspended, so nothing of it ran
/// whichever step failed). Pure: by the error code.
pub(super) fn is_passing_refusal(err: &io::Error) -> bool {
    passing_refusal_code(err.raw_os_error())
}

#[cfg(windows)]
fn passing_refusal_code(code: Option<i32>) -> bool {
    // ERROR_NOT_ENOUGH_MEMORY, ERROR_OUTOFMEMORY, ERROR_INTERNAL_ERROR,
    // ERROR_NO_SYSTEM_RESOURCES, ERROR_NONPAGED_SYSTEM_RESOURCES, ERROR_PAGED_SYSTEM_RESOURCES,
    // ERROR_WORKING_SET_QUOTA, ERROR_PAGEFILE_QUOTA, ERROR_COMMITMENT_LIMIT,
    // ERROR_NOT_ENOUGH_QUOTA.
    matches!(
        code,
        Some(8 | 14 | 1359 | 1450 | 1451 | 1452 | 1453 | 1454 | 1455 | 1816)
    )
}

#[cfg(unix)]
fn passing_refusal_code(code: Option<i32>) -> bool {
    // fork's "no process to spare" (RLIMIT_NPROC, a cgroup's pids.max, the pid space): only
    // fork and exec report it, so the hook never ran. Not ENOMEM: the runtime's own steps
    // after the process exists (pidfd, epoll) report that, and a retry would run it twice.
    matches!(code, Some(libc::EAGAIN))
}

#[cfg(not(any(unix, windows)))]
fn passing_refusal_code(_code: Option<i32>) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A start refused for want of resources (or, on Windows, by an internal error of process
    /// creation) is tried again; a refusal that will not pass (a missing file, no permission,
    /// a busy file, not a program) is not.
    #[test]
    fn only_refusals_that_pass_are_tried_again() {
        #[cfg(unix)]
        let (passing, lasting) = (
            [libc::EAGAIN],
            [
                libc::ENOMEM,
                libc::ENOENT,
                libc::EACCES,
                libc::ETXTBSY,
                libc::E2BIG,
                libc::ENOEXEC,
            ],
        );
        #[cfg(windows)]
        let (passing, lasting) = ([8, 14, 1359, 1450, 1455, 1816], [2, 3, 5, 32, 193, 216]);
        for code in passing {
            assert!(
                is_passing_refusal(&io::Error::from_raw_os_error(code)),
                "{code}"
            );
        }
        for code in lasting {
            assert!(
                !is_passing_refusal(&io::Error::from_raw_os_error(code)),
                "{code}"
            );
        }
        assert!(!is_passing_refusal(&io::Error::other("no code")));
    }
}
