//! Detached hooks, for observation only: started and left running, their input given as a
//! file, their output going nowhere, followed in the background until they end.

use std::io;

use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

use super::admission::{admit, not_started, wait_to_retry};
use super::deadline::{exit_of, reap_eventually, stop_tree};
use super::execution::{Execution, FailureKind, RunContext, Status};
use super::hook_child::HookChild;
use super::hook_io::{HookIo, HookOutput, HookStdin};
use super::spawn::{spawn, HookEnv, NotStarted};
use super::verified_start::verify;
use crate::discovery::DiscoveredHook;
use crate::process::{Registration, StartMarker};

/// Starts a hook and returns as soon as it runs, for observation-only hooks. It waits for a
/// slot like any hook and holds it until its own process ends; its input is a file (not a
/// pipe), so all of it reaches the hook even when the host exits at once; its output goes
/// nowhere. It is reaped when it ends, and `terminateAll()` stops it; the host's exit does not.
pub async fn start_detached(
    hook: &DiscoveredHook,
    ctx: &RunContext,
    deadline: Instant,
) -> Execution {
    let started = Instant::now();
    let (permit, mut registration) = match admit(hook, ctx, deadline, true).await {
        Ok(admitted) => admitted,
        Err(refused) => return not_started(hook, refused, started),
    };
    let mut exec = Execution::of(hook, Status::Failed);
    let cwd = ctx.cwd_of(hook);
    let input = match input_file(&ctx.stdin_of(hook, &cwd)) {
        Ok(file) => file,
        Err(err) => {
            exec.failure = Some(format!(
                "could not start: its input could not be written to a temporary file in {} ({err}); check that the temp folder is writable",
                std::env::temp_dir().display()
            ));
            exec.failure_kind = Some(FailureKind::StartFailure);
            exec.duration = started.elapsed();
            return exec;
        }
    };
    let verified = match verify(hook).await {
        Ok(verified) => verified,
        Err(why) => {
            exec.failure = Some(why);
            exec.duration = started.elapsed();
            return exec;
        }
    };
    let io = HookIo {
        stdin: HookStdin::File(input),
        output: HookOutput::Null,
    };
    let stop = registration.stop.clone();
    let wait = |pause, refusal| {
        wait_to_retry(ctx, &stop, (deadline, ctx.timeout_of(hook)), pause, refusal)
    };
    let marker = StartMarker::next();
    let env = HookEnv {
        add: &ctx.env_of(hook, &cwd),
        remove: &ctx.env_remove,
        confine: ctx.confine,
        run: &ctx.run,
    };
    let spawned = spawn(
        hook,
        &cwd,
        env,
        marker,
        &mut exec.warnings,
        io,
        verified.as_ref(),
        wait,
    )
    .await;
    // Started: the child has its own copy of the file; the window it leaves is documented.
    drop(verified);
    match spawned {
        Ok((child, tree)) => {
            // On Windows the job kills its tree when its last handle closes, as the host's
            // exit does; a detached hook is to outlive the host, so that is cleared now.
            tree.release();
            registration.attach(tree, None);
            exec.status = Status::Started;
            exec.started = true;
            tokio::spawn(follow_detached(child, registration, permit));
        }
        Err(NotStarted::Stopped(status, why)) => {
            exec.status = status;
            exec.failure = Some(why);
            exec.failure_kind = FailureKind::of_unstarted(status);
        }
        Err(failed) => {
            exec.failure = Some(failed.explained(hook, &cwd));
            exec.failure_kind = Some(FailureKind::StartFailure);
        }
    }
    exec.duration = started.elapsed();
    exec
}

/// Stays with a detached hook until its own process ends (reaping it, so no zombie is left)
/// or `terminateAll()` stops its tree, then frees its slot.
async fn follow_detached(
    mut child: HookChild,
    mut registration: Registration,
    permit: OwnedSemaphorePermit,
) {
    let terminated = tokio::select! {
        _ = exit_of(&mut child) => false,
        _ = registration.stop.cancelled() => true,
    };
    if terminated {
        // Nothing to read meanwhile: its output goes nowhere.
        if stop_tree(&mut registration, &mut child, async {})
            .await
            .stuck
        {
            tokio::spawn(reap_eventually(child));
        }
    }
    registration.disarm();
    drop(permit);
}

/// The input as an unnamed temporary file, positioned at its start, for a detached hook's
/// stdin: a pipe would need this process alive to be written.
fn input_file(input: &[u8]) -> io::Result<std::fs::File> {
    use std::io::{Seek, SeekFrom, Write};
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir();
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".cline-hook-input-{}-{n}", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        #[cfg(windows)]
        {
            use std::os::windows::fs::OpenOptionsExt;
            const FILE_FLAG_DELETE_ON_CLOSE: u32 = 0x0400_0000;
            const SHARE_ALL: u32 = 0x1 | 0x2 | 0x4;
            options
                .custom_flags(FILE_FLAG_DELETE_ON_CLOSE)
                .share_mode(SHARE_ALL);
        }
        let mut file = match options.open(&path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        };
        // Unix: the open file outlives its name; Windows deletes it when the last handle closes.
        #[cfg(unix)]
        let _ = std::fs::remove_file(&path);
        file.write_all(input)?;
        file.seek(SeekFrom::Start(0))?;
        return Ok(file);
    }
}
