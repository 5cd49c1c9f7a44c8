//! A hook's process tree: everything the hook started, stoppable as one.
//!
//! macOS/Linux: the hook leads its own process group (set through `posix_spawn` attributes,
//! so no fork of the host is needed), and signals go to the whole group; on Linux a stop also
//! reaches the processes that moved to a group of their own, by the start's marker (see
//! [`sweep`](crate::process::sweep)). Windows: the hook is started without a console window
//! and assigned to a job object that kills the tree.

use tokio::process::Command;

#[cfg(unix)]
use crate::process::{sweep_now, Marked, StartMarker, Stop};

/// Prepares `command` so the started process heads a tree this module can stop.
pub(crate) fn configure(command: &mut Command) {
    #[cfg(unix)]
    {
        command.process_group(0);
    }
    #[cfg(windows)]
    {
        const CREATE_NO_WINDOW: u32 = 0x0800_0000;
        const CREATE_SUSPENDED: u32 = 0x0000_0004;
        command.creation_flags(CREATE_NO_WINDOW | CREATE_SUSPENDED);
    }
}

/// A started hook and everything it started: its process group.
#[cfg(unix)]
#[derive(Debug, Clone)]
pub(crate) struct ProcessTree {
    pgid: libc::pid_t,
    marker: StartMarker,
}

#[cfg(unix)]
impl ProcessTree {
    /// The tree of a process started through [`configure`] with `marker` in its environment:
    /// its process group, and (Linux) whatever carries the marker outside it.
    pub fn adopt(
        child: &crate::process::hook_child::HookChild,
        marker: StartMarker,
    ) -> std::io::Result<ProcessTree> {
        let pid = child.id().ok_or_else(|| {
            std::io::Error::other("the hook process exited before it could be tracked")
        })?;
        let pgid = libc::pid_t::try_from(pid).map_err(std::io::Error::other)?;
        Ok(ProcessTree { pgid, marker })
    }

    /// Signals the process group only (SIGTERM or SIGKILL): the processes that left it are
    /// reached by a [`sweep`](crate::process::sweep) of [`ProcessTree::marked`].
    pub fn signal_group(&self, stop: Stop) {
        self.signal(match stop {
            Stop::Term => libc::SIGTERM,
            Stop::Kill => libc::SIGKILL,
        });
    }

    /// Stops the whole tree now (SIGKILL), the processes that left its group included; the
    /// sweep for those runs on this thread, bounded.
    pub fn kill_now(&self) {
        self.signal(libc::SIGKILL);
        sweep_now(vec![self.marked()], Stop::Kill);
    }

    /// The tree as a sweep finds it: its marker and its group.
    pub fn marked(&self) -> Marked {
        self.marker.tree(self.pgid)
    }

    /// Lets the tree outlive this handle (a no-op here: a process group needs no handle).
    pub fn release(&self) {}

    /// The process group, for the watchdog.
    pub fn group(&self) -> i32 {
        self.pgid
    }

    fn signal(&self, signal: libc::c_int) {
        // Safety: kill(2) with a negative pid signals a process group; it touches no memory.
        // ESRCH (the group is already gone) is the expected outcome once a tree has ended.
        unsafe {
            libc::kill(-self.pgid, signal);
        }
    }
}

#[cfg(windows)]
pub use windows_tree::ProcessTree;

