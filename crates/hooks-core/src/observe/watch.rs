//! One hook of an observed run: where its events are sent from, with the clock they are timed
//! by, the line limit shared by its two pipes, and the slow mark.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::{sleep_until, Instant};

use super::{EventKind, HookEvent, Observer};
use crate::discovery::DiscoveredHook;
use crate::process::Execution;

/// Most output lines sent for one hook, stdout and stderr together; then one
/// [`TRUNCATED_LINE`], and no more.
pub const LINE_LIMIT: u32 = 1000;

/// The line sent, on the stream that went over, in place of a hook's lines past
/// [`LINE_LIMIT`] (or once the observer wants no more).
pub const TRUNCATED_LINE: &str =
    "[truncated: the rest of this hook's output is not sent as events]";

/// Which pipe a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

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
        self.send(EventKind::End(execution));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Records what it is sent; refuses lines after `lines_wanted` of them.
    struct Recorder {
        seen: Mutex<Vec<String>>,
        lines_wanted: usize,
    }

    impl Observer for Recorder {
        fn event(&self, event: &HookEvent<'_>) -> bool {
            let mut seen = self.seen.lock().unwrap();
            let shown = match event.kind {
                EventKind::Stdout(l) => format!("out:{l}"),
                EventKind::Stderr(l) => format!("err:{l}"),
                other => other.as_str().to_owned(),
            };
            seen.push(shown);
            seen.len() <= self.lines_wanted
        }
    }

    fn watched(lines_wanted: usize, slow: Duration) -> (Arc<Recorder>, Arc<HookWatch>) {
        let recorder = Arc::new(Recorder {
            seen: Mutex::new(Vec::new()),
            lines_wanted,
        });
        let hook = DiscoveredHook::sample("/hooks/PreToolUse");
        let watch = HookWatch::new(recorder.clone(), &hook, slow);
        (recorder, watch)
    }

    fn seen(recorder: &Recorder) -> Vec<String> {
        recorder.seen.lock().unwrap().clone()
    }

    #[test]
    fn lines_are_split_across_reads_and_the_last_one_is_sent_at_the_end() {
        let (recorder, watch) = watched(usize::MAX, Duration::MAX);
        let (mut out, mut err) = (watch.lines(true), watch.lines(false));
        out.push(b"one\ntw");
        err.push(b"e1\r\n\n");
        out.push(b"o\r\nthree");
        out.finish();
        err.finish();
        assert_eq!(
            seen(&recorder),
            ["out:one", "err:e1", "err:", "out:two", "out:three"]
        );
    }

    #[test]
    fn past_the_limit_one_truncated_line_comes_and_no_more_work_is_done() {
        let (recorder, watch) = watched(usize::MAX, Duration::MAX);
        let (mut out, mut err) = (watch.lines(true), watch.lines(false));
        out.push("x\n".repeat(600).as_bytes());
        err.push("y\n".repeat(600).as_bytes());
        out.push(b"more\n");
        out.finish();
        let seen = seen(&recorder);
        assert_eq!(seen.len(), LINE_LIMIT as usize + 1);
        assert_eq!(seen[999], "err:y");
        assert_eq!(seen[1000], format!("err:{TRUNCATED_LINE}"));
        assert!(!watch.wants_lines());
    }

    #[test]
    fn an_observer_that_wants_no_more_lines_gets_the_truncated_line_instead() {
        let (recorder, watch) = watched(2, Duration::MAX);
        let mut out = watch.lines(true);
        out.push(b"a\nb\nc\nd\n");
        assert_eq!(
            seen(&recorder),
            ["out:a", "out:b", "out:c", &format!("out:{TRUNCATED_LINE}")]
        );
    }

    #[test]
    fn a_long_line_is_cut_and_its_rest_skipped() {
        let (recorder, watch) = watched(usize::MAX, Duration::MAX);
        let mut out = watch.lines(true);
        out.push(&vec![b'a'; 3000]);
        out.push(&vec![b'b'; 3000]);
        out.push(b"\nnext\n");
        let seen = seen(&recorder);
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].len(), "out:".len() + super::super::LINE_BYTES);
        assert_eq!(seen[1], "out:next");
    }

    #[tokio::test]
    async fn slow_is_sent_once_past_the_threshold_and_never_for_a_quick_turn() {
        let (recorder, watch) = watched(usize::MAX, Duration::from_millis(20));
        let done = watch
            .timing(async {
                tokio::time::sleep(Duration::from_millis(200)).await;
                42
            })
            .await;
        assert_eq!(done, 42);
        assert_eq!(seen(&recorder), ["slow"]);

        let (recorder, watch) = watched(usize::MAX, Duration::from_secs(2));
        watch.timing(async {}).await;
        assert!(seen(&recorder).is_empty());
    }
}
