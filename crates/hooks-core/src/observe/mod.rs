//! Live events of a run, for a host that shows its hooks while they run: each hook's start,
//! its output lines as they arrive, a `Slow` mark once it passes a threshold, and its end with
//! its [`Execution`]. An [`Observer`] in [`RunSettings`](crate::event::RunSettings) receives
//! them; without one, nothing here runs and output is not split into lines.

mod lines;
mod watch;

use std::time::Duration;

use crate::discovery::DiscoveredHook;
use crate::process::Execution;

pub(crate) use lines::Lines;
pub use lines::LINE_BYTES;
pub(crate) use watch::HookWatch;
pub use watch::{LINE_LIMIT, TRUNCATED_LINE};

/// The default [`RunSettings::slow_threshold`](crate::event::RunSettings::slow_threshold).
pub const DEFAULT_SLOW_THRESHOLD: Duration = Duration::from_secs(2);

/// Receives the events of runs. Called on the runtime's threads, from the hooks' own tasks:
/// it must return at once (queue the event, send it on a channel) and never block, or it
/// holds the hook it reports on.
pub trait Observer: Send + Sync {
    /// One event. For an output line, the answer says whether more lines of this hook are
    /// wanted: `false` (a consumer fallen too far behind) ends them as the line limit does,
    /// with one [`TRUNCATED_LINE`]. The answer to other events is ignored.
    fn event(&self, event: &HookEvent<'_>) -> bool;
}

impl std::fmt::Debug for dyn Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Observer")
    }
}

/// What happened to one hook, and when.
#[derive(Debug, Clone, Copy)]
pub struct HookEvent<'a> {
    /// The hook it is about.
    pub hook: &'a DiscoveredHook,
    /// Since the hook's turn in the run began (just before the moment its
    /// [`Execution::duration`] counts from, so waiting for a process slot is included).
    pub elapsed: Duration,
    /// What happened.
    pub kind: EventKind<'a>,
}

/// The kinds of [`HookEvent`], in the order one hook's events come: `Start`, its lines,
/// `End` last; `Slow` at any point before `End`.
#[derive(Debug, Clone, Copy)]
pub enum EventKind<'a> {
    /// Its process started (not sent for a hook that never started).
    Start,
    /// A line it printed on stdout, without its line ending, cut at [`LINE_BYTES`].
    Stdout(&'a str),
    /// A line it printed on stderr, the same way.
    Stderr(&'a str),
    /// It has been running (or waiting for a slot) for the run's slow threshold; sent once.
    Slow,
    /// It ended: the record the run's report holds for it. Sent exactly once for every
    /// execution of the report.
    End(&'a Execution),
}

impl EventKind<'_> {
    /// Its name as the Node API reports it.
    pub fn as_str(&self) -> &'static str {
        match self {
            EventKind::Start => "start",
            EventKind::Stdout(_) => "stdout",
            EventKind::Stderr(_) => "stderr",
            EventKind::Slow => "slow",
            EventKind::End(_) => "end",
        }
    }
}
