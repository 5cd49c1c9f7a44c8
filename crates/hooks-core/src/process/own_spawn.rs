//! How a confined hook starts on Linux: a spawn of our own, made as glibc's `posix_spawn` makes
//! it, so a confined start costs what an unconfined one does whatever the host's size.
//!
//! The hook's process must enter its Landlock domain itself, before its exec (no thread of the
//! host may ever be in a domain: see confine.rs). With std's `Command` that takes a `pre_exec`
//! closure, which makes std `fork()`, and a fork copies the host's page tables: a trivial hook
//! took 1.7 ms confined against 1.0 ms unconfined with a 50 MB host, 39 ms against 1.0 ms with
//! a 3 GiB one. Here the child is made with `clone(CLONE_VM | CLONE_VFORK)` instead: it runs on
//! a stack of its own in the host's memory, which it shares with the host until its `execve`
//! (the host's thread waits meanwhile), so nothing is copied. Such a child may only make system
//! calls: everything it needs (the C strings, the descriptors) is made before the clone, and a
//! step that fails writes its error number where the host reads it after the clone.

use std::ffi::{c_int, c_long, c_void};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::Command;
use std::sync::atomic::{AtomicI32, Ordering};

use super::exec_plan::ExecPlan;
use super::hook_child::HookChild;
use super::hook_io::{HookIo, HookOutput, HookStdin};
use super::own_child::{reap, reap_orphans, OwnChild};
use crate::sandbox::SockFilter;

/// The child's stack, its guard page aside: the child function and the few system-call
/// wrappers it calls take a few KiB (glibc gives its `posix_spawn` child 32 KiB and more).
const STACK_SIZE: usize = 64 << 10;

/// The exit code of a child whose start failed before its exec (as `posix_spawn`'s).
const START_FAILED: c_int = 127;

/// Bytes of the kernel's signal set (`_NSIG / 8` on every architecture Linux runs Rust on).
const SIGSET_SIZE: usize = 8;

/// Starts `command` (its program, argv, environment and working directory: see
/// exec_plan.rs) with `io` as its stdin, stdout and stderr, as the leader of a process group of
/// its own (what `Command::process_group(0)` does), with `keep` (a descriptor the command's
/// argv names) left open across its exec, and in the Landlock domain of `ruleset` from its
/// exec on; with a sandbox's seccomp `filter`, also under that filter and with none of the
/// host's descriptors beyond its stdio (see confine.rs's `enter_sandbox`). A failure before
/// the exec (the program missing, ENOEXEC for a file without `#!`, the domain refused) is
/// returned as the error it was, the child reaped.
pub(super) fn spawn(
    command: &Command,
    io: &HookIo,
    keep: Option<RawFd>,
    ruleset: RawFd,
    filter: Option<&[SockFilter]>,
) -> io::Result<HookChild> {
    reap_orphans();
    let plan = ExecPlan::of(command)?;
    let fds = Fds::of(io)?;
    // A ruleset at 0, 1 or 2 (a host that runs with one of those closed) would be replaced by
    // the child's stdio before it is entered: the child is given a copy above 2.
    let ruleset_copy = match ruleset {
        0..=2 => Some(above_stdio_copy(ruleset)?),
        _ => None,
    };
    let ruleset = ruleset_copy.as_ref().map_or(ruleset, AsRawFd::as_raw_fd);
    let args = ChildArgs {
        program: plan.program(),
        argv: plan.argv(),
        envp: plan.envp(),
        cwd: plan.cwd(),
        stdio: fds.child,
        keep: keep.unwrap_or(-1),
        ruleset,
        filter,
        err: AtomicI32::new(0),
    };
    // The stack is unmapped once the clone returns: the child has exec'd or exited by then.
    let pid = clone_child(&Stack::new()?, &args)?;
    let Fds {
        stdin,
        stdout,
        stderr,
        held,
        ..
    } = fds;
    // The child's copies are its own now; ours would keep its pipes from ever ending.
    drop(held);
    let err = args.err.load(Ordering::SeqCst);
    if err != 0 {
        // It is exiting with START_FAILED, if it has not already.
        let _ = reap(pid, true);
        return Err(io::Error::from_raw_os_error(err));
    }
    let mut child = OwnChild::new(pid);
    let pipes = (|| -> io::Result<_> {
        Ok((
            stdin
                .map(|fd| tokio::process::ChildStdin::from_std(fd.into()))
                .transpose()?,
            stdout
                .map(|fd| tokio::process::ChildStdout::from_std(fd.into()))
                .transpose()?,
            stderr
                .map(|fd| tokio::process::ChildStderr::from_std(fd.into()))
                .transpose()?,
        ))
    })();
    match pipes {
        Ok((stdin, stdout, stderr)) => Ok(HookChild::own(child, stdin, stdout, stderr)),
        Err(err) => {
            // A hook that cannot be talked to is not left running; its drop reaps it.
            let _ = child.start_kill();
            Err(err)
        }
    }
}

