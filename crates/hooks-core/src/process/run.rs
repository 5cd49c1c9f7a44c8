//! One hook run to its end, as a sequence of named stages (admit, spawn, drive, read the
//! verdict, conclude), making its record ([`Execution`]).

use std::path::Path;
use std::sync::atomic::AtomicU64;

use tokio::time::Instant;

use super::admission::{admit, not_started, terminated_before_start, wait_to_retry};
use super::claude_handler::{claude_verdict, ClaudeEnding};
use super::deadline::{could_not_stop, drive, stop_sequence, End, Ending};
use super::execution::{Execution, FailureKind, RunContext, Status};
use super::exit_status::{exit_failure, signal_name};
use super::pipes::{exchange, PipeGrace, StdoutScan, Tail, STDERR_KEEP};
use super::spawn::{spawn_watched, HookEnv, NotStarted};
use super::spawn_failure::start_obstacle;
use super::verified_start::verify;
use crate::discovery::DiscoveredHook;
use crate::observe::HookWatch;
use crate::verdict::{self, Reader, Verdict};

/// Runs one hook to its end. `deadline` covers waiting for a slot and running; the run never
/// outlives it by more than [`KILL_GRACE`](crate::process::KILL_GRACE) plus
/// [`REAP_LIMIT`](crate::process::REAP_LIMIT) plus [`PIPE_GRACE`](crate::process::PIPE_GRACE)
/// plus [`PIPE_FLOW_MAX`](crate::process::PIPE_FLOW_MAX) (the `cli` profile reads on for
/// [`SDK_EXIT_GRACE`](crate::process::SDK_EXIT_GRACE), less than those two).
pub async fn run_hook(hook: &DiscoveredHook, ctx: &RunContext, deadline: Instant) -> Execution {
    run_hook_watched(hook, ctx, deadline, None).await
}

/// [`run_hook`], sending its start and output lines to `watch` (an observed run).
pub(crate) async fn run_hook_watched(
    hook: &DiscoveredHook,
    ctx: &RunContext,
    deadline: Instant,
    watch: Option<&std::sync::Arc<HookWatch>>,
) -> Execution {
    let started = Instant::now();
    let (permit, mut registration) = match admit(hook, ctx, deadline, false).await {
        Ok(admitted) => admitted,
        Err(refused) => return not_started(hook, refused, started),
    };
    let mut exec = Execution::of(hook, Status::Failed);
    exec.timeout = ctx.timeout_of(hook);
    let cwd = ctx.cwd_of(hook);
    // A `terminateAll()` that came since the admission has found the registration.
    if registration.stop.is_cancelled() {
        return not_started(hook, terminated_before_start(), started);
    }
    // An approved hook is checked against its approval on the bytes about to start; the
    // open file is held until the hook ends (on Windows, that keeps it from being changed).
    let verified = match verify(hook).await {
        Ok(verified) => verified,
        Err(why) => {
            exec.failure = Some(why);
            exec.duration = started.elapsed();
            return exec;
        }
    };
    let stop = registration.stop.clone();
    let wait = |pause, refusal| {
        wait_to_retry(ctx, &stop, (deadline, ctx.timeout_of(hook)), pause, refusal)
    };
    let env = ctx.env_of(hook, &cwd);
    let input = ctx.stdin_of(hook, &cwd);
    let spawned = spawn_watched(
        hook,
        &cwd,
        HookEnv {
            add: &env,
            remove: &ctx.env_remove,
            confine: ctx.confine,
            run: &ctx.run,
        },
        &mut registration,
        &mut exec.warnings,
        verified.as_ref(),
        wait,
    )
    .await;
    let mut child = match spawned {
        Ok(child) => {
            exec.started = true;
            watch.inspect(|w| w.start());
            child
        }
        Err(NotStarted::Stopped(status, why)) => {
            exec.status = status;
            exec.failure = Some(why);
            exec.failure_kind = FailureKind::of_unstarted(status);
            exec.duration = started.elapsed();
            return exec;
        }
        Err(failed) => {
            exec.failure = Some(failed.explained(hook, &cwd));
            exec.failure_kind = Some(FailureKind::StartFailure);
            exec.duration = started.elapsed();
            return exec;
        }
    };

    let reader = match hook.claude {
        Some(_) => Reader::new(ctx.profile).spotting_blocks(),
        None => Reader::new(ctx.profile),
    };
    let mut out = StdoutScan::new(reader);
    let mut err = Tail::new(STDERR_KEEP);
    let progress = AtomicU64::new(0);
    let mut lines = watch.map(|w| (w.lines(true), w.lines(false)));
    let io = exchange(
        &mut child,
        &input,
        &mut out,
        &mut err,
        &progress,
        lines.as_mut(),
    );
    let ending = drive(
        child,
        io,
        &progress,
        &mut registration,
        &ctx.abort,
        deadline,
        PipeGrace::of(ctx.profile),
    )
    .await;
    drop(registration);
    if let Some((out_lines, err_lines)) = &mut lines {
        out_lines.finish();
        err_lines.finish();
    }

    exec.stderr = err.text();
    // A Claude handler's answer depends on how it ended: its exit code 2 blocks.
    let claude = hook.claude.clone().map(|claude| ClaudeEnding {
        claude,
        hook_name: hook.hook_name.clone(),
        exit_code: match &ending.end {
            End::Exited(Ok(status)) => status.code(),
            _ => None,
        },
        stderr: exec.stderr.clone(),
        input: ctx.claude_input.clone(),
        project_dir: cwd.clone(),
    });
    let (verdict, stdout_bytes, stdout) = read_verdict_as(out, err.bytes().to_vec(), claude).await;
    (exec.output_bytes, exec.stdout) = ((stdout_bytes, err.total()), stdout);
    exec.duration = started.elapsed();
    conclude(&mut exec, ending, verdict, hook, &cwd);
    tracing::debug!(
        hook = %hook.path.display(),
        status = exec.status.as_str(),
        exit_code = exec.exit_code,
        signal = exec.signal.as_deref(),
        duration_ms = exec.duration.as_millis() as u64,
        failure = exec.failure.as_deref(),
        "hook ended"
    );
    drop(permit);
    drop(verified);
    exec
}

