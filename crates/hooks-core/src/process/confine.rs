//! Keeping scrubbed hooks (`scrubEnv`) out of the host's environment and memory: on Linux they
//! start from one long-lived thread inside a Landlock domain, which denies every process inside
//! it ptrace-class access (`/proc/<pid>/environ`, `mem`, `ptrace(2)`) to processes outside it;
//! the rule that picks the domain's ruleset for a kernel, and the warning a run gives where
//! hooks cannot be confined.

use std::fmt;
use std::io;

use tokio::process::{Child, Command};

/// Why hooks started with `scrubEnv` are not kept from the host's environment here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unconfined {
    /// Not Linux: macOS and Windows let a process of the same user read another's memory.
    NotLinux,
    /// The kernel has no Landlock (before 5.13, built without it, or a seccomp filter hides it).
    NoLandlock,
    /// Landlock is built in but not enabled (its name is missing from the `lsm=` boot list).
    Disabled,
    /// Landlock ABI 1 (kernels 5.13 to 5.18): a domain there forbids every rename and link
    /// across folders, which hooks need.
    TooOld,
    /// The system refused the domain, in these words (16 domains nested already, a sandbox).
    Refused(String),
}

impl fmt::Display for Unconfined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unconfined::NotLinux => f.write_str("only Linux can confine hooks (with Landlock)"),
            Unconfined::NoLandlock => f.write_str("this kernel has no Landlock (Linux 5.13 or later built with it; a container's seccomp filter can also hide it)"),
            Unconfined::Disabled => f.write_str("Landlock is not enabled in this kernel (add landlock to the lsm= boot parameter)"),
            Unconfined::TooOld => f.write_str("this kernel's Landlock (ABI 1, Linux before 5.19) would forbid hooks to rename or link files across folders"),
            Unconfined::Refused(why) => write!(f, "the system refused the Landlock domain ({why})"),
        }
    }
}

/// Landlock's file-system access rights (`LANDLOCK_ACCESS_FS_*`): ABI 1 knows the first 13,
/// ABI 2 adds REFER (renames and links across folders), ABI 3 TRUNCATE, ABI 5 IOCTL_DEV.
const FS_RIGHTS_ABI_1: u64 = (1 << 13) - 1;
const FS_REFER: u64 = 1 << 13;
const FS_TRUNCATE: u64 = 1 << 14;
const FS_IOCTL_DEV: u64 = 1 << 15;

/// The file-system rights the confining domain handles (and grants on `/`, so none is denied)
/// on a kernel whose Landlock ABI query gave `abi` (its version, or the error number).
///
/// A domain must handle some access to exist; file-system rights are the ones every Landlock
/// kernel knows (network rights need ABI 4, scopes ABI 6 and deny signals or sockets). They
/// must include REFER: a domain that does not handle it forbids every rename or link across
/// folders, and ABI 1 cannot grant it, so ABI 1 is not used. Rights the kernel does not know
/// are left out (it refuses them).
pub fn fs_rights(abi: Result<i64, i32>) -> Result<u64, Unconfined> {
    const ENOSYS: i32 = 38;
    const EOPNOTSUPP: i32 = 95;
    match abi {
        Err(ENOSYS) => Err(Unconfined::NoLandlock),
        Err(EOPNOTSUPP) => Err(Unconfined::Disabled),
        Err(code) => Err(Unconfined::Refused(
            io::Error::from_raw_os_error(code).to_string(),
        )),
        Ok(abi) if abi < 2 => Err(Unconfined::TooOld),
        Ok(abi) => {
            let mut rights = FS_RIGHTS_ABI_1 | FS_REFER;
            if abi >= 3 {
                rights |= FS_TRUNCATE;
            }
            if abi >= 5 {
                rights |= FS_IOCTL_DEV;
            }
            Ok(rights)
        }
    }
}

/// What a run with `scrubEnv` says in its warnings, once, about how far its hooks are kept from
/// the host: `confined` is whether they start in the Landlock domain, `as_root` whether the host
/// (and so its hooks) runs as root. `None`: nothing to say.
pub fn scrub_warning(confined: Result<(), &Unconfined>, as_root: bool) -> Option<String> {
    match (confined, as_root) {
        (Ok(()), false) => None,
        (Ok(()), true) => Some("scrubEnv: the hooks run as root, whose capabilities still let them read this process's environment from /proc/<pid>/environ (its memory and ptrace stay closed to them); run the host as an ordinary user to keep its environment from its hooks".to_owned()),
        (Err(why), _) => Some(format!(
            "scrubEnv: the hooks' environment is scrubbed, but they are not kept from reading this process's own environment and memory (a process of the same user can, from /proc/<pid>/environ or with a debugger): {why}"
        )),
    }
}