/// The descriptors of a start: what the child's 0, 1 and 2 become, and the host's ends of
/// the pipes.
struct Fds {
    /// The child's stdin, stdout and stderr, each above 2, so that putting one in place cannot
    /// overwrite another before it is put in place.
    child: [RawFd; 3],
    /// The descriptors of `child` this start opened, closed once the child has them.
    held: Vec<OwnedFd>,
    stdin: Option<OwnedFd>,
    stdout: Option<OwnedFd>,
    stderr: Option<OwnedFd>,
}

impl Fds {
    /// Pipes (close-on-exec, as std makes them) for what `io` pipes, `/dev/null` for what it
    /// discards, a copy of its input file's descriptor.
    fn of(io: &HookIo) -> io::Result<Fds> {
        let mut held = Vec::new();
        let mut keep = |fd: OwnedFd| -> io::Result<RawFd> {
            let fd = above_stdio(fd)?;
            let raw = fd.as_raw_fd();
            held.push(fd);
            Ok(raw)
        };
        let (stdin_fd, stdin) = match &io.stdin {
            HookStdin::Piped => {
                let (read, write) = pipe()?;
                (keep(read)?, Some(write))
            }
            HookStdin::File(file) => (keep(file.try_clone()?.into())?, None),
        };
        let mut output = || -> io::Result<(RawFd, Option<OwnedFd>)> {
            match io.output {
                HookOutput::Piped => {
                    let (read, write) = pipe()?;
                    Ok((keep(write)?, Some(read)))
                }
                HookOutput::Null => {
                    let null = std::fs::OpenOptions::new()
                        .read(true)
                        .write(true)
                        .open("/dev/null")?;
                    Ok((keep(null.into())?, None))
                }
            }
        };
        let (stdout_fd, stdout) = output()?;
        let (stderr_fd, stderr) = output()?;
        Ok(Fds {
            child: [stdin_fd, stdout_fd, stderr_fd],
            held,
            stdin,
            stdout,
            stderr,
        })
    }
}

/// A pipe, both ends close-on-exec: (read, write).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the array, which is valid for two ints.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned both descriptors, and nothing else owns them.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `fd`, or (when it is 0, 1 or 2: the host runs with one of those closed) a close-on-exec
/// copy of it above 2.
fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    above_stdio_copy(fd.as_raw_fd())
}

/// A close-on-exec copy of the open descriptor `fd`, numbered above 2.
fn above_stdio_copy(fd: RawFd) -> io::Result<OwnedFd> {
    // SAFETY: fcntl duplicates a descriptor the caller holds open; the result is checked.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if copy == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a new descriptor, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(copy) })
}

/// The child's stack: mapped for one start, its lowest page a guard (an overflow faults there
/// rather than writing over the host's memory), unmapped when dropped.
struct Stack {
    base: *mut c_void,
    len: usize,
}

impl Stack {
    fn new() -> io::Result<Stack> {
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
            .ok()
            .filter(|page| *page > 0)
            .unwrap_or(4096);
        let len = STACK_SIZE + page;
        // SAFETY: a new private anonymous mapping, at an address the kernel picks.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let stack = Stack { base, len };
        // SAFETY: the first page of the mapping just made, which nothing uses yet.
        if unsafe { libc::mprotect(base, page, libc::PROT_NONE) } == -1 {
            return Err(io::Error::last_os_error());
        }
        Ok(stack)
    }

