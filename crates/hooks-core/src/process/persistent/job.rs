//! One event handed to a persistent hook's session: what it needs of its run (copied, as the
//! session outlives the run), its deadline, where its answer goes, and its turn in the queue,
//! which the caller can give up before the session takes it.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{oneshot, Semaphore};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::framing::EVENT_ID_FIELD;
use crate::discovery::{DiscoveredHook, Profile};
use crate::observe::HookWatch;
use crate::process::{Execution, Owner, RunContext, RunIdentity};

/// Where one event stands in its session's queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Turn {
    /// Waiting behind earlier events.
    Queued = 0,
    /// Taken by the session: it answers, whatever happens.
    Taken = 1,
    /// Given up by the caller at its deadline: the session skips it.
    GivenUp = 2,
}

/// The turn of one event, shared by its caller and its session: whichever moves it from
/// [`Turn::Queued`] first decides who reports the event.
#[derive(Debug, Default)]
pub(super) struct SharedTurn(AtomicU8);

impl SharedTurn {
    /// Moves a queued turn to `to`; `false` when the other side moved it first.
    pub(super) fn leave_queue(&self, to: Turn) -> bool {
        self.0
            .compare_exchange(
                Turn::Queued as u8,
                to as u8,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
    }
}

/// One event counted among a session's events in flight (sent and not yet answered) while it
/// lives.
pub(super) struct InFlight(Arc<std::sync::atomic::AtomicUsize>);

impl InFlight {
    pub(super) fn new(count: Arc<std::sync::atomic::AtomicUsize>) -> InFlight {
        count.fetch_add(1, Ordering::AcqRel);
        InFlight(count)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What a process is started with: a session whose process was started with other settings
/// replaces it (a run's `env` or `scrubEnv` reach the process only through its start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct StartWith {
    pub env: Vec<(OsString, OsString)>,
    pub env_remove: Vec<OsString>,
    /// Started confined (`scrubEnv`): a process started otherwise is not reused for it.
    pub confine: bool,
    /// Its sandbox (`sandbox`): a process started in another (or none) is not reused for it.
    pub sandbox: Option<Arc<crate::sandbox::Sandbox>>,
}

/// One event for a persistent hook.
pub(super) struct Job {
    pub hook: DiscoveredHook,
    /// The event, one line of compact JSON ending in `\n`, with its [`EVENT_ID_FIELD`].
    pub line: Arc<[u8]>,
    /// The event's id, as its line carries it: an answer that echoes another is a stale one.
    pub event_id: String,
    pub start_with: StartWith,
    pub run: RunIdentity,
    pub cwd: PathBuf,
    pub profile: Profile,
    pub owner: Owner,
    pub limiter: Arc<Semaphore>,
    pub abort: CancellationToken,
    pub start_permission: CancellationToken,
    pub deadline: Instant,
    /// This hook's timeout, which the sentences name.
    pub timeout: Duration,
    /// How long its process may stay idle after this event.
    pub idle: Duration,
    pub watch: Option<Arc<HookWatch>>,
    pub turn: Arc<SharedTurn>,
    pub reply: oneshot::Sender<Execution>,
    /// Counts it among its session's events in flight until it is answered.
    pub in_flight: Option<InFlight>,
    /// When the caller handed it over: its execution's duration counts from here.
    pub since: Instant,
}

impl Job {
    /// The job of `hook` for `ctx`'s event; the receiver gets its execution.
    pub(super) fn new(
        hook: &DiscoveredHook,
        ctx: &RunContext,
        deadline: Instant,
        timeout: Duration,
        watch: Option<&Arc<HookWatch>>,
    ) -> (Job, oneshot::Receiver<Execution>) {
        let (reply, answer) = oneshot::channel();
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let event_id = NEXT
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            .to_string();
        let job = Job {
            hook: hook.clone(),
            line: with_event_id(&one_line(&ctx.input), &event_id),
            event_id,
            start_with: StartWith {
                env: ctx.env.clone(),
                env_remove: ctx.env_remove.clone(),
                confine: ctx.confine,
                sandbox: hook.sandbox.clone(),
            },
            run: ctx.run.clone(),
            cwd: ctx.cwd_of(hook),
            profile: ctx.profile,
            owner: ctx.owner,
            limiter: ctx.limiter.clone(),
            abort: ctx.abort.clone(),
            start_permission: ctx.start_permission.clone(),
            deadline,
            timeout,
            idle: ctx.persistent_idle,
            watch: watch.cloned(),
            turn: Arc::new(SharedTurn::default()),
            reply,
            in_flight: None,
            since: Instant::now(),
        };
        (job, answer)
    }
}

/// The input as one line: serialized JSON holds no raw newline except between tokens (the
/// runner's is compact, with one at its end), so dropping every `\r` and `\n` and ending it
/// with one `\n` keeps the JSON the same.
pub(super) fn one_line(input: &[u8]) -> Arc<[u8]> {
    let mut line: Vec<u8> = input
        .iter()
        .copied()
        .filter(|&b| b != b'\n' && b != b'\r')
        .collect();
    line.push(b'\n');
    line.into()
}

/// `line` (one JSON object ending in `}\n`) with the runtime's `"hookEventId":"<id>"` as its
/// last field. The id is the runtime's whatever the event holds: a caller's own top-level
/// `hookEventId` is replaced (the line is then rewritten, keeping the other fields in order),
/// and the text `hookEventId` anywhere else (a tool argument, a nested key) is content, left as
/// it is. A line that is not a JSON object is left unchanged.
pub(super) fn with_event_id(line: &[u8], id: &str) -> Arc<[u8]> {
    let Some(body) = line.strip_suffix(b"}\n") else {
        return line.into();
    };
    let field = format!("\"{EVENT_ID_FIELD}\"");
    if line.windows(field.len()).any(|w| w == field.as_bytes()) {
        // Rare: parsed only when the text appears, to tell a top-level field from content.
        if let Ok(mut object) =
            serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(line)
        {
            if object.shift_remove(EVENT_ID_FIELD).is_some() {
                object.insert(EVENT_ID_FIELD.to_owned(), id.into());
                let mut out = serde_json::to_vec(&object).unwrap_or_default();
                out.push(b'\n');
                return out.into();
            }
        }
    }
    let empty = body.iter().rev().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let mut out = Vec::with_capacity(line.len() + field.len() + id.len() + 8);
    out.extend_from_slice(body);
    if !empty {
        out.push(b',');
    }
    out.extend_from_slice(format!("{field}:\"{id}\"}}\n").as_bytes());
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_event_line_carries_its_id_as_its_last_field() {
        let line = with_event_id(b"{\"a\":1}\n", "7");
        assert_eq!(&line[..], b"{\"a\":1,\"hookEventId\":\"7\"}\n");
        let value: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["hookEventId"], "7");
        assert_eq!(
            &with_event_id(b"{}\n", "1")[..],
            b"{\"hookEventId\":\"1\"}\n"
        );
    }

