//! Persistent hooks (`mode=persistent`): one live process answers event after event, a line
//! each. Real bash and python3 hook scripts in temporary folders, run through a [`Runner`];
//! processes are found and waited for in `/proc`. Every test takes its turn (one of them
//! calls `terminate_all`, which stops every hook of the process) and stops what it started.

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use cline_hooks_core::discovery::{DiscoveredHook, HookMode, HookSettings, Profile, Source};
use cline_hooks_core::error::HookError;
use cline_hooks_core::event::{RunReport, RunSettings, Runner};
use cline_hooks_core::launch::LaunchKind;
use cline_hooks_core::process::{
    crash_disabled, note_per_event_runs, terminate_all, FailureKind, Status,
};
use serde_json::json;
use tokio::sync::{Mutex, Semaphore};
use tokio::time::Instant;

/// `terminate_all` stops every hook of the process: the tests take turns.
static TURN: Mutex<()> = Mutex::const_new(());

/// How long a process may take to appear or to be gone: generous, for a loaded machine.
const BOUND: Duration = Duration::from_secs(10);

/// A temporary folder, removed on drop, that also stops every hook still running then (a
/// failed assertion leaves nothing behind).
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("cline-persistent-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        cline_hooks_core::process::kill_now(None);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes an executable hook file `PreToolUse` holding `script` in `dir`.
fn write_hook(dir: &Path, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("PreToolUse");
    // Written to a new file and renamed over the old one: a running bash reads its script
    // as it goes, and must not see it change under it.
    let fresh = dir.join(".PreToolUse.new");
    std::fs::write(&fresh, script).unwrap();
    std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::rename(&fresh, &path).unwrap();
    path
}

/// A persistent workspace hook at `path`, running in `dir`.
fn persistent(path: &Path, dir: &Path) -> DiscoveredHook {
    DiscoveredHook {
        hook_name: "PreToolUse".into(),
        path: path.to_path_buf(),
        source: Source::Workspace,
        workspace_root: Some(dir.to_path_buf()),
        kind: LaunchKind::Direct,
        disabled: None,
        command: vec![path.as_os_str().to_owned()],
        launch_error: None,
        shebang_program: None,
        sha256: None,
        trust: Default::default(),
        real_path: None,
        settings: HookSettings {
            mode: HookMode::Persistent,
            ..Default::default()
        },
        warnings: Vec::new(),
        claude: None,
        sandbox: None,
    }
}

fn runner(hook: DiscoveredHook, dir: &Path) -> Runner {
    runner_of(hook, dir)
}

/// A runner of `hook`, persistent or not.
fn runner_of(hook: DiscoveredHook, dir: &Path) -> Runner {
    Runner::new(
        "PreToolUse".into(),
        vec![hook],
        vec![dir.to_path_buf()],
        Arc::new(Semaphore::new(16)),
        Profile::Extension,
    )
}

/// The event numbered `n`.
fn event(n: u64) -> serde_json::Value {
    json!({
        "taskId": "t1",
        "n": n,
        "preToolUse": { "tool": "write_to_file", "parameters": { "path": "a.txt" } }
    })
}

fn settings(timeout: Duration) -> RunSettings {
    RunSettings {
        timeout,
        ..RunSettings::default()
    }
}

async fn run(runner: &Runner, n: u64, timeout: Duration) -> RunReport {
    runner.run(event(n), settings(timeout)).await.unwrap()
}

/// Answers each event with `<pid>:<n>:<CLINE_HOOK_MODE>:<count>`, its own count of events.
const ANSWER: &str = r#"#!/usr/bin/env bash
count=0
while IFS= read -r line; do
  count=$((count + 1))
  [[ $line =~ \"n\":([0-9]+) ]] && n=${BASH_REMATCH[1]}
  echo "{\"contextModification\": \"$$:$n:$CLINE_HOOK_MODE:$count\"}"
done
"#;

/// The answer's fields: pid, n, mode, count.
fn answer(report: &RunReport) -> (u32, u64, String, u64) {
    let exec = &report.executions[0];
    assert_eq!(exec.status, Status::Completed, "{exec:#?}");
    let parts: Vec<&str> = exec.context_modification.split(':').collect();
    assert_eq!(parts.len(), 4, "{exec:#?}");
    (
        parts[0].parse().unwrap(),
        parts[1].parse().unwrap(),
        parts[2].to_owned(),
        parts[3].parse().unwrap(),
    )
}

/// Whether process `pid` still exists (a zombie counts as gone: it runs nothing).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits up to `limit` for `done`, checking every 20 ms.
async fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

/// A `sleep` argument no other process has: seconds, then this process's pid as a fraction.
fn unique_sleep(test: u32) -> String {
    format!("{}.{}", 9000 + test, std::process::id())
}

/// The pids of the live (not zombie) processes whose argv is `sleep <arg>`.
fn sleeping(arg: &str) -> Vec<u32> {
    let wanted = format!("sleep\0{arg}\0");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if cmdline == wanted.as_bytes() && running(pid) {
            found.push(pid);
        }
    }
    found
}

/// A number read from `file` once it holds one.
async fn read_number(file: &Path) -> u32 {
    let mut found = None;
    wait_for(BOUND, || {
        found = std::fs::read_to_string(file)
            .ok()
            .and_then(|s| s.trim().parse().ok());
        found.is_some()
    })
    .await;
    found.unwrap_or_else(|| panic!("{} never held a number", file.display()))
}

#[tokio::test]
async fn a_thousand_events_are_answered_by_one_process() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("thousand");
    let runner = runner(persistent(&write_hook(&dir.0, ANSWER), &dir.0), &dir.0);
    let (first_pid, _, _, _) = answer(&run(&runner, 0, BOUND).await);
    for n in 1..1000 {
        let (pid, said_n, _, count) = answer(&run(&runner, n, BOUND).await);
        assert_eq!((pid, said_n, count), (first_pid, n, n + 1));
    }
    assert!(running(first_pid));
    terminate_all().await;
    assert!(wait_for(BOUND, || !running(first_pid)).await);
}

#[tokio::test]
async fn the_hook_is_told_it_runs_persistent() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("mode");
    let runner = runner(persistent(&write_hook(&dir.0, ANSWER), &dir.0), &dir.0);
    let (pid, _, mode, _) = answer(&run(&runner, 1, BOUND).await);
    assert_eq!(mode, "persistent");
    terminate_all().await;
    assert!(wait_for(BOUND, || !running(pid)).await);
}