    /// Where the child's stack starts: its top (stacks grow down on every architecture this
    /// crate builds for), page-aligned and so aligned as every ABI wants.
    fn top(&self) -> *mut c_void {
        self.base.wrapping_byte_add(self.len)
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, which no child runs on any more.
        unsafe { libc::munmap(self.base, self.len) };
    }
}

/// What the child is given, all made before the clone: pointers into the host's memory, which
/// the child shares and the host keeps alive until the clone returns.
#[repr(C)]
struct ChildArgs<'a> {
    program: *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    /// Null: the host's working directory.
    cwd: *const libc::c_char,
    stdio: [RawFd; 3],
    /// -1: none.
    keep: RawFd,
    ruleset: RawFd,
    /// A sandbox's seccomp filter, entered with the domain.
    filter: Option<&'a [SockFilter]>,
    /// The error number of the step that failed, written by the child before its `_exit`;
    /// 0 while it has not failed.
    err: AtomicI32,
}

/// Clones the child that runs [`child_main`] on `stack` with `args`, every signal blocked in
/// this thread meanwhile (a handler of the host must never run in the child, which shares the
/// host's memory; the child lets them through again only once it has none), and returns its
/// pid once it has exec'd or exited (CLONE_VFORK).
fn clone_child(stack: &Stack, args: &ChildArgs) -> io::Result<libc::pid_t> {
    let all: u64 = !0;
    let mut before: u64 = 0;
    // SAFETY: the raw system call, so glibc's own signals (SIGCANCEL, SIGSETXID) are blocked
    // too; both sets are valid u64s (the kernel's set is 64 bits) for the call.
    let blocked = unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_BLOCK as c_long,
            &all as *const u64,
            &mut before as *mut u64,
            SIGSET_SIZE,
        )
    };
    if blocked != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `child_main` makes only system calls and never returns (execve or _exit); it runs
    // on `stack`, mapped for it and unused by anyone else, and reads `args`, which outlives the
    // child's use of it: CLONE_VFORK returns here only once the child has exec'd or exited.
    // Without CLONE_FILES or CLONE_SIGHAND, the child changes only its own copies of the
    // descriptor table and signal dispositions.
    let pid = unsafe {
        libc::clone(
            child_main,
            stack.top(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            args as *const ChildArgs as *mut c_void,
        )
    };
    let cloned = if pid == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(pid)
    };
    // SAFETY: restores this thread's mask from the set saved above.
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK as c_long,
            &before as *const u64,
            std::ptr::null_mut::<u64>(),
            SIGSET_SIZE,
        )
    };
    cloned
}

/// The child, from the clone to its exec: a step that fails writes its error number into
/// `args.err` and exits with [`START_FAILED`].
extern "C" fn child_main(args: *mut c_void) -> c_int {
    // SAFETY: `args` is the ChildArgs the host passed to clone, alive until we exec or exit.
    let args = unsafe { &*(args as *const ChildArgs) };
    // SAFETY: in the child of a CLONE_VM clone, with every signal blocked: only system calls.
    let err = unsafe { start(args) };
    args.err
        .store(if err > 0 { err } else { libc::ECHILD }, Ordering::SeqCst);
    // SAFETY: ends the child without running anything of the host's (no atexit, no unwinding).
    unsafe { libc::_exit(START_FAILED) }
}