#[cfg(windows)]
mod windows_tree {
    use std::sync::Arc;

    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
        SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
        JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    };
    use windows_sys::Win32::System::Threading::{OpenThread, ResumeThread, THREAD_SUSPEND_RESUME};

    use crate::process::{Marked, StartMarker, Stop};

    struct Job(HANDLE);

    // Safety: a job handle may be used from any thread.
    unsafe impl Send for Job {}
    unsafe impl Sync for Job {}

    impl Drop for Job {
        fn drop(&mut self) {
            // Closing the last handle does NOT kill the tree: KILL_ON_JOB_CLOSE is cleared once
            // the hook's own process has exited, so background work survives, as on Unix.
            unsafe {
                CloseHandle(self.0);
            }
        }
    }

    /// A started hook and everything it started: its job object.
    #[derive(Clone)]
    pub struct ProcessTree {
        job: Arc<Job>,
        marker: StartMarker,
    }

    impl ProcessTree {
        /// Puts the suspended child into a new job object, then lets it run, so no grandchild
        /// can be started outside the job.
        pub fn adopt(
            child: &crate::process::hook_child::HookChild,
            marker: StartMarker,
        ) -> std::io::Result<ProcessTree> {
            let process = child
                .raw_handle()
                .ok_or_else(|| std::io::Error::other("the hook process is gone"))?
                as HANDLE;
            let pid = child
                .id()
                .ok_or_else(|| std::io::Error::other("the hook process is gone"))?;
            unsafe {
                let job = CreateJobObjectW(std::ptr::null(), std::ptr::null());
                if job.is_null() {
                    return Err(failed_call("CreateJobObjectW"));
                }
                let job = Job(job);
                let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
                info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
                // Without kill-on-close the tree would outlive a host that dies: refuse to run.
                if SetInformationJobObject(
                    job.0,
                    JobObjectExtendedLimitInformation,
                    (&info as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
                    std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
                ) == 0
                {
                    return Err(failed_call("SetInformationJobObject (kill on close)"));
                }
                // Seen once under Wine when the host itself runs inside a job (as the VS Code
                // extension host does): a transient failure that a second attempt gets past.
                if AssignProcessToJobObject(job.0, process) == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                    if AssignProcessToJobObject(job.0, process) == 0 {
                        return Err(failed_call("AssignProcessToJobObject"));
                    }
                }
                resume_main_thread(pid)?;
                Ok(ProcessTree {
                    job: Arc::new(job),
                    marker,
                })
            }
        }

        /// Terminates the job: Windows has no polite group-wide stop for console-less
        /// processes, so both stops stop at once.
        pub fn signal_group(&self, _stop: Stop) {
            self.kill_now();
        }

        /// Stops the whole tree now: nothing leaves a job, so there is nothing to sweep.
        pub fn kill_now(&self) {
            unsafe {
                TerminateJobObject(self.job.0, 1);
            }
        }

        /// The tree for a sweep, which does nothing here.
        pub fn marked(&self) -> Marked {
            self.marker.tree(0)
        }

        /// The watchdog is a Unix affair; job objects need no group id.
        pub fn group(&self) -> i32 {
            0
        }

        /// Lets background processes outlive the job handle once the hook itself has exited.
        pub fn release(&self) {
            unsafe {
                let info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
                SetInformationJobObject(
                    self.job.0,
                    JobObjectExtendedLimitInformation,
                    (&info as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
                    std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
                );
            }
        }
    }

    /// The last OS error, saying which call failed (for the hook author's failure sentence).
    fn failed_call(call: &str) -> std::io::Error {
        let err = std::io::Error::last_os_error();
        std::io::Error::new(err.kind(), format!("{call} failed: {err}"))
    }

    /// Resumes the first thread of `pid` (a process created suspended has exactly one).
    unsafe fn resume_main_thread(pid: u32) -> std::io::Result<()> {
        use windows_sys::Win32::System::Diagnostics::ToolHelp::{
            CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
        };
        let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
        if snapshot.is_null() || snapshot == windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE {
            return Err(failed_call("CreateToolhelp32Snapshot"));
        }
        let mut entry: THREADENTRY32 = std::mem::zeroed();
        entry.dwSize = std::mem::size_of::<THREADENTRY32>() as u32;
        let mut ok = Thread32First(snapshot, &mut entry);
        let mut resumed = false;
        while ok != 0 {
            if entry.th32OwnerProcessID == pid {
                let thread = OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID);
                if !thread.is_null() {
                    ResumeThread(thread);
                    CloseHandle(thread);
                    resumed = true;
                }
            }
            ok = Thread32Next(snapshot, &mut entry);
        }
        CloseHandle(snapshot);
        if resumed {
            Ok(())
        } else {
            Err(std::io::Error::other(
                "could not resume the hook's main thread",
            ))
        }
    }
}
