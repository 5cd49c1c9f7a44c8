//! Core futures and results -> JavaScript promises. Runtime threads queue what they settle and
//! wake the JavaScript thread through one handle made once per thread: a settled run costs it
//! one wake-up (several settled together share one), and the thread it wakes never waits for
//! a lock the waking thread still holds. The handle is libuv's async handle where the file
//! that implements Node-API also exports libuv (Node's does on macOS and Linux), else napi's
//! thread-safe function, whose call signals the JavaScript thread under the lock that thread
//! then needs. A run's live events (`onEvent`) travel the same queue, ahead of its
//! settlement (`spawn_observed`, `Poster`). Here: `spawn`/`now`/`reject`, the per-thread
//! `Settler`, the `Channel` between the threads, and `deliver`/`drain`/`settle`; the two
//! handles are `libuv_wake` and `tsfn_wake`, the catching of a future's panic is `unwinding`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

use napi::bindgen_prelude::*;
use napi::sys;

use crate::node::errors;
use crate::node::signal::Listener;
use cline_hooks_core::error::HookError;
pub use live_event::{Callback, Event, Reserved};
use unwinding::{panic_text, Unwinding};

mod libuv_wake;
mod live_event;
mod tsfn_wake;
mod unwinding;

/// Runs `work` on the runtime (a panic in it becomes a rejection, never an abort of the
/// host) and settles the promise on the JavaScript thread with `convert` of its value,
/// removing the abort listener first.
pub fn spawn<'env, T, R, W>(
    env: &'env Env,
    listener: Option<Listener>,
    work: W,
    convert: fn(T) -> R,
) -> Result<PromiseRaw<'env, R>>
where
    T: Send + 'static,
    R: ToNapiValue + 'static,
    W: Future<Output = std::result::Result<T, HookError>> + Send + 'static,
{
    spawn_observed(env, listener, None, |_| work, convert)
}

/// [`spawn`], with `observer` (a run's `onEvent`) called on the JavaScript thread with each
/// event `make_work`'s future posts through the [`Poster`] it is given: in the order posted,
/// all before the promise settles, each through the same wake-up as the settlement.
pub fn spawn_observed<'env, T, R, W>(
    env: &'env Env,
    listener: Option<Listener>,
    observer: Option<Callback>,
    make_work: impl FnOnce(Option<Poster>) -> W,
    convert: fn(T) -> R,
) -> Result<PromiseRaw<'env, R>>
where
    T: Send + 'static,
    R: ToNapiValue + 'static,
    W: Future<Output = std::result::Result<T, HookError>> + Send + 'static,
{
    let mut deferred = std::ptr::null_mut();
    let mut promise = std::ptr::null_mut();
    // Safety: a plain napi call on this thread's env with valid out-pointers.
    check_status!(unsafe { sys::napi_create_promise(env.raw(), &mut deferred, &mut promise) })?;
    let observed = observer.is_some();
    let (id, channel) = register(env, deferred, listener, observer)?;
    let poster = observed.then(|| Poster {
        id,
        channel: channel.clone(),
    });
    let work = make_work(poster);
    let sender = Sender {
        id,
        channel,
        sent: false,
    };
    napi::bindgen_prelude::spawn(async move {
        // The worker woken for this task can land on the JavaScript thread's core, which then
        // waits while the worker prepares the hook's start; letting that thread finish its
        // turn first keeps the wait off the event loop (on 2 cores: 120-300 µs of event-loop
        // time per run without this, 70-120 µs with it).
        std::thread::yield_now();
        let outcome = match (Unwinding {
            work: Box::pin(work),
        })
        .await
        {
            Ok(outcome) => outcome,
            Err(panic) => Err(HookError::Internal(panic_text(panic))),
        };
        sender.send(outcome.map(|value| -> Build {
            // Safety (of the call inside): runs on the JavaScript thread with its env.
            Box::new(move |env: &Env| unsafe { R::to_napi_value(env.raw(), convert(value)) })
        }));
    });
    Ok(PromiseRaw::new(env.raw(), promise))
}

/// A promise settled right away on the JavaScript thread: no thread hop, no system call.
pub fn now<T: ToNapiValue>(
    env: &Env,
    outcome: std::result::Result<T, HookError>,
) -> Result<PromiseRaw<'_, T>> {
    match outcome {
        Ok(value) => PromiseRaw::resolve(env, value),
        Err(err) => reject(env, err.into()),
    }
}

/// A promise rejected right away, with the failure's cause.
pub fn reject<'env, T: ToNapiValue>(
    env: &'env Env,
    failure: errors::Failure,
) -> Result<PromiseRaw<'env, T>> {
    PromiseRaw::reject(env, errors::failure_to_js(env, failure))
}

