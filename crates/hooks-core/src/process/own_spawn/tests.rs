//! The own spawn against real processes: a `/bin/sh` started through it reports what it was
//! given (group, directory, environment, pipes, signal state, the kept descriptor, the
//! domain), failures come back as the errors they were, the child is waited for, polled and
//! killed as tokio's, and hundreds of starts leave no descriptor and no zombie behind.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::spawn;
use crate::process::confine::scrub_ruleset;
use crate::process::hook_child::HookChild;
use crate::process::hook_io::{HookIo, HookOutput, HookStdin};

/// The scrubEnv ruleset, or `None` (with a note) where this kernel has no usable Landlock.
fn ruleset() -> Option<RawFd> {
    let fd = scrub_ruleset();
    if fd.is_none() {
        eprintln!(
            "own spawn not tested: hooks cannot be confined here ({:?})",
            crate::process::confinement()
        );
    }
    fd
}

fn piped() -> HookIo {
    HookIo {
        stdin: HookStdin::Piped,
        output: HookOutput::Piped,
    }
}

fn sh(script: &str) -> Command {
    let mut command = Command::new("/bin/sh");
    command.arg("-c").arg(script);
    command
}

/// A fresh folder of this test's own.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cline-own-spawn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// Writes `input` to the child's stdin (then closes it), reads its stdout and stderr to their
/// end and waits for it: (exit code, stdout, stderr).
async fn talk(mut child: HookChild, input: &[u8]) -> (Option<i32>, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let stdin = child.stdin.take();
    let (mut stdout, mut stderr) = (child.stdout.take(), child.stderr.take());
    let feed = async {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(input).await;
        }
    };
    let read_out = async {
        if let Some(stdout) = stdout.as_mut() {
            let _ = stdout.read_to_end(&mut out).await;
        }
    };
    let read_err = async {
        if let Some(stderr) = stderr.as_mut() {
            let _ = stderr.read_to_end(&mut err).await;
        }
    };
    tokio::join!(feed, read_out, read_err);
    let status = child.wait().await.unwrap_or_else(|e| panic!("wait: {e}"));
    (
        status.code(),
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// The value of `key=` on the line that has it.
fn field<'a>(said: &'a str, key: &str) -> &'a str {
    said.lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key}= in {said:?}"))
}

