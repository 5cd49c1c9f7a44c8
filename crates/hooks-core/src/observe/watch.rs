//! One hook of an observed run: where its events are sent from, with the clock they are timed
//! by, the line limit shared by its two pipes, and the slow mark.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::{sleep_until, Instant};

use super::lines::{Lines, Stream, LINE_LIMIT, TRUNCATED_LINE};
use super::{EventKind, HookEvent, Observer};
use crate::discovery::DiscoveredHook;
use crate::process::Execution;

/// The events of one hook's turn in a run.
pub(crate) struct HookWatch {
    observer: Arc<dyn Observer>,
    hook: DiscoveredHook,
    /// When its turn began: what `elapsed` counts from.
    origin: Instant,
    slow_threshold: Duration,
    /// Lines sent so far, both pipes together.
    lines: AtomicU32,
    /// No more lines are sent (the limit was reached, or the observer wants none).
    lines_closed: AtomicBool,
}

impl HookWatch {
    /// The watch of `hook`, whose turn begins now.
    pub(crate) fn new(
        observer: Arc<dyn Observer>,
        hook: &DiscoveredHook,
        slow_threshold: Duration,
    ) -> Arc<HookWatch> {
        Arc::new(HookWatch {
            observer,
            hook: hook.clone(),
            origin: Instant::now(),
            slow_threshold,
            lines: AtomicU32::new(0),
            lines_closed: AtomicBool::new(false),
        })
    }

    fn send(&self, kind: EventKind<'_>) -> bool {
        self.observer.event(&HookEvent {
            hook: &self.hook,
            elapsed: self.origin.elapsed(),
            kind,
        })
    }

    /// Its process started.
    pub(crate) fn start(&self) {
        self.send(EventKind::Start);
    }

    /// A splitter of one of its pipes into lines sent from here.
    pub(crate) fn lines(self: &Arc<Self>, stdout: bool) -> Lines {
        let stream = if stdout {
            Stream::Stdout
        } else {
            Stream::Stderr
        };
        Lines::new(self.clone(), stream)
    }

    /// Whether lines are still sent: once they are not, its output is not even split.
    pub(crate) fn wants_lines(&self) -> bool {
        !self.lines_closed.load(Ordering::Relaxed)
    }

    /// Sends one line, or, past the limit, the truncation line once.
    pub(crate) fn line(&self, stream: Stream, text: &str) {
        if !self.wants_lines() {
            return;
        }
        let as_kind = |text| match stream {
            Stream::Stdout => EventKind::Stdout(text),
            Stream::Stderr => EventKind::Stderr(text),
        };
        let within = self.lines.fetch_add(1, Ordering::Relaxed) < LINE_LIMIT;
        if within && self.send(as_kind(text)) {
            return;
        }
        if !self.lines_closed.swap(true, Ordering::Relaxed) {
            self.send(as_kind(TRUNCATED_LINE));
        }
    }

    /// Runs `work` (the hook's turn), sending `Slow` once if it passes the threshold.
    pub(crate) async fn timing<F: Future>(&self, work: F) -> F::Output {
        tokio::pin!(work);
        const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
        let slow_at = self.origin.checked_add(self.slow_threshold);
        let Some(slow_at) = slow_at.or_else(|| self.origin.checked_add(CENTURY)) else {
            return work.await;
        };
        tokio::select! {
            biased;
            done = &mut work => return done,
            _ = sleep_until(slow_at) => self.send(EventKind::Slow),
        };
        work.await
    }

    /// It ended: `execution` is its record in the run's report.
    pub(crate) fn end(&self, execution: &Execution) {
        self.observer.event(&HookEvent {
            hook: &self.hook,
            elapsed: execution.duration,
            kind: EventKind::End(execution),
        });
    }
}