/// Makes the value to resolve with, on the JavaScript thread.
type Build = Box<dyn FnOnce(&Env) -> Result<sys::napi_value> + Send>;

/// What crosses from the runtime to the JavaScript thread, in order: events of runs and the
/// settlements of their promises.
enum Queued {
    Settlement(Settlement),
    Event(u64, Event),
}

/// Posts the events of one observed run to its JavaScript thread (see [`spawn_observed`]).
pub struct Poster {
    id: u64,
    channel: Arc<Channel>,
}

impl Poster {
    /// Queues `event` and wakes the JavaScript thread; never waits for it.
    pub fn post(&self, event: Event) {
        deliver(&self.channel, Queued::Event(self.id, event));
    }
}

/// What crosses from the runtime to the JavaScript thread for one future.
struct Settlement {
    id: u64,
    outcome: std::result::Result<Build, HookError>,
}

/// A promise waiting for its future, known only to the JavaScript thread.
struct Pending {
    deferred: sys::napi_deferred,
    listener: Option<Listener>,
    /// The run's `onEvent`, if it has one.
    observer: Option<Callback>,
}

/// Settlements on their way to one JavaScript thread, and how to wake it: `None` once its
/// environment is gone, after which nothing is queued or woken.
struct Channel {
    queue: Mutex<Vec<Queued>>,
    wake: Mutex<Option<Wake>>,
}

#[derive(Clone, Copy)]
enum Wake {
    /// A libuv async handle of the JavaScript thread's loop.
    Uv(*mut c_void),
    Tsfn(sys::napi_threadsafe_function),
}

// Safety: both handles are made to be signalled from any thread; `Channel::wake`'s lock keeps
// a signal from racing the handle's closing.
unsafe impl Send for Wake {}

/// The JavaScript thread's half: its wake handle and the promises still pending.
struct Settler {
    channel: Arc<Channel>,
    wake: Wake,
    pending: HashMap<u64, Pending>,
    next_id: u64,
}