    #[test]
    fn the_id_is_the_runtimes_whatever_the_event_holds() {
        // A caller's own top-level field is replaced, the other fields kept in order.
        let own = b"{\"hookEventId\":\"mine\",\"a\":1}\n";
        assert_eq!(
            &with_event_id(own, "2")[..],
            b"{\"a\":1,\"hookEventId\":\"2\"}\n"
        );
        // The word in content is content: the runtime's id is still added.
        let content = b"{\"tool\":{\"regex\":\"\\\"hookEventId\\\"\",\"hookEventId\":\"9\"}}\n";
        let line = with_event_id(content, "3");
        let value: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["hookEventId"], "3");
        assert_eq!(value["tool"]["hookEventId"], "9");
    }

    #[test]
    fn the_event_is_one_line_of_the_same_json() {
        let pretty = b"{\n  \"a\": \"x y\",\r\n  \"b\": [1,\n 2]\n}\n";
        let line = one_line(pretty);
        assert_eq!(&line[..], b"{  \"a\": \"x y\",  \"b\": [1, 2]}\n");
        let value: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["b"][1], 2);
        assert_eq!(&one_line(b"{}")[..], b"{}\n");
    }

    #[test]
    fn only_one_side_takes_a_queued_turn() {
        let turn = SharedTurn::default();
        assert!(turn.leave_queue(Turn::Taken));
        assert!(!turn.leave_queue(Turn::GivenUp));
    }
}