#[tokio::test]
async fn a_late_answer_times_out_stops_the_tree_and_the_next_event_gets_a_fresh_process() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("timeout");
    let child = unique_sleep(1);
    // Event 2 starts a background child and never answers.
    let script = format!(
        r#"#!/usr/bin/env bash
while IFS= read -r line; do
  [[ $line =~ \"n\":([0-9]+) ]] && n=${{BASH_REMATCH[1]}}
  if [ "$n" = 2 ]; then
    sleep {child} &
    sleep 300
  fi
  echo "{{\"contextModification\": \"$$:$n:$CLINE_HOOK_MODE:0\"}}"
done
"#
    );
    let runner = runner(persistent(&write_hook(&dir.0, &script), &dir.0), &dir.0);
    let (first, _, _, _) = answer(&run(&runner, 1, BOUND).await);

    let began = Instant::now();
    let report = run(&runner, 2, Duration::from_millis(1500)).await;
    let exec = &report.executions[0];
    assert_eq!(exec.status, Status::TimedOut, "{exec:#?}");
    assert_eq!(exec.failure_kind, Some(FailureKind::Timeout));
    let failure = exec.failure.as_deref().unwrap_or_default();
    // The per-event sentence, and the signal that ended it.
    assert!(
        failure.starts_with("did not finish within 1500 ms, so its process tree was stopped"),
        "{failure}"
    );
    assert_eq!(exec.signal.as_deref(), Some("SIGTERM (15)"), "{exec:#?}");
    assert!(
        exec.warnings
            .iter()
            .any(|w| w.contains("its persistent process tree was stopped at the event's timeout")),
        "{exec:#?}"
    );
    assert!(began.elapsed() < Duration::from_secs(5));
    assert!(wait_for(BOUND, || !running(first) && sleeping(&child).is_empty()).await);

    let (fresh, n, _, _) = answer(&run(&runner, 3, BOUND).await);
    assert_ne!(fresh, first);
    assert_eq!(n, 3);
    terminate_all().await;
    assert!(wait_for(BOUND, || !running(fresh)).await);
}

#[tokio::test]
async fn three_crashes_within_a_minute_run_the_hook_per_event_until_its_file_changes() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("crash-loop");
    let crashing = "#!/usr/bin/env bash\nread -r line\necho \"cannot connect to the linter daemon\" >&2\nexit 3\n";
    let path = write_hook(&dir.0, crashing);
    let hook = persistent(&path, &dir.0);
    let runner = runner(hook.clone(), &dir.0);
    for attempt in 1..=3 {
        let report = run(&runner, attempt, BOUND).await;
        let exec = &report.executions[0];
        assert_eq!(exec.status, Status::Failed, "{exec:#?}");
        assert_eq!(exec.failure_kind, Some(FailureKind::Crash));
        assert_eq!(exec.exit_code, Some(3));
        let failure = exec.failure.as_deref().unwrap_or_default();
        assert!(
            failure.starts_with("exited with code 3 (stderr: cannot connect to the linter daemon)"),
            "{failure}"
        );
        let looped = exec
            .warnings
            .iter()
            .any(|w| w.contains("so from now on it runs per event"));
        assert_eq!(looped, attempt == 3, "{exec:#?}");
    }

    let why = crash_disabled(&hook).expect("disabled after 3 crashes");
    assert!(
        why.starts_with("its persistent process crashed 3 times within 60 s"),
        "{why}"
    );
    assert!(why.contains("cannot connect to the linter daemon"), "{why}");
    // Still run, per event: the file decides the event as it would without mode=persistent
    // (here it crashes again), and the run says why.
    let report = run(&runner, 4, BOUND).await;
    let exec = &report.executions[0];
    assert_eq!(exec.status, Status::Failed, "{report:#?}");
    assert!(exec.started, "{report:#?}");
    assert_eq!(exec.failure_kind, Some(FailureKind::Crash));
    assert!(exec.warnings.contains(&why), "{report:#?}");
    let mut listed = vec![hook.clone()];
    note_per_event_runs(&mut listed);
    assert!(listed[0].enabled(), "{listed:#?}");
    assert!(listed[0].warnings.contains(&why), "{listed:#?}");

    // A fixed file (another size) enables it again.
    write_hook(&dir.0, ANSWER);
    assert_eq!(crash_disabled(&hook), None);
    let (pid, n, _, _) = answer(&run(&runner, 5, BOUND).await);
    assert_eq!(n, 5);
    terminate_all().await;
    assert!(wait_for(BOUND, || !running(pid)).await);
}

