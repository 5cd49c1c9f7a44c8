//! Runs [Cline](https://cline.bot)'s hooks from any Rust program: finds the hook scripts of a
//! task's workspace roots and of the user's global folder, starts each one as its own process
//! tree with one JSON object on stdin and a deadline, reads the verdict each one prints on
//! stdout, and combines the verdicts into one answer: **cancel or go ahead**, plus context for
//! the model.
//!
//! This is the runtime behind the `@cline/hooks` Node package (whose binding is a thin layer
//! over this crate) and the `cline-hooks` CLI. It knows nothing of Node: an agent written in
//! Rust embeds it directly, on Tokio.
//!
//! # The flow
//!
//! A call flows one way through the crate's modules:
//!
//! 1. [`discovery`]: which folders are searched ([`discovery::Layout`]: workspace roots'
//!    `.clinerules/hooks`, the global `<Documents>/Cline/Hooks`, extra folders; the Cline
//!    CLI's conventions with [`discovery::Profile::Cli`]) and which files in them are hooks,
//!    enabled or not (with the reason), in run order, each with the settings of its
//!    `cline-hook:` header line ([`discovery::read_header`]: `tools=`, `timeout=`,
//!    `onFailure=`, `mode=persistent`).
//! 2. [`factory`]: [`factory::Factory`] caches discovery (a snapshot of the folders is reused
//!    until a watched folder changes, see [`discovery::watch`], and for
//!    [`factory::CACHE_TTL`] at most, then revalidated off the caller's thread) and hands out
//!    a [`event::Runner`] per hook name.
//! 3. [`event`]: the runner completes the event's input ([`event::HookInput`]: the missing
//!    common fields `hookName`, `timestamp`, `workspaceRoots`, `model` appended) and starts
//!    every enabled hook that applies (a tool hook whose `tools=` does not match the tool is
//!    `Skipped`, see [`event::tool_name`]), in parallel or one after another
//!    ([`event::RunSettings`]). A persistent hook's event goes to its long-lived process
//!    instead, one JSON line in, one out (see the `persistent` part of [`process`]).
//! 4. [`launch`] gives each hook's argv for the platform (its `#!` line, PowerShell, `cmd.exe`,
//!    the CLI profile's interpreters); [`process`] drives it as a process tree (a process group
//!    on Unix, a job object on Windows) until it ends or its deadline, writing stdin while
//!    reading stdout and stderr, and says what happened ([`process::Execution`],
//!    [`process::Status`]).
//! 5. [`verdict`] reads each hook's stdout as it streams (the last JSON object holding a
//!    verdict field) and combines the executions into one [`verdict::Combined`].
//!
//! While it runs, an [`observe::Observer`] in [`event::RunSettings`] receives each hook's live
//! events: its start, its output lines, a slow mark, and its end with its execution.
//!
//! Mistakes in the call itself (a bad hook name, input that is not a JSON object, an abort, a
//! hooks folder that does not answer) are an [`error::HookError`]; everything a hook does is
//! reported in its [`process::Execution`], never as an error.
//!
//! # Example
//!
//! Discover and run the `PreToolUse` hooks of one workspace, then read the combined verdict:
//!
//! ```
//! use std::sync::Arc;
//!
//! use cline_hooks_core::discovery::{GlobalDir, Layout};
//! use cline_hooks_core::event::RunSettings;
//! use cline_hooks_core::factory::{Factory, DISCOVERY_LIMIT};
//! use cline_hooks_core::process::Status;
//!
//! # #[cfg(unix)]
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // A workspace with one hook: an executable named after the event in .clinerules/hooks.
//!     let workspace = std::env::temp_dir().join(format!("cline-hooks-doc-{}", std::process::id()));
//!     let hooks_dir = workspace.join(".clinerules/hooks");
//!     std::fs::create_dir_all(&hooks_dir)?;
//!     let hook = hooks_dir.join("PreToolUse");
//!     std::fs::write(
//!         &hook,
//!         "#!/bin/sh\ncat >/dev/null\necho 'checking' >&2\n\
//!          echo '{\"cancel\": true, \"errorMessage\": \"no writes today\"}'\n",
//!     )?;
//!     use std::os::unix::fs::PermissionsExt;
//!     std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))?;
//!
//!     // Where to look: this workspace only (absolute paths; no global folder).
//!     let layout = Layout {
//!         workspace_roots: vec![workspace.clone()],
//!         global_hooks_dir: GlobalDir::Off,
//!         ..Layout::default()
//!     };
//!     // One factory per task: it caches discovery. One runner per event.
//!     let factory = Arc::new(Factory::new(&layout, None, None));
//!     let runner = factory.snapshot("PreToolUse", DISCOVERY_LIMIT).await?.runner();
//!
//!     let input = serde_json::json!({
//!         "taskId": "t1",
//!         "preToolUse": { "tool": "write_to_file", "parameters": { "path": "src/a.ts" } }
//!     });
//!     let report = runner.run(input, RunSettings::default()).await?;
//!
//!     // The combined verdict, and what each hook did.
//!     assert!(report.combined.cancel);
//!     assert_eq!(report.combined.error_message, "no writes today");
//!     assert_eq!(report.executions.len(), 1);
//!     assert_eq!(report.executions[0].status, Status::Completed);
//!     assert_eq!(report.executions[0].stderr.trim(), "checking");
//!
//!     std::fs::remove_dir_all(&workspace)?;
//!     Ok(())
//! }
//! # #[cfg(not(unix))]
//! # fn main() {}
//! ```
//!
//! A fuller program, which reads the input from stdin and prints the result as JSON, is
//! `examples/run_event.rs`:
//!
//! ```text
//! cargo run -p cline-hooks-core --example run_event -- PreToolUse \
//!     --workspace examples/workspace --no-global < examples/inputs/PreToolUse.json
//! ```
//!
//! [`event::RunSettings`] sets the per-hook timeout (default [`event::DEFAULT_TIMEOUT`], 30 s),
//! variables added to the hooks' environment, sequential runs, a per-call process limit,
//! fire-and-forget (`detached`), and the cancellation token that aborts the run.
//!
//! # What an embedder can rely on
//!
//! - **A hook cannot crash the caller.** Whatever a hook prints (binary junk, a 1 GiB flood,
//!   JSON nested a million levels, UTF-16, never-closed arrays) or does (crash, hang, fork,
//!   ignore signals, keep stdout open) ends up as its [`process::Execution`]: `failed` or
//!   `timedOut` with a sentence saying why. Even a panic inside this crate while running one
//!   hook is caught on that hook's task (with the default `panic = "unwind"`) and becomes that
//!   hook's `failed`, leaving the other hooks and the caller alone.
//! - **Every hook has a deadline.** [`event::RunSettings::timeout`] covers waiting for a
//!   process slot and running; at the deadline the hook's *whole process tree* is stopped
//!   (SIGTERM, then SIGKILL [`process::KILL_GRACE`] later; the job object on Windows). Output
//!   still flowing after the hook's own process exits is read for a bounded time (in the `cli`
//!   profile, until the pipes close or 1 s has passed, as the Cline SDK does); a process
//!   that even SIGKILL cannot end (stuck in the kernel) is given up on. A run outlives its
//!   deadline by at most 250 ms + 1 s + 150 ms + 1 s. Discovery that does not answer fails with
//!   [`error::HookError::DiscoveryTimedOut`] at the limit the caller passes.
//! - **Trees are stopped, not just processes.** Cancelling [`event::RunSettings::abort`]
//!   stops every running tree of that run and the run returns [`error::HookError::Aborted`];
//!   dropping the future of a run (a `select!`, a `timeout`) stops its trees the same way;
//!   [`process::terminate_all`] stops every running tree of the process (detached ones
//!   included) and keeps hooks still waiting for a slot from starting. On Unix a watchdog
//!   process, started with the first hook, stops the running trees (detached ones excepted)
//!   if the host dies, by any signal (tested on Linux); on Windows each tree's job object is
//!   set to be killed when the host's handle closes. What a hook deliberately leaves in the background when its own process exits
//!   (the documented way to do async work) is released, not stopped.
//! - **A printed cancel is never dropped.** A hook that printed `{"cancel": true}` and then
//!   crashed, timed out, was stopped or printed anything after it still blocks, and one hook
//!   failing never discards another's cancel. Failures on their own never block: only
//!   `cancel: true` does.
//! - **Bounded cost.** All of stdout is scanned in one linear pass as it streams, in
//!   constant memory, on a blocking thread; the last 16 KiB of stdout and of stderr are kept
//!   for the result. The number of hook processes at once is capped (by default 8 per core and
//!   at least 8, shared by all factories that set no limit of their own); hooks over the cap
//!   wait, their deadline running.
//!
//! The exact limits (how much of a huge verdict is kept, how long pipes are waited for, what a
//! process leaving its group with `setsid` escapes) are listed under "Limits that remain" in
//! the repository's README.
//!
//! # Runtime
//!
//! Every async function here must run inside a Tokio runtime with I/O and time enabled (the
//! examples use the multi-thread runtime, as the Node binding does; a `current_thread`
//! runtime works too). Discovery's blocking reads and stdout's scan happen on Tokio's
//! blocking threads, never on the caller's task, so a runtime whose blocking threads are all
//! busy delays a run's end past the bound above.
//!
//! The host must not die of `SIGPIPE`: a hook that exits without reading its input makes the
//! write to its stdin fail, which is fine when `SIGPIPE` is ignored, as Rust programs (and
//! Node) do by default. A program that restores the default action (some command-line tools
//! do, for `| head`) must ignore it again before running hooks.
//!
//! Detached runs ([`event::RunSettings::detached`]) are for observation only: they are not
//! stopped at their deadline and hold a process slot until they end, so a host that starts
//! many of them should give them a limiter of their own (`max_processes`) or stop them with
//! [`process::terminate_all`].

#![warn(missing_docs)]
#![deny(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod blocking;
pub mod claude;
pub mod diagnosis;
pub mod discovery;
pub mod error;
pub mod event;
pub mod factory;
mod file_lock;
pub mod launch;
pub mod observe;
pub mod policy;
pub mod process;
pub mod record;
pub mod sandbox;
pub mod verdict;

pub use blocking::panic_is_a_refused_thread;
