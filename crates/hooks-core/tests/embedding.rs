//! What an agent embedding the crate may do with its public API and still get its hooks run
//! and stopped: settings at their extremes, a relative layout, a run abandoned by dropping
//! its future. Real hook scripts, real processes (Unix: the hooks are `/bin/sh` scripts).
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use cline_hooks_core::discovery::{GlobalDir, Layout};
use cline_hooks_core::event::{RunSettings, Runner};
use cline_hooks_core::factory::{Factory, DISCOVERY_LIMIT};
use cline_hooks_core::process::Status;

/// A fresh workspace root holding one `PreToolUse` hook with `body` after its `#!` line.
fn workspace(tag: &str, body: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!(
        "cline-hooks-embedding-{tag}-{}-{:?}",
        std::process::id(),
        std::time::SystemTime::now()
    ));
    let hooks = root.join(".clinerules/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let hook = hooks.join("PreToolUse");
    std::fs::write(&hook, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    root
}

fn layout(root: PathBuf) -> Layout {
    Layout {
        workspace_roots: vec![root],
        global_hooks_dir: GlobalDir::Off,
        ..Layout::default()
    }
}

async fn runner(layout: &Layout, max_processes: Option<usize>) -> Runner {
    let factory = Arc::new(Factory::new(layout, max_processes, None));
    factory
        .snapshot("PreToolUse", DISCOVERY_LIMIT)
        .await
        .unwrap()
        .runner()
}

const ALLOW: &str = r#"cat >/dev/null; echo '{"cancel":false,"contextModification":"ran"}'"#;

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
    let end = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < end {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

#[tokio::test]
async fn a_timeout_of_duration_max_means_no_timeout_not_a_panic() {
    let runner = runner(&layout(workspace("max-timeout", ALLOW)), None).await;
    for sequential in [false, true] {
        let settings = RunSettings {
            timeout: Duration::MAX,
            sequential,
            ..RunSettings::default()
        };
        let report = runner.run(serde_json::json!({}), settings).await.unwrap();
        assert_eq!(report.executions[0].status, Status::Completed);
        assert_eq!(report.combined.context_modification, "ran");
    }
}

#[tokio::test]
async fn process_limits_of_zero_or_usize_max_still_run_the_hook() {
    let layout = layout(workspace("limits", ALLOW));
    for limit in [0, usize::MAX] {
        let runner = runner(&layout, Some(limit)).await;
        let report = runner
            .run(serde_json::json!({}), RunSettings::default())
            .await
            .unwrap();
        assert_eq!(
            report.executions[0].status,
            Status::Completed,
            "factory limit {limit}"
        );
        let settings = RunSettings {
            max_processes: Some(limit),
            ..RunSettings::default()
        };
        let report = runner.run(serde_json::json!({}), settings).await.unwrap();
        assert_eq!(
            report.executions[0].status,
            Status::Completed,
            "run limit {limit}"
        );
    }
}

#[tokio::test]
async fn a_relative_workspace_root_is_taken_from_the_current_directory() {
    let root = workspace("relative", &format!("pwd >&2; {ALLOW}"));
    // The same folder, named relative to this process's current directory.
    let cwd = std::env::current_dir().unwrap();
    let mut relative = PathBuf::new();
    for _ in cwd.components().skip(1) {
        relative.push("..");
    }
    relative.push(root.strip_prefix("/").unwrap());
    assert!(relative.is_relative());

    let runner = runner(&layout(relative), None).await;
    assert!(
        runner.hooks[0].path.is_absolute(),
        "{:?}",
        runner.hooks[0].path
    );
    let report = runner
        .run(serde_json::json!({}), RunSettings::default())
        .await
        .unwrap();
    let exec = &report.executions[0];
    assert_eq!(exec.status, Status::Completed, "{:?}", exec.failure);
    let ran_in = Path::new(exec.stderr.trim()).canonicalize().unwrap();
    assert_eq!(ran_in, root.canonicalize().unwrap());
}

#[tokio::test]
async fn dropping_a_run_stops_its_hooks_before_their_deadline() {
    // The hook and a child of its own write their pids, then wait far past the test.
    let root = workspace(
        "dropped",
        r#"trap '' TERM; sleep 600 & echo $! > "$PWD/child.pid"; echo $$ > "$PWD/hook.pid"; wait"#,
    );
    let runner = runner(&layout(root.clone()), None).await;
    let settings = RunSettings {
        timeout: Duration::from_secs(600),
        ..RunSettings::default()
    };
    let pids = [root.join("hook.pid"), root.join("child.pid")];
    let read_pids = || -> Option<Vec<u32>> {
        pids.iter()
            .map(|p| std::fs::read_to_string(p).ok()?.trim().parse().ok())
            .collect()
    };
    let started = async {
        while read_pids().is_none() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::select! {
        _ = runner.run(serde_json::json!({}), settings) => panic!("the run ended by itself"),
        _ = tokio::time::timeout(Duration::from_secs(60), started) => {}
    }
    // The run's future is dropped here, long before its 600 s deadline.
    let pids = read_pids().expect("the hook wrote its pids");
    let gone = wait_for(Duration::from_secs(20), || {
        !pids.iter().any(|&p| running(p))
    })
    .await;
    assert!(gone, "still running after the run was dropped: {pids:?}");
}
