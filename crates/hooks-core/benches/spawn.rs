//! Where a trivial hook's time goes, in Rust alone (row (a) of `npm run bench` without Node):
//!
//! - `std_command`: `std::process::Command` (posix_spawn), write stdin, read stdout, wait; the
//!   floor of row (a);
//! - `tokio_command`: the same job with `tokio::process` on a worker of a multi-thread runtime
//!   (what the addon builds on), awaited from another thread as the binding does;
//! - `runner_run`: the addon's `Runner::run` (limiter, process group, stdin/stdout/stderr
//!   pipes, deadline, output parsing, combination) on the same runtime, no Node involved;
//! - `runner_run_scrubbed`: the same with `scrubEnv` on, whose hooks (Linux) enter their
//!   Landlock domain before their exec, started by the crate's own spawn (a `clone(CLONE_VM |
//!   CLONE_VFORK)` as posix_spawn makes it), so they cost what `runner_run` does whatever
//!   memory the host maps (a fork, which std would make for a `pre_exec` closure, costs more
//!   the more it maps).
//!
//! `cargo bench --bench spawn`. Each case runs the hook 1,000 times (about a second or two).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, OnceLock};

use cline_hooks_core::discovery::{GlobalDir, Layout};
use cline_hooks_core::event::{RunSettings, Runner};
use cline_hooks_core::factory::Factory;
use cline_hooks_core::process::ScrubEnv;
use divan::Bencher;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn main() {
    divan::main();
}

const INPUT: &[u8] =
    b"{\"hookName\":\"PreToolUse\",\"preToolUse\":{\"toolName\":\"write_to_file\"}}\n";

struct HookDir(PathBuf);

impl Drop for HookDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A folder holding the benchmark's trivial hook: sh reading stdin with builtins, then printing
/// its verdict (one process per run).
fn hook_dir() -> &'static HookDir {
    static DIR: OnceLock<HookDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("cline-hooks-spawn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let hook = dir.join("PreToolUse");
        std::fs::write(
            &hook,
            "#!/bin/sh\nwhile IFS= read -r line; do :; done\nprintf '{\"cancel\":false}\\n'\n",
        )
        .expect("write hook");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        HookDir(dir)
    })
}

fn hook() -> PathBuf {
    hook_dir().0.join("PreToolUse")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

#[divan::bench(sample_count = 1000, max_time = 5)]
fn std_command(bencher: Bencher) {
    let hook = hook();
    bencher.bench(|| {
        let mut child = std::process::Command::new(&hook)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let _ = child.stdin.take().expect("stdin").write_all(INPUT);
        let mut out = Vec::new();
        child
            .stdout
            .take()
            .expect("stdout")
            .read_to_end(&mut out)
            .expect("read");
        assert!(child.wait().expect("wait").success());
        out
    });
}

#[divan::bench(sample_count = 1000, max_time = 5)]
fn tokio_command(bencher: Bencher) {
    let rt = runtime();
    let hook = hook();
    bencher.bench(|| {
        let hook = hook.clone();
        rt.block_on(async {
            tokio::spawn(async move {
                let mut child = tokio::process::Command::new(&hook)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("spawn");
                let mut stdin = child.stdin.take().expect("stdin");
                let _ = stdin.write_all(INPUT).await;
                drop(stdin);
                let mut out = Vec::new();
                child
                    .stdout
                    .take()
                    .expect("stdout")
                    .read_to_end(&mut out)
                    .await
                    .expect("read");
                assert!(child.wait().await.expect("wait").success());
                out
            })
            .await
            .expect("join")
        })
    });
}

#[divan::bench(sample_count = 1000, max_time = 5)]
fn runner_run(bencher: Bencher) {
    run_with(bencher, RunSettings::default);
}

#[divan::bench(sample_count = 1000, max_time = 5)]
fn runner_run_scrubbed(bencher: Bencher) {
    run_with(bencher, || RunSettings {
        scrub_env: ScrubEnv::Credentials,
        ..RunSettings::default()
    });
}

/// `Runner::run` of the trivial hook with the settings `settings` makes.
fn run_with(bencher: Bencher, settings: fn() -> RunSettings) {
    let rt = runtime();
    let layout = Layout {
        extra_hooks_dirs: vec![hook_dir().0.clone()],
        global_hooks_dir: GlobalDir::Off,
        ..Layout::default()
    };
    let factory = Arc::new(Factory::new(&layout, None, None));
    let runner: Arc<Runner> = Arc::new(
        rt.block_on(factory.snapshot("PreToolUse", cline_hooks_core::factory::DISCOVERY_LIMIT))
            .expect("snapshot")
            .runner(),
    );
    let input: serde_json::Value = serde_json::from_slice(INPUT).expect("input is JSON");
    bencher.bench(|| {
        let runner = runner.clone();
        let input = input.clone();
        let report = rt
            .block_on(async {
                tokio::spawn(async move { runner.run(input, settings()).await })
                    .await
                    .expect("join")
            })
            .expect("run");
        assert_eq!(report.executions.len(), 1);
        report
    });
}