/// Whether hooks started with `scrubEnv` are confined on this system. The first call starts
/// the thread that starts them (Linux), so its answer holds for the life of the process.
pub fn confinement() -> Result<(), Unconfined> {
    imp::confinement()
}

/// The warning a run with `scrubEnv` gives, for this system and this process's user.
pub fn scrub_warning_here() -> Option<String> {
    #[cfg(unix)]
    // SAFETY: geteuid has no preconditions and cannot fail.
    let as_root = unsafe { libc::geteuid() } == 0;
    #[cfg(not(unix))]
    let as_root = false;
    scrub_warning(confinement().as_ref().map(|_| ()), as_root)
}

/// Starts `command` confined (see the module's comment): handed to the confining thread, which
/// starts it as a child of this process in the runtime this is called from; where hooks cannot
/// be confined, here, as any hook (the run said so in its warnings).
pub(super) fn spawn_confined(command: Command) -> io::Result<Child> {
    imp::spawn_confined(command)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::sync::mpsc;
    use std::sync::OnceLock;

    use tokio::process::{Child, Command};
    use tokio::runtime::Handle;

    use super::{fs_rights, Unconfined};

    /// One start handed to the confining thread, and where its outcome goes.
    struct Request {
        command: Command,
        runtime: Handle,
        reply: mpsc::SyncSender<io::Result<Child>>,
    }

    /// `struct landlock_ruleset_attr` up to its first field, the only one used: every kernel
    /// takes this size.
    #[repr(C)]
    struct RulesetAttr {
        handled_access_fs: u64,
    }

    /// `struct landlock_path_beneath_attr`, which the kernel declares packed.
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }

    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    const LANDLOCK_RULE_PATH_BENEATH: u32 = 1;

    /// The confining thread's queue, or why there is none; set once, by the first caller.
    fn spawner() -> &'static Result<mpsc::Sender<Request>, Unconfined> {
        static SPAWNER: OnceLock<Result<mpsc::Sender<Request>, Unconfined>> = OnceLock::new();
        SPAWNER.get_or_init(start_thread)
    }

    pub(super) fn confinement() -> Result<(), Unconfined> {
        spawner().as_ref().map(|_| ()).map_err(Clone::clone)
    }

    pub(super) fn spawn_confined(mut command: Command) -> io::Result<Child> {
        let Ok(queue) = spawner() else {
            return command.spawn();
        };
        let runtime = Handle::try_current().map_err(|_| {
            io::Error::other("a scrubbed hook can only be started from inside a tokio runtime")
        })?;
        let stopped = || io::Error::other("the thread that starts scrubbed hooks has stopped");
        // A rendezvous: this thread waits for the start, as it would for its own posix_spawn.
        let (reply, outcome) = mpsc::sync_channel(1);
        queue
            .send(Request {
                command,
                runtime,
                reply,
            })
            .map_err(|_| stopped())?;
        outcome.recv().map_err(|_| stopped())?
    }

    /// Starts the confining thread and waits for it to enter its domain; the thread lives as
    /// long as the process, starting hooks one after another.
    fn start_thread() -> Result<mpsc::Sender<Request>, Unconfined> {
        let (queue, requests) = mpsc::channel::<Request>();
        let (ready, entered) = mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("cline-hooks-confined".to_owned())
            .spawn(move || {
                let domain = enter_domain();
                let ok = domain.is_ok();
                let _ = ready.send(domain);
                if ok {
                    serve(requests);
                }
            })
            .map_err(|err| Unconfined::Refused(format!("no thread to start hooks from: {err}")))?;
        entered.recv().map_err(|_| {
            Unconfined::Refused("the confining thread ended at its start".to_owned())
        })??;
        Ok(queue)
    }

    /// Starts each command handed over, in its caller's runtime (tokio registers the child with
    /// that runtime's driver, so it is awaited, reaped and stopped as any hook is). This thread
    /// does nothing else: in particular it starts no thread, which would inherit its domain.
    fn serve(requests: mpsc::Receiver<Request>) {
        for Request {
            mut command,
            runtime,
            reply,
        } in requests
        {
            let _entered = runtime.enter();
            let started =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| command.spawn()))
                    .unwrap_or_else(|_| Err(io::Error::other("starting the hook panicked")));
            let _ = reply.send(started);
        }
    }

    /// Puts the calling thread (and every process it starts from now on) into a Landlock domain
    /// that handles the file-system rights and grants them all beneath `/`: it denies no file
    /// access, and its processes lose ptrace-class access to the processes outside it. Sets
    /// no_new_privs on the thread first, as Landlock requires of an unprivileged caller.
    fn enter_domain() -> Result<(), Unconfined> {
        let refused =
            |what: &str| Unconfined::Refused(format!("{what}: {}", io::Error::last_os_error()));
        // SAFETY: the version query takes a null attribute of size 0 and touches no memory.
        let abi = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<RulesetAttr>(),
                0usize,
                LANDLOCK_CREATE_RULESET_VERSION,
            )
        };
        let abi = if abi < 0 {
            Err(io::Error::last_os_error().raw_os_error().unwrap_or(0))
        } else {
            Ok(abi)
        };
        let rights = fs_rights(abi)?;
        let attr = RulesetAttr {
            handled_access_fs: rights,
        };
        // SAFETY: `attr` is valid for its size for the duration of the call.
        let ruleset = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &attr as *const RulesetAttr,
                std::mem::size_of::<RulesetAttr>(),
                0u32,
            )
        };
        if ruleset < 0 {
            return Err(refused("creating the ruleset"));
        }
        // SAFETY: the kernel just returned this descriptor, and nothing else owns it.
        let ruleset = unsafe { OwnedFd::from_raw_fd(ruleset as i32) };
        // SAFETY: a NUL-terminated path; O_PATH opens without reading anything.
        let root = unsafe {
            libc::open(
                c"/".as_ptr(),
                libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY,
            )
        };
        if root < 0 {
            return Err(refused("opening /"));
        }
        // SAFETY: as above, a fresh descriptor owned here only.
        let root = unsafe { OwnedFd::from_raw_fd(root) };
        let beneath = PathBeneathAttr {
            allowed_access: rights,
            parent_fd: root.as_raw_fd(),
        };
        // SAFETY: `beneath` is valid for the call; both descriptors are open.
        let added = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                ruleset.as_raw_fd(),
                LANDLOCK_RULE_PATH_BENEATH,
                &beneath as *const PathBeneathAttr,
                0u32,
            )
        };
        if added < 0 {
            return Err(refused("granting / its rights"));
        }
        // SAFETY: prctl with integer arguments only; it applies to this thread.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(refused("setting no_new_privs"));
        }
        // SAFETY: an open ruleset descriptor and no flags; it applies to this thread only.
        if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) } < 0
        {
            return Err(refused("entering the domain"));
        }
        Ok(())
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::io;

    use tokio::process::{Child, Command};

    use super::Unconfined;

    pub(super) fn confinement() -> Result<(), Unconfined> {
        Err(Unconfined::NotLinux)
    }

    pub(super) fn spawn_confined(mut command: Command) -> io::Result<Child> {
        command.spawn()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_from_abi_2_gets_the_rights_it_knows_refer_included() {
        let abi_2 = fs_rights(Ok(2)).unwrap_or_default();
        assert_eq!(abi_2, 0x3fff);
        assert_ne!(abi_2 & FS_REFER, 0);
        assert_eq!(fs_rights(Ok(3)), Ok(0x7fff));
        assert_eq!(fs_rights(Ok(4)), Ok(0x7fff));
        assert_eq!(fs_rights(Ok(5)), Ok(0xffff));
        // Later ABIs: no right this code does not know is asked for.
        assert_eq!(fs_rights(Ok(7)), Ok(0xffff));
        assert_eq!(fs_rights(Ok(99)), Ok(0xffff));
    }

    #[test]
    fn no_landlock_or_abi_1_is_said_in_words() {
        assert_eq!(fs_rights(Ok(1)), Err(Unconfined::TooOld));
        assert_eq!(fs_rights(Ok(0)), Err(Unconfined::TooOld));
        assert_eq!(fs_rights(Err(38)), Err(Unconfined::NoLandlock));
        assert_eq!(fs_rights(Err(95)), Err(Unconfined::Disabled));
        match fs_rights(Err(1)) {
            Err(Unconfined::Refused(why)) => assert!(!why.is_empty()),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_confined_run_by_a_user_warns_of_nothing() {
        assert_eq!(scrub_warning(Ok(()), false), None);
    }

    #[test]
    fn root_and_every_unconfined_system_are_warned_of() {
        let root = scrub_warning(Ok(()), true).unwrap_or_default();
        assert!(root.contains("run as root"), "{root}");
        for why in [
            Unconfined::NotLinux,
            Unconfined::NoLandlock,
            Unconfined::Disabled,
            Unconfined::TooOld,
            Unconfined::Refused("Argument list too long (os error 7)".to_owned()),
        ] {
            for as_root in [false, true] {
                let said = scrub_warning(Err(&why), as_root).unwrap_or_default();
                assert!(said.starts_with("scrubEnv: "), "{said}");
                assert!(said.ends_with(&why.to_string()), "{said}");
            }
        }
    }

    /// This system's answer is one of the two, and the same every time.
    #[test]
    fn confinement_is_decided_once() {
        assert_eq!(confinement(), confinement());
        if !cfg!(target_os = "linux") {
            assert_eq!(confinement(), Err(Unconfined::NotLinux));
        }
    }
}