#[tokio::test]
async fn a_changed_file_sends_eof_to_the_old_process_and_the_event_runs_on_a_new_one() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("file-change");
    let eof = dir.0.join("eof.pid");
    let version = |v: &str| {
        format!(
            r#"#!/usr/bin/env bash
while IFS= read -r line; do
  echo "{{\"contextModification\": \"$$:{v}:x:0\"}}"
done
echo $$ > {eof}
"#,
            eof = eof.display()
        )
    };
    let path = write_hook(&dir.0, &version("1"));
    let runner = runner(persistent(&path, &dir.0), &dir.0);
    let (old, said, _, _) = answer(&run(&runner, 1, BOUND).await);
    assert_eq!(said, 1);

    write_hook(&dir.0, &version("22"));
    let (new, said, _, _) = answer(&run(&runner, 2, BOUND).await);
    assert_eq!(said, 22, "the event ran on the new version");
    assert_ne!(new, old);
    assert_eq!(
        read_number(&eof).await,
        old,
        "the old process read EOF and ended"
    );
    assert!(wait_for(BOUND, || !running(old)).await);
    assert!(running(new));
    terminate_all().await;
    assert!(wait_for(BOUND, || !running(new)).await);
}

#[tokio::test]
async fn an_idle_process_is_stopped_after_persistent_idle() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("idle");
    let runner = runner(persistent(&write_hook(&dir.0, ANSWER), &dir.0), &dir.0);
    let settings = RunSettings {
        timeout: BOUND,
        persistent_idle: Duration::from_millis(200),
        ..RunSettings::default()
    };
    let report = runner.run(event(1), settings.clone()).await.unwrap();
    let (pid, _, _, _) = answer(&report);
    assert!(
        wait_for(BOUND, || !running(pid)).await,
        "idle process still running"
    );
    // The next event starts it again.
    let (again, _, _, _) = answer(&runner.run(event(2), settings).await.unwrap());
    assert_ne!(again, pid);
    assert!(wait_for(BOUND, || !running(again)).await);
}