/// Reads the verdict from all of stdout, and warns of one printed on stderr by mistake; also
/// how many bytes stdout held and its last [`STDERR_KEEP`] bytes of text
/// ([`Execution::stdout`], cut from what the reader kept, so stdout has one reader). The scan
/// and the verdict are linear but may take milliseconds: they run off the async workers, so
/// other runs' timers and pipes are not held up, and count in the duration.
pub(super) async fn read_verdict(out: StdoutScan, stderr: Vec<u8>) -> (Verdict, u64, String) {
    read_verdict_as(out, stderr, None).await
}

/// [`read_verdict`]; for a Claude settings handler, by Claude's rules (see [`ClaudeEnding`]).
async fn read_verdict_as(
    mut out: StdoutScan,
    stderr: Vec<u8>,
    claude: Option<ClaudeEnding>,
) -> (Verdict, u64, String) {
    out.settle().await;
    // Refused a thread (no process to spare), it is read here: a verdict is never lost.
    crate::blocking::run_or_inline(move || {
        let kept = out.into_reader()?.finish();
        let (bytes, tail) = (kept.raw_len, last_chars(&kept.tail, STDERR_KEEP).to_owned());
        if let Some(claude) = claude {
            let (mut verdict, exit_is_answer) = claude_verdict(&claude, &kept);
            verdict.exit_is_answer = exit_is_answer;
            return Ok((verdict, bytes, tail));
        }
        let mut verdict = verdict::read(kept);
        tracing::debug!(
            stdout_bytes = bytes,
            cancel = verdict.cancel,
            verdict = verdict.object.is_some(),
            problem = verdict.problem.as_deref(),
            "hook output read"
        );
        if let Some(warning) = verdict::stderr_verdict(&verdict, &stderr) {
            verdict.warnings.push(warning);
        }
        Ok((verdict, bytes, tail))
    })
    .await
    .unwrap_or_else(Err)
    .unwrap_or_else(|why| {
        let verdict = Verdict {
            problem: Some(format!(
                "its output could not be read because of an internal error in @cline/hooks (please report it): {why}"
            )),
            ..Verdict::default()
        };
        (verdict, 0, String::new())
    })
}

// The reader's tail window holds at least what `Execution::stdout` keeps.
const _: () = assert!(verdict::TAIL_KEEP >= STDERR_KEEP);