/// The steps before the exec, then the exec; returns only on failure, with its error number.
///
/// # Safety
/// Only in the child of [`clone_child`], with `args` as it was given: it changes the calling
/// process's signals, descriptors, group, directory and credentials, and must not allocate or
/// lock (it shares the host's memory and its locks' state).
unsafe fn start(args: &ChildArgs) -> c_int {
    // SAFETY: as this function's own contract.
    unsafe { default_signals() };
    // Its own process group: a ProcessTree stops the hook and what it started through it.
    // SAFETY: integer arguments only.
    if unsafe { libc::syscall(libc::SYS_setpgid, 0 as c_long, 0 as c_long) } != 0 {
        return errno();
    }
    for (target, fd) in [0 as c_long, 1, 2].into_iter().zip(args.stdio) {
        // dup3 makes `target` without close-on-exec; `fd` (above 2) is closed by the exec.
        // SAFETY: integer arguments only; `fd` is open (the host holds it until we exec).
        if unsafe { libc::syscall(libc::SYS_dup3, fd as c_long, target, 0 as c_long) } == -1 {
            return errno();
        }
    }
    // SAFETY: `cwd`, when not null, is a C string the host keeps alive until we exec.
    if !args.cwd.is_null() && unsafe { libc::syscall(libc::SYS_chdir, args.cwd) } != 0 {
        return errno();
    }
    // `ruleset` is above 2 (see `spawn`), so the descriptors put in place did not replace it.
    let entered = match args.filter {
        None => super::confine::enter_domain(args.ruleset),
        Some(filter) => super::confine::enter_sandbox(args.ruleset, filter),
    };
    if let Err(err) = entered {
        return err.raw_os_error().unwrap_or(libc::EPERM);
    }
    // Last, after whatever confining the process does to its descriptors.
    if args.keep >= 0 {
        let (keep, setfd) = (args.keep as c_long, libc::F_SETFD as c_long);
        // SAFETY: integer arguments only: the descriptor loses close-on-exec, in this process.
        if unsafe { libc::syscall(libc::SYS_fcntl, keep, setfd, 0 as c_long) } == -1 {
            return errno();
        }
    }
    // The exec'd program starts with no signal blocked, as std starts one; no handler of the
    // host is left to run meanwhile.
    let none: u64 = 0;
    // SAFETY: a valid set for the call, and no old set asked for.
    let unblocked = unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK as c_long,
            &none as *const u64,
            std::ptr::null_mut::<u64>(),
            SIGSET_SIZE,
        )
    };
    if unblocked != 0 {
        return errno();
    }
    // SAFETY: the program, argv and environment are C strings and NULL-terminated arrays of
    // them that the host keeps alive until we exec; on success this never returns.
    unsafe { libc::syscall(libc::SYS_execve, args.program, args.argv, args.envp) };
    errno()
}

/// `struct sigaction` as the kernel's `rt_sigaction` takes it (x86_64 and arm64: handler,
/// flags, restorer, mask; an architecture without the restorer reads fewer bytes of it).
#[repr(C)]
struct KernelSigaction {
    handler: usize,
    flags: libc::c_ulong,
    restorer: usize,
    mask: u64,
}

/// Sets every signal the host catches back to its default (a handler of the host must not
/// run in the child, which shares its memory), and SIGPIPE too, which hosts ignore (Node
/// does) and std resets for the programs it starts. Ignored signals stay ignored, as
/// `posix_spawn` leaves them.
///
/// # Safety
/// Only in the child of [`clone_child`]; raw system calls, so glibc's own signals are reset
/// too.
unsafe fn default_signals() {
    let default = KernelSigaction {
        handler: libc::SIG_DFL,
        flags: 0,
        restorer: 0,
        mask: 0,
    };
    for signal in 1..=64 as c_long {
        if signal == libc::SIGKILL as c_long || signal == libc::SIGSTOP as c_long {
            continue;
        }
        let mut now = KernelSigaction {
            handler: libc::SIG_DFL,
            flags: 0,
            restorer: 0,
            mask: 0,
        };
        // SAFETY: reads the disposition into a local of the kernel's layout.
        let read = unsafe {
            libc::syscall(
                libc::SYS_rt_sigaction,
                signal,
                std::ptr::null::<KernelSigaction>(),
                &mut now as *mut KernelSigaction,
                SIGSET_SIZE,
            )
        };
        let caught = read == 0 && now.handler != libc::SIG_DFL && now.handler != libc::SIG_IGN;
        if caught || signal == libc::SIGPIPE as c_long {
            // SAFETY: sets the default disposition from a local of the kernel's layout, in
            // this process only (no CLONE_SIGHAND).
            unsafe {
                libc::syscall(
                    libc::SYS_rt_sigaction,
                    signal,
                    &default as *const KernelSigaction,
                    std::ptr::null_mut::<KernelSigaction>(),
                    SIGSET_SIZE,
                )
            };
        }
    }
}

/// The error number of the system call that just failed (in the child: the errno of the host
/// thread it was cloned from, whose thread-local storage it shares while that thread waits).
fn errno() -> c_int {
    // SAFETY: __errno_location returns this thread's errno, valid for the thread's life.
    unsafe { *libc::__errno_location() }
}

#[cfg(test)]
mod tests;