#[tokio::test]
async fn terminate_all_stops_an_idle_persistent_process_and_counts_it() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("terminate");
    let runner = runner(persistent(&write_hook(&dir.0, ANSWER), &dir.0), &dir.0);
    let (pid, _, _, _) = answer(&run(&runner, 1, BOUND).await);
    assert!(running(pid));
    let stopped = terminate_all().await;
    assert!(stopped >= 1, "{stopped}");
    assert!(wait_for(BOUND, || !running(pid)).await);
    // Stopped, not crashed: the next event simply starts it again.
    let (again, _, _, _) = answer(&run(&runner, 2, BOUND).await);
    assert_ne!(again, pid);
    terminate_all().await;
    assert!(wait_for(BOUND, || !running(again)).await);
}

#[tokio::test]
async fn lines_before_the_answer_are_its_log_and_the_answer_is_read() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("log-lines");
    let script = r#"#!/usr/bin/env bash
while IFS= read -r line; do
  echo "checking the event"
  echo "value: {not json, just log"
  echo "on stderr" >&2
  echo '{"cancel": true, "errorMessage": "no writes today"}'
done
"#;
    let runner = runner(persistent(&write_hook(&dir.0, script), &dir.0), &dir.0);
    for n in 1..=2 {
        let report = run(&runner, n, BOUND).await;
        let exec = &report.executions[0];
        assert_eq!(exec.status, Status::Completed, "{exec:#?}");
        assert!(exec.cancel && report.combined.cancel);
        assert_eq!(exec.error_message, "no writes today");
        assert!(
            exec.stdout
                .starts_with("checking the event\nvalue: {not json, just log\n"),
            "{exec:#?}"
        );
        assert!(exec.stdout.contains("no writes today"));
    }
    terminate_all().await;
}

#[tokio::test]
async fn a_brace_line_that_is_not_json_is_read_as_per_event_and_the_process_answers_the_next() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("broken-line");
    let script = r#"#!/usr/bin/env python3
import os, sys
for line in sys.stdin:
    print(f"pid={os.getpid()}", file=sys.stderr, flush=True)
    if '"n": 1' in line or '"n":1' in line:
        print("{oops this is not json", flush=True)
    else:
        print('{"contextModification": "%d:2:x:0"}' % os.getpid(), flush=True)
"#;
    let runner = runner(persistent(&write_hook(&dir.0, script), &dir.0), &dir.0);
    let report = run(&runner, 1, BOUND).await;
    let exec = &report.executions[0];
    let first: u32 = exec
        .stderr
        .trim()
        .strip_prefix("pid=")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{exec:#?}"));

    let (pid, n, _, _) = answer(&run(&runner, 2, BOUND).await);
    assert_eq!((pid, n), (first, 2));
    terminate_all().await;
    assert!(wait_for(BOUND, || !running(pid)).await);

    // Decided as the same output printed per event is (run after: a run of other hooks
    // retires this owner's persistent processes).
    let per_event_dir = TempDir::new("broken-line-per-event");
    let mut hook = persistent(
        &write_hook(
            &per_event_dir.0,
            "#!/usr/bin/env bash\ncat >/dev/null\necho '{oops this is not json'\n",
        ),
        &per_event_dir.0,
    );
    hook.settings.mode = Default::default();
    let per_event = run(&runner_of(hook, &per_event_dir.0), 1, BOUND).await;
    let same = &per_event.executions[0];
    assert_eq!(
        (exec.status, exec.cancel, exec.failure_kind, &exec.failure),
        (same.status, same.cancel, same.failure_kind, &same.failure),
        "{exec:#?} {same:#?}"
    );
}