thread_local! {
    // One Node environment per JavaScript thread.
    static SETTLER: RefCell<Option<Settler>> = const { RefCell::new(None) };
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while holding these locks; a poisoned one still guards valid data.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Records a pending promise; the wake handle keeps the event loop alive while any is
/// pending, as a promise of Node's own I/O does.
fn register(
    env: &Env,
    deferred: sys::napi_deferred,
    listener: Option<Listener>,
    observer: Option<Callback>,
) -> Result<(u64, Arc<Channel>)> {
    SETTLER.with(|cell| {
        let mut cell = cell.borrow_mut();
        let settler = match &mut *cell {
            Some(settler) => settler,
            empty => empty.insert(Settler::new(env)?),
        };
        if settler.pending.is_empty() {
            settler.wake.keep_alive(env, true);
        }
        let id = settler.next_id;
        settler.next_id += 1;
        settler.pending.insert(
            id,
            Pending {
                deferred,
                listener,
                observer,
            },
        );
        Ok((id, settler.channel.clone()))
    })
}

impl Settler {
    fn new(env: &Env) -> Result<Settler> {
        // Runtime threads run this addon's code after the call returns: keep it loaded.
        napi::bindgen_prelude::retain_current_module_for_unload_safety();
        let channel = Arc::new(Channel {
            queue: Mutex::new(Vec::new()),
            wake: Mutex::new(None),
        });
        let wake =
            match libuv_wake::api().and_then(|api| libuv_wake::start(env, api, channel.clone())) {
                Some(handle) => Wake::Uv(handle),
                None => Wake::Tsfn(tsfn_wake::start(env, channel.clone())?),
            };
        // Idle until a promise is pending.
        wake.keep_alive(env, false);
        *lock(&channel.wake) = Some(wake);
        Ok(Settler {
            channel,
            wake,
            pending: HashMap::new(),
            next_id: 1,
        })
    }
}

impl Wake {
    /// Whether the handle holds the event loop open (JavaScript thread only).
    fn keep_alive(self, env: &Env, on: bool) {
        match self {
            Wake::Uv(handle) => libuv_wake::keep_alive(handle, on),
            // Safety: this thread's env and its own thread-safe function.
            Wake::Tsfn(tsfn) => unsafe {
                if on {
                    sys::napi_ref_threadsafe_function(env.raw(), tsfn);
                } else {
                    sys::napi_unref_threadsafe_function(env.raw(), tsfn);
                }
            },
        };
    }
}

/// Forgets this thread's settler if it is `channel`'s: its environment is going away, and
/// the promises still pending go with it.
fn forget(channel: &Arc<Channel>) {
    let _ = SETTLER.try_with(|cell| {
        if let Ok(mut cell) = cell.try_borrow_mut() {
            if cell
                .as_ref()
                .is_some_and(|s| Arc::ptr_eq(&s.channel, channel))
            {
                *cell = None;
            }
        }
    });
}

/// The runtime's half: settles its promise exactly once, with an error if the future is
/// dropped unfinished (the runtime shutting down).
struct Sender {
    id: u64,
    channel: Arc<Channel>,
    sent: bool,
}

impl Sender {
    fn send(mut self, outcome: std::result::Result<Build, HookError>) {
        self.sent = true;
        deliver(
            &self.channel,
            Queued::Settlement(Settlement {
                id: self.id,
                outcome,
            }),
        );
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        if !self.sent {
            let cancelled = HookError::Internal("the task was cancelled".to_owned());
            let settlement = Settlement {
                id: self.id,
                outcome: Err(cancelled),
            };
            deliver(&self.channel, Queued::Settlement(settlement));
        }
    }
}

fn deliver(channel: &Channel, settlement: Queued) {
    let wake = lock(&channel.wake);
    let Some(handle) = *wake else {
        // The environment is gone: nobody is left to settle for.
        return;
    };
    // Queued first, and that lock let go before the signal: the thread woken must not find
    // it still held.
    lock(&channel.queue).push(settlement);
    match handle {
        Wake::Uv(handle) => libuv_wake::signal(handle),
        // Safety: the thread-safe function is alive while `wake` holds `Some`.
        Wake::Tsfn(tsfn) => unsafe {
            sys::napi_call_threadsafe_function(
                tsfn,
                std::ptr::null_mut(),
                sys::ThreadsafeFunctionCallMode::nonblocking,
            );
        },
    }
}

/// Settles everything queued (on the JavaScript thread, inside a callback scope).
fn drain(env: &Env, channel: &Channel) {
    let settled = std::mem::take(&mut *lock(&channel.queue));
    for queued in settled {
        // Nothing may unwind into Node; one settlement's failure must not strand the rest.
        let _ = catch_unwind(AssertUnwindSafe(|| match queued {
            Queued::Settlement(settlement) => settle(env, settlement),
            Queued::Event(id, event) => {
                if let Some(observer) = observer_of(env, id) {
                    live_event::call(env, observer, event);
                }
            }
        }));
    }
}

/// The `onEvent` of the run pending as `id`, as a value of the current scope: no borrow is
/// held while it runs (it may start another run).
fn observer_of(env: &Env, id: u64) -> Option<sys::napi_value> {
    SETTLER.with(|cell| {
        let cell = cell.borrow();
        let callback = cell.as_ref()?.pending.get(&id)?.observer.as_ref()?;
        callback.borrow_back(env).ok().map(|f| f.raw())
    })
}

fn settle(env: &Env, settlement: Settlement) {
    let taken = SETTLER.with(|cell| {
        let mut cell = cell.borrow_mut();
        let settler = cell.as_mut()?;
        let pending = settler.pending.remove(&settlement.id)?;
        if settler.pending.is_empty() {
            settler.wake.keep_alive(env, false);
        }
        Some(pending)
    });
    let Some(Pending {
        deferred, listener, ..
    }) = taken
    else {
        return;
    };
    // An abort rejects with the signal's reason as `cause`, read before the listener lets
    // go of the signal.
    let mut cause = None;
    if let Some(listener) = listener {
        if matches!(settlement.outcome, Err(HookError::Aborted)) {
            cause = listener.reason(env);
        }
        if listener.remove(env).is_err() {
            // The caller's removeEventListener threw: nothing to undo, but the exception
            // must not stay pending.
            let _ = errors::take_exception(env);
        }
    }
    let settled = match settlement.outcome {
        Ok(build) => build(env).map_err(|err| match errors::take_exception(env) {
            Some(thrown) => thrown.raw(),
            None => {
                let error = errors::to_js(env, &HookError::Internal(err.reason), None);
                // Safety: this thread's env.
                unsafe { napi::JsError::from(error).into_value(env.raw()) }
            }
        }),
        Err(err) => {
            let error = errors::to_js(env, &err, cause);
            // Safety: this thread's env.
            Err(unsafe { napi::JsError::from(error).into_value(env.raw()) })
        }
    };
    // Safety: `deferred` came from `napi_create_promise` on this env and is settled once.
    unsafe {
        match settled {
            Ok(value) => sys::napi_resolve_deferred(env.raw(), deferred, value),
            Err(error) => sys::napi_reject_deferred(env.raw(), deferred, error),
        };
    }
}
