//! One hook process: admitted to a slot, started at the head of its own tree, fed and read
//! through its pipes, held to its deadline, its exit told in words; the registry of live
//! trees, the marker that finds the processes that left a tree's group, and the watchdog that
//! stops them if the host dies.

// Stages of a run, used only inside this room.
mod admission;
mod exit_status;
mod spawn;
mod spawn_failure;
mod start_retry;

mod build_env;
mod claude_handler;
mod confine;
mod deadline;
mod detached;
mod environment;
#[cfg(target_os = "linux")]
mod exec_plan;
mod execution;
mod hook_child;
mod hook_io;
mod identity;
mod marker;
#[cfg(target_os = "linux")]
mod own_child;
#[cfg(target_os = "linux")]
mod own_spawn;
mod persistent;
mod pipes;
mod registry;
mod run;
mod slots;
mod tree;
mod verified_start;
mod watchdog;

pub use build_env::*;
pub use claude_handler::CLAUDE_PROJECT_DIR_VAR;
pub use confine::{
    confinement, fs_rights, ruleset_attr, scrub_warning, scrub_warning_here, RulesetAttr,
    Unconfined, SCOPE_SIGNAL,
};
pub use deadline::*;
pub use detached::*;
pub use environment::*;
pub use execution::*;
pub use exit_status::signal_parts;
pub use identity::*;
pub(crate) use marker::*;
pub(crate) use persistent::run_persistent;
pub use persistent::{
    crash_disabled, note_per_event_runs, retire_others, retire_scope, CRASH_LIMIT, CRASH_WINDOW,
    EVENT_ID_FIELD, LINE_KEEP, RETIRE_GRACE,
};
pub use pipes::*;
pub use registry::*;
pub use run::*;
pub use slots::{default_process_limit, limiter, shared_limiter};
pub use spawn::MODE_VAR;
pub(crate) use tree::*;
pub use verified_start::changed_at_start;
pub(crate) use watchdog::*;
