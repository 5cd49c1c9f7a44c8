//! An embedder's live events, without Node: an `Observer` that forwards each event on a
//! channel sees a real hook's start, its lines, the slow mark and its end, in that order, with
//! the execution the report holds. Unix: the hook is a `/bin/sh` script.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use cline_hooks_core::discovery::{GlobalDir, Layout};
use cline_hooks_core::event::RunSettings;
use cline_hooks_core::factory::{Factory, DISCOVERY_LIMIT};
use cline_hooks_core::observe::{EventKind, HookEvent, Observer};

/// Sends a summary of each event down a channel (never blocks: the channel is unbounded here,
/// and the line limit bounds what one hook sends).
struct Forward(Mutex<mpsc::Sender<String>>);

impl Observer for Forward {
    fn event(&self, event: &HookEvent<'_>) -> bool {
        let summary = match event.kind {
            EventKind::Stdout(line) => format!("stdout {line}"),
            EventKind::Stderr(line) => format!("stderr {line}"),
            EventKind::End(execution) => format!("end {}", execution.status.as_str()),
            other => other.as_str().to_owned(),
        };
        let _ = self.0.lock().unwrap().send(summary);
        true
    }
}

#[tokio::test]
async fn an_embedder_sees_start_lines_slow_and_end_in_order() {
    let root = std::env::temp_dir().join(format!("cline-hooks-observe-{}", std::process::id()));
    let hooks = root.join(".clinerules/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let hook = hooks.join("PreToolUse");
    std::fs::write(
        &hook,
        "#!/bin/sh\ncat >/dev/null\necho working >&2\nsleep 0.4\necho '{\"cancel\":true}'\n",
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let layout = Layout {
        workspace_roots: vec![root.clone()],
        global_hooks_dir: GlobalDir::Off,
        ..Layout::default()
    };
    let factory = Arc::new(Factory::new(&layout, None, None));
    let runner = factory
        .snapshot("PreToolUse", DISCOVERY_LIMIT)
        .await
        .unwrap()
        .runner();

    let (sender, events) = mpsc::channel();
    let settings = RunSettings {
        observer: Some(Arc::new(Forward(Mutex::new(sender)))),
        slow_threshold: Duration::from_millis(100),
        ..RunSettings::default()
    };
    let report = runner.run(serde_json::json!({}), settings).await.unwrap();
    assert!(report.combined.cancel);
    let mut seen: Vec<String> = events.try_iter().collect();
    // Slow comes once, anywhere before the end (a loaded machine may start the hook late).
    let slow = seen.iter().position(|e| e == "slow").unwrap();
    assert!(slow < seen.len() - 1);
    seen.remove(slow);
    assert_eq!(
        seen,
        [
            "start",
            "stderr working",
            "stdout {\"cancel\":true}",
            "end completed"
        ]
    );
    assert!(!seen.contains(&"slow".to_owned()));
    let _ = std::fs::remove_dir_all(root);
}