/// The last `keep` bytes of `text` at most, starting on a character boundary.
fn last_chars(text: &str, keep: usize) -> &str {
    let mut start = text.len().saturating_sub(keep);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// The last stage: the record's verdict fields, status and failure, from how the hook ended
/// and what it printed; a persistent hook's event ends here too, read the same way.
pub(super) fn conclude(
    exec: &mut Execution,
    ending: Ending,
    verdict: Verdict,
    hook: &DiscoveredHook,
    cwd: &Path,
) {
    let timeout = exec.timeout;
    let Ending {
        end,
        pipes_closed,
        grace,
        stuck,
        stopped_with,
    } = ending;
    // A stopped process says which signal ended it (SIGTERM, or SIGKILL after the grace).
    if let Some(status) = &stopped_with {
        exec.exit_code = status.code();
        exec.signal = signal_name(status);
    }
    if !pipes_closed && matches!(end, End::Exited(_)) {
        exec.warnings.push(format!(
            "a process it left running still holds its stdout or stderr; output after the hook exited was not read (waited {} ms)",
            grace.waited().as_millis()
        ));
    }
    let exit_is_answer = verdict.exit_is_answer;
    exec.warnings.extend(verdict.warnings.iter().cloned());
    exec.cancel = verdict.cancel;
    exec.context_modification = verdict.context_modification;
    exec.error_message = verdict.error_message;
    exec.review = verdict.review;
    exec.override_input = verdict.override_input;
    exec.output = verdict.object;

    let could_not_stop = could_not_stop(stuck);
    match end {
        End::Answered => match verdict.problem {
            None => exec.status = Status::Completed,
            Some(problem) => {
                exec.failure = Some(problem);
                exec.failure_kind = Some(FailureKind::InvalidOutput);
                exec.status = Status::Failed;
            }
        },
        End::Exited(Ok(status)) => {
            exec.exit_code = status.code();
            exec.signal = signal_name(&status);
            exec.failure = exit_failure(&status, &exec.stderr).filter(|_| !exit_is_answer);
            exec.failure_kind = exec.failure.as_ref().map(|_| FailureKind::Crash);
            // Where start errors surface as an exit code, say why: 127 (an emulator, a
            // wrapper), or any failure of an interpreter that was to read the hook's file
            // (cmd.exe says 9009 for a `.cmd` deleted after discovery, PowerShell another).
            let through_interpreter = hook
                .command
                .first()
                .is_some_and(|p| Path::new(p) != hook.path);
            if let (Some(claude), Some(127)) = (&hook.claude, status.code()) {
                exec.failure = Some(super::claude_handler::exit_127(claude, &exec.stderr));
                exec.failure_kind = Some(FailureKind::StartFailure);
            } else if hook.claude.is_some() {
                // Its shell is the interpreter, and it has no file that could have gone.
            } else if status.code() == Some(127) || (through_interpreter && !status.success()) {
                if let Some(why) = start_obstacle(hook, cwd) {
                    exec.failure = Some(why);
                    exec.failure_kind = Some(FailureKind::StartFailure);
                }
            }
            match (&exec.failure, verdict.problem) {
                (None, None) => exec.status = Status::Completed,
                (None, Some(problem)) => {
                    exec.failure = Some(problem);
                    exec.failure_kind = Some(FailureKind::InvalidOutput);
                }
                (Some(_), Some(problem)) => exec.warnings.push(format!("it also {problem}")),
                (Some(_), None) => {}
            }
            if exec.failure.is_some() {
                exec.status = Status::Failed;
            }
        }
        End::Closed(pipe) => {
            exec.status = Status::Failed;
            exec.failure_kind = Some(FailureKind::Crash);
            exec.failure = Some(format!("closed its {pipe} and lives on, so it can never answer; its process was stopped, and the next event starts a fresh one{could_not_stop}"));
            if let Some(problem) = verdict.problem {
                exec.warnings.push(format!("it also {problem}"));
            }
        }
        End::Exited(Err(wait_err)) => {
            exec.failure = Some(format!("could not be waited for: {wait_err}"));
            exec.failure_kind = Some(FailureKind::Crash);
        }
        End::TimedOut => {
            exec.status = Status::TimedOut;
            exec.failure_kind = Some(FailureKind::Timeout);
            exec.failure = Some(format!(
                "did not finish within {} ms, so its process tree was stopped ({}){could_not_stop}",
                timeout.as_millis(),
                stop_sequence(),
            ));
        }
        End::Aborted => {
            exec.status = Status::Aborted;
            exec.failure = Some(format!(
                "was stopped because the run was aborted{could_not_stop}"
            ));
        }
        End::Terminated => {
            exec.status = Status::Aborted;
            exec.failure = Some(format!(
                "was stopped by terminateAll() (or its factory's dispose()){could_not_stop}"
            ));
        }
    }
}