/// Its own process group; its directory; a variable set, one removed; stdin read; stdout and
/// stderr written; no signal blocked, SIGPIPE not ignored (the test harness ignores it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_gets_its_group_directory_environment_pipes_and_signals() {
    let Some(ruleset) = ruleset() else { return };
    let dir = temp_dir("cwd");
    // A variable the host has, whatever it is, to be removed.
    let removed = std::env::vars_os()
        .map(|(name, _)| name)
        .find(|name| {
            let name = name.to_string_lossy();
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && name != "PATH"
        })
        .unwrap_or_else(|| OsString::from("HOME"));
    let script = format!(
        r#"read -r stat < /proc/$$/stat; set -- $stat; echo "pid=$1"; echo "pgid=$5"
echo "cwd=$(pwd -P)"
echo "set=${{CLINE_OWN_SET-unset}}"
echo "removed=${{{removed}-unset}}"
while read -r key value; do case $key in SigBlk:|SigIgn:) echo "${{key%:}}=$value";; esac; done < /proc/self/status
read -r line; echo "stdin=$line"
echo "to stderr" >&2
exit 7"#,
        removed = removed.to_string_lossy()
    );
    let mut command = sh(&script);
    command
        .current_dir(&dir)
        .env("CLINE_OWN_SET", "yes")
        .env_remove(&removed);
    let child = spawn(&command, &piped(), None, ruleset, None).unwrap_or_else(|e| panic!("{e}"));
    let pid = child.id().unwrap_or_default();
    let (code, out, err) = talk(child, b"hello\n").await;
    assert_eq!(code, Some(7), "{out}{err}");
    assert_eq!(field(&out, "pid"), pid.to_string());
    assert_eq!(field(&out, "pgid"), pid.to_string(), "leads its own group");
    let canonical = dir.canonicalize().unwrap_or(dir.clone());
    assert_eq!(Path::new(field(&out, "cwd")), canonical);
    assert_eq!(field(&out, "set"), "yes");
    assert_eq!(field(&out, "removed"), "unset", "{removed:?}");
    assert_eq!(field(&out, "stdin"), "hello");
    assert_eq!(err, "to stderr\n");
    assert_eq!(u64::from_str_radix(field(&out, "SigBlk"), 16).ok(), Some(0));
    let ignored = u64::from_str_radix(field(&out, "SigIgn"), 16).unwrap_or(u64::MAX);
    assert_eq!(
        ignored & (1 << (libc::SIGPIPE - 1)),
        0,
        "SIGPIPE is not ignored: {ignored:x}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bare name is looked up in the child's PATH, as Command looks it up.
#[tokio::test]
async fn a_bare_name_runs_from_the_path() {
    let Some(ruleset) = ruleset() else { return };
    let mut command = Command::new("sh");
    command
        .args(["-c", "echo \"argv0=$0\""])
        .env("PATH", "/nowhere:/bin:/usr/bin");
    let child = spawn(&command, &piped(), None, ruleset, None).unwrap_or_else(|e| panic!("{e}"));
    let (code, out, _) = talk(child, b"").await;
    assert_eq!(code, Some(0));
    assert_eq!(field(&out, "argv0"), "sh", "argv[0] is the name as given");
}

/// A missing program is NotFound (ENOENT), by path or by name; a file without `#!` is ENOEXEC
/// (which spawn.rs hands to /bin/sh); a refused domain is the kernel's error. Each child that
/// failed is reaped.
#[tokio::test]
async fn a_start_that_fails_is_the_error_it_was() {
    let Some(ruleset) = ruleset() else { return };
    for program in ["/nonexistent/cline-hook", "cline-no-such-program"] {
        let failed = spawn(&Command::new(program), &piped(), None, ruleset, None);
        assert_eq!(
            failed.err().map(|e| e.kind()),
            Some(io::ErrorKind::NotFound),
            "{program}"
        );
    }

    let dir = temp_dir("noexec");
    let script = dir.join("no-shebang");
    std::fs::write(&script, "echo hi\n").unwrap_or_else(|e| panic!("{e}"));
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755));
    let failed = spawn(&Command::new(&script), &piped(), None, ruleset, None);
    assert_eq!(
        failed.err().and_then(|e| e.raw_os_error()),
        Some(libc::ENOEXEC)
    );

    // No such ruleset: the child fails to enter it and does not run unconfined.
    let failed = spawn(&sh("exit 0"), &piped(), None, -1, None);
    assert_eq!(
        failed.err().and_then(|e| e.raw_os_error()),
        Some(libc::EBADF)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The kernel's Landlock ABI version (0: none).
fn landlock_abi() -> libc::c_long {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_long = 1;
    // SAFETY: the version query takes a null attribute of size 0 and touches no memory.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    abi.max(0)
}

/// The child is in the domain: no_new_privs set, and (as Landlock scopes them) this process's
/// environment closed to it (an ordinary user; root's capabilities open it all the same) and
/// signals to this process refused (ABI 6). Started unconfined, the same script reaches both.
#[tokio::test]
async fn the_child_is_in_the_landlock_domain() {
    let Some(ruleset) = ruleset() else { return };
    let host = std::process::id();
    let script = format!(
        r#"while read -r key value; do [ "$key" = NoNewPrivs: ] && echo "nnp=$value"; done < /proc/self/status
if kill -0 {host} 2>/dev/null; then echo signal=reached; else echo signal=refused; fi
if cat /proc/{host}/environ >/dev/null 2>&1; then echo environ=read; else echo environ=refused; fi"#
    );
    let child =
        spawn(&sh(&script), &piped(), None, ruleset, None).unwrap_or_else(|e| panic!("{e}"));
    let (_, confined, _) = talk(child, b"").await;
    let plain = sh(&script).output().unwrap_or_else(|e| panic!("{e}"));
    let plain = String::from_utf8_lossy(&plain.stdout).into_owned();

    assert_eq!(field(&confined, "nnp"), "1", "{confined}");
    assert_eq!(field(&plain, "nnp"), "0", "{plain}");
    assert_eq!(field(&plain, "signal"), "reached", "{plain}");
    assert_eq!(field(&plain, "environ"), "read", "{plain}");
    if landlock_abi() >= 6 {
        assert_eq!(field(&confined, "signal"), "refused", "{confined}");
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        assert_eq!(field(&confined, "environ"), "refused", "{confined}");
    }
}

/// wait, try_wait and start_kill as tokio's: no exit while it runs, SIGKILL's status after
/// the kill, the id gone once reaped, and a kill after the reap a no-op.
#[tokio::test]
async fn wait_try_wait_and_start_kill_behave_as_tokios() {
    let Some(ruleset) = ruleset() else { return };
    let mut child = spawn(&sh("exec sleep 30"), &piped(), None, ruleset, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(child.id().is_some());
    assert!(matches!(child.try_wait(), Ok(None)));
    let waited = tokio::time::timeout(Duration::from_millis(100), child.wait()).await;
    assert!(waited.is_err(), "still running");
    assert!(child.start_kill().is_ok());
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .unwrap_or_else(|_| panic!("not ended by SIGKILL"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    assert_eq!(child.id(), None);
    assert_eq!(child.try_wait().ok().flatten(), Some(status));
    assert!(child.start_kill().is_ok());

    let mut quick =
        spawn(&sh("exit 3"), &piped(), None, ruleset, None).unwrap_or_else(|e| panic!("{e}"));
    let status = quick.wait().await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.code(), Some(3));
}

/// A descriptor the argv names (a verified hook's sealed copy) stays open across the exec;
/// another close-on-exec one does not.
#[tokio::test]
async fn the_kept_descriptor_and_only_it_crosses_the_exec() {
    let Some(ruleset) = ruleset() else { return };
    let open = || std::fs::File::open("/dev/null").unwrap_or_else(|e| panic!("{e}"));
    let (kept, other) = (open(), open());
    let (kept_fd, other_fd) = (kept.as_raw_fd(), other.as_raw_fd());
    let script = format!(
        "[ -e /proc/self/fd/{kept_fd} ] && echo kept=open || echo kept=closed
[ -e /proc/self/fd/{other_fd} ] && echo other=open || echo other=closed"
    );
    let child = spawn(&sh(&script), &piped(), Some(kept_fd), ruleset, None)
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, out, _) = talk(child, b"").await;
    assert_eq!(field(&out, "kept"), "open", "{out}");
    assert_eq!(field(&out, "other"), "closed", "{out}");
}

/// A sandboxed start (a seccomp filter given) closes at its exec every descriptor the host
/// left open without close-on-exec (a Node host inherits such), keeping only the verified
/// file's; a scrubEnv start leaves them to the host, as any spawn does.
#[tokio::test]
async fn a_sandboxed_start_closes_the_hosts_inheritable_descriptors() {
    let Some(ruleset) = ruleset() else { return };
    let Some(arch) = crate::sandbox::native() else {
        return;
    };
    let filter = crate::sandbox::seccomp_filter(&arch, true);
    let devnull = std::fs::File::open("/dev/null").unwrap_or_else(|e| panic!("{e}"));
    let kept = std::fs::File::open("/dev/null").unwrap_or_else(|e| panic!("{e}"));
    // SAFETY: dup of a descriptor this test holds open; the copy has no close-on-exec flag.
    let raw = unsafe { libc::dup(devnull.as_raw_fd()) };
    assert!(raw > 2, "dup: {}", io::Error::last_os_error());
    // SAFETY: `raw` was just made by dup and is owned by nothing else.
    let inheritable = unsafe { std::os::fd::OwnedFd::from_raw_fd(raw) };
    let (kept_fd, open_fd) = (kept.as_raw_fd(), inheritable.as_raw_fd());
    let script = format!(
        "[ -e /proc/self/fd/{kept_fd} ] && echo kept=open || echo kept=closed
[ -e /proc/self/fd/{open_fd} ] && echo inherited=open || echo inherited=closed"
    );
    let sandboxed = spawn(
        &sh(&script),
        &piped(),
        Some(kept_fd),
        ruleset,
        Some(&filter),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (code, out, err) = talk(sandboxed, b"").await;
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(field(&out, "kept"), "open", "{out}");
    assert_eq!(field(&out, "inherited"), "closed", "{out}");
    // The contrast: without the sandbox's closing, the same descriptor crosses the exec.
    let scrubbed = spawn(&sh(&script), &piped(), Some(kept_fd), ruleset, None)
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, out, _) = talk(scrubbed, b"").await;
    assert_eq!(field(&out, "inherited"), "open", "{out}");
    drop(inheritable);
}

/// A detached hook's way: stdin from a file, stdout and stderr to /dev/null.
#[tokio::test]
async fn stdin_from_a_file_and_output_to_nowhere() {
    use std::io::{Seek, Write};
    let Some(ruleset) = ruleset() else { return };
    let dir = temp_dir("file-input");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(dir.join("input"))
        .unwrap_or_else(|e| panic!("{e}"));
    let _ = file.write_all(b"from-file\n");
    let _ = file.seek(io::SeekFrom::Start(0));
    let io = HookIo {
        stdin: HookStdin::File(file),
        output: HookOutput::Null,
    };
    let script = r#"read -r line; echo "$line"; [ "$line" = from-file ] && [ ! -p /proc/self/fd/1 ] && exit 0; exit 3"#;
    let mut child = spawn(&sh(script), &io, None, ruleset, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(child.stdin.is_none() && child.stdout.is_none() && child.stderr.is_none());
    let status = child.wait().await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The variable that makes the test below do its work in a process of its own.
const ISOLATED: &str = "CLINE_OWN_SPAWN_ISOLATED";

/// 200 starts (every fourth dropped unwaited, to be reaped in the background) leave this
/// process with the descriptors it had and no child, zombie or not. Run in a test process of
/// its own (this binary again, this test only), where no other test opens descriptors or
/// starts children meanwhile.
#[test]
fn two_hundred_starts_leave_no_descriptor_and_no_zombie() {
    if std::env::var_os(ISOLATED).is_some() {
        return counted_starts();
    }
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    let name = "process::own_spawn::tests::two_hundred_starts_leave_no_descriptor_and_no_zombie";
    let run = Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(ISOLATED, "1")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.status.success(), "{said}");
    assert!(
        said.contains("counted starts:") || said.contains("own spawn not tested"),
        "{said}"
    );
}

fn counted_starts() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    runtime.block_on(async {
        let Some(ruleset) = ruleset() else { return };
        // One start first, so what the runtime opens once (its reactor's descriptors) is there
        // before the count.
        let warm =
            spawn(&sh("exit 0"), &piped(), None, ruleset, None).unwrap_or_else(|e| panic!("{e}"));
        talk(warm, b"").await;
        let before = descriptors();
        let mut pids = Vec::new();
        for i in 0..200 {
            let child = spawn(
                &sh("read -r line; echo \"$line\""),
                &piped(),
                None,
                ruleset,
                None,
            )
            .unwrap_or_else(|e| panic!("start {i}: {e}"));
            pids.push(child.id().unwrap_or_default());
            if i % 4 == 3 {
                drop(child);
                continue;
            }
            let (code, out, _) = talk(child, b"x\n").await;
            assert_eq!((code, out.as_str()), (Some(0), "x\n"), "start {i}");
        }
        // The dropped ones end once their stdin closes (it did, with the drop) and are reaped.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !children().is_empty() && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(children(), Vec::<u32>::new(), "children left (of {pids:?})");
        assert_eq!(descriptors(), before, "descriptors left open");
        println!(
            "counted starts: 200, {} descriptors before and after",
            before.len()
        );
    });
}

/// This process's open descriptors.
fn descriptors() -> Vec<String> {
    let mut fds: Vec<String> = std::fs::read_dir("/proc/self/fd")
        .map(|dir| {
            dir.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    // The listing's own descriptor is among them, the same one each time when none leaked.
    fds.sort();
    fds
}

/// The pids of this process's children, zombies included.
fn children() -> Vec<u32> {
    let me = std::process::id().to_string();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    procs
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // After the command's name in parentheses: state, then the parent's pid.
            let after = stat.rsplit_once(')')?.1;
            let ppid = after.split_whitespace().nth(1)?;
            (ppid == me).then_some(pid)
        })
        .collect()
}