/// On a runtime of one thread: a write that blocked it would stop the deadline from firing.
#[tokio::test(flavor = "current_thread")]
async fn a_hook_that_never_reads_stdin_times_out_without_blocking_the_host() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("no-read");
    let sleep = unique_sleep(2);
    let script = format!("#!/usr/bin/env bash\nexec sleep {sleep}\n");
    let runner = runner(persistent(&write_hook(&dir.0, &script), &dir.0), &dir.0);
    // Far more than a pipe holds.
    let big = json!({ "taskId": "t1", "blob": "x".repeat(4 << 20) });
    let began = Instant::now();
    let report = runner
        .run(big, settings(Duration::from_millis(500)))
        .await
        .unwrap();
    let exec = &report.executions[0];
    assert_eq!(exec.status, Status::TimedOut, "{exec:#?}");
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
    assert!(wait_for(BOUND, || sleeping(&sleep).is_empty()).await);
}

/// On a runtime of one thread, runs spawned in order reach the hook in order.
#[tokio::test(flavor = "current_thread")]
async fn eight_concurrent_runs_each_get_their_own_answer_the_busy_ones_per_event() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("concurrent");
    let runner = Arc::new(runner(
        persistent(&write_hook(&dir.0, ANSWER), &dir.0),
        &dir.0,
    ));
    // Warm: the process is up.
    let (warm, _, _, _) = answer(&run(&runner, 0, BOUND).await);
    let mut runs = Vec::new();
    for n in 1..=8 {
        let runner = runner.clone();
        runs.push(tokio::spawn(async move { run(&runner, n, BOUND).await }));
    }
    let mut modes = Vec::new();
    for (index, joined) in runs.into_iter().enumerate() {
        let n = index as u64 + 1;
        let (pid, said_n, mode, _) = answer(&joined.await.unwrap());
        assert_eq!(said_n, n, "each run gets the answer to its own event");
        // An event that finds the process answering another runs per event (its own
        // process, without CLINE_HOOK_MODE) instead of waiting its turn.
        assert_eq!(mode == "persistent", pid == warm, "{pid} {mode}");
        modes.push(mode);
    }
    assert!(modes.iter().any(|m| m == "persistent"), "{modes:?}");
    terminate_all().await;
    assert!(wait_for(BOUND, || !running(warm)).await);
}

#[tokio::test]
async fn an_abort_mid_event_stops_the_process_and_the_next_event_gets_a_fresh_one() {
    let _turn = TURN.lock().await;
    let dir = TempDir::new("abort");
    let reading = dir.0.join("reading.pid");
    let script = format!(
        r#"#!/usr/bin/env bash
while IFS= read -r line; do
  [[ $line =~ \"n\":([0-9]+) ]] && n=${{BASH_REMATCH[1]}}
  if [ "$n" = 1 ]; then echo $$ > {reading}; sleep 300; fi
  echo "{{\"contextModification\": \"$$:$n:x:0\"}}"
done
"#,
        reading = reading.display()
    );
    let runner = runner(persistent(&write_hook(&dir.0, &script), &dir.0), &dir.0);
    let abort = cline_hooks_core::event::CancellationToken::new();
    let aborted = runner.run(
        event(1),
        RunSettings {
            timeout: BOUND,
            abort: abort.clone(),
            ..RunSettings::default()
        },
    );
    let reading = &reading;
    let cancel = async {
        let pid = read_number(reading).await;
        abort.cancel();
        pid
    };
    let (result, pid) = tokio::join!(aborted, cancel);
    assert!(matches!(result, Err(HookError::Aborted)), "{result:?}");
    assert!(wait_for(BOUND, || !running(pid)).await);
    let (fresh, n, _, _) = answer(&run(&runner, 2, BOUND).await);
    assert_ne!(fresh, pid);
    assert_eq!(n, 2);
    terminate_all().await;
}
