//! Core futures and results -> JavaScript promises. Runtime threads queue what they settle and
//! wake the JavaScript thread through one handle made once per thread: a settled run costs it
//! one wake-up (several settled together share one), and the thread it wakes never waits for
//! a lock the waking thread still holds. The handle is libuv's async handle where the file
//! that implements Node-API also exports libuv (Node's does on macOS and Linux), else napi's
//! thread-safe function, whose call signals the JavaScript thread under the lock that thread
//! then needs.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use napi::bindgen_prelude::*;
use napi::sys;

use crate::node::errors;
use crate::node::signal::Listener;
use cline_hooks_core::error::HookError;

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
    let mut deferred = std::ptr::null_mut();
    let mut promise = std::ptr::null_mut();
    // Safety: a plain napi call on this thread's env with valid out-pointers.
    check_status!(unsafe { sys::napi_create_promise(env.raw(), &mut deferred, &mut promise) })?;
    let (id, channel) = register(env, deferred, listener)?;
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

/// What crosses from the runtime to the JavaScript thread for one future.
struct Settlement {
    id: u64,
    outcome: std::result::Result<Build, HookError>,
}

/// A promise waiting for its future, known only to the JavaScript thread.
struct Pending {
    deferred: sys::napi_deferred,
    listener: Option<Listener>,
}

/// Settlements on their way to one JavaScript thread, and how to wake it: `None` once its
/// environment is gone, after which nothing is queued or woken.
struct Channel {
    queue: Mutex<Vec<Settlement>>,
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
        settler.pending.insert(id, Pending { deferred, listener });
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
        let wake = match uv::api().and_then(|api| uv::start(env, api, channel.clone())) {
            Some(handle) => Wake::Uv(handle),
            None => Wake::Tsfn(tsfn::start(env, channel.clone())?),
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
            Wake::Uv(handle) => uv::keep_alive(handle, on),
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
            Settlement {
                id: self.id,
                outcome,
            },
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
            deliver(&self.channel, settlement);
        }
    }
}

fn deliver(channel: &Channel, settlement: Settlement) {
    let wake = lock(&channel.wake);
    let Some(handle) = *wake else {
        // The environment is gone: nobody is left to settle for.
        return;
    };
    // Queued first, and that lock let go before the signal: the thread woken must not find
    // it still held.
    lock(&channel.queue).push(settlement);
    match handle {
        Wake::Uv(handle) => uv::signal(handle),
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
    for settlement in settled {
        // Nothing may unwind into Node; one settlement's failure must not strand the rest.
        let _ = catch_unwind(AssertUnwindSafe(|| settle(env, settlement)));
    }
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
    let Some(Pending { deferred, listener }) = taken else {
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
            // Safety: this thread's env.
            None => unsafe { napi::JsError::from(err).into_value(env.raw()) },
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

/// The wake handle on hosts that export libuv: signalled outside every lock.
mod uv {
    use super::*;

    /// `UV_ASYNC` in libuv's `uv_handle_type`, stable across libuv 1.x.
    const UV_ASYNC: i32 = 1;

    type Callback = unsafe extern "C" fn(handle: *mut c_void);
    type HandleSize = unsafe extern "C" fn(kind: i32) -> usize;
    type AsyncInit =
        unsafe extern "C" fn(lp: *mut c_void, handle: *mut c_void, cb: Callback) -> i32;
    type AsyncSend = unsafe extern "C" fn(handle: *mut c_void) -> i32;
    type Close = unsafe extern "C" fn(handle: *mut c_void, cb: Callback);
    type Ref = unsafe extern "C" fn(handle: *mut c_void);

    /// The libuv functions used, looked up in the host process.
    pub struct Api {
        handle_size: HandleSize,
        async_init: AsyncInit,
        async_send: AsyncSend,
        close: Close,
        uv_ref: Ref,
        uv_unref: Ref,
    }

    /// Where the callbacks find their way back: the handle's `data` (libuv's first field of
    /// every handle) points here.
    struct State {
        env: sys::napi_env,
        /// The resource and async context the callback scope runs in.
        resource: sys::napi_ref,
        context: sys::napi_async_context,
        channel: Arc<Channel>,
        cleanup: sys::napi_async_cleanup_hook_handle,
        layout: std::alloc::Layout,
    }

    /// The host's libuv, if the file that implements Node-API exports it.
    pub fn api() -> Option<&'static Api> {
        static API: std::sync::OnceLock<Option<Api>> = std::sync::OnceLock::new();
        API.get_or_init(find).as_ref()
    }

    #[cfg(unix)]
    fn find() -> Option<Api> {
        /// The file a symbol of the process comes from.
        fn home(address: *mut c_void) -> Option<*mut c_void> {
            // Safety: `dladdr` only reads the loader's tables; `info` is a plain out-struct.
            let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
            let found = unsafe { libc::dladdr(address.cast_const(), &mut info) };
            (found != 0 && !info.dli_fbase.is_null()).then_some(info.dli_fbase)
        }
        // libuv's functions must come from the file that implements Node-API, the host's own
        // Node: another copy of libuv in the process would not know the host's loop.
        let lookup = |name: &std::ffi::CStr| -> Option<*mut c_void> {
            // Safety: a lookup in the process's global symbols; nothing is called.
            let found = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
            (!found.is_null()).then_some(found)
        };
        let node = home(lookup(c"napi_create_threadsafe_function")?)?;
        let symbol = |name: &std::ffi::CStr| -> Option<*mut c_void> {
            let found = lookup(name)?;
            (home(found)? == node).then_some(found)
        };
        // Safety: each symbol is the libuv 1.x function of that name, with this signature.
        unsafe {
            Some(Api {
                handle_size: std::mem::transmute::<*mut c_void, HandleSize>(symbol(
                    c"uv_handle_size",
                )?),
                async_init: std::mem::transmute::<*mut c_void, AsyncInit>(symbol(
                    c"uv_async_init",
                )?),
                async_send: std::mem::transmute::<*mut c_void, AsyncSend>(symbol(
                    c"uv_async_send",
                )?),
                close: std::mem::transmute::<*mut c_void, Close>(symbol(c"uv_close")?),
                uv_ref: std::mem::transmute::<*mut c_void, Ref>(symbol(c"uv_ref")?),
                uv_unref: std::mem::transmute::<*mut c_void, Ref>(symbol(c"uv_unref")?),
            })
        }
    }

    #[cfg(not(unix))]
    fn find() -> Option<Api> {
        None
    }

    /// An async handle on `env`'s loop that drains `channel`, closed when `env` is torn
    /// down; `None` when any step fails (the caller falls back to a thread-safe function).
    pub fn start(env: &Env, api: &'static Api, channel: Arc<Channel>) -> Option<*mut c_void> {
        let raw = env.raw();
        // Safety: plain napi and libuv calls on this thread's env and loop; every pointer
        // passed is valid, and the handle is only used after `async_init` succeeded.
        unsafe {
            let mut lp = std::ptr::null_mut();
            if sys::napi_get_uv_event_loop(raw, &mut lp) != sys::Status::napi_ok || lp.is_null() {
                return None;
            }
            let layout = std::alloc::Layout::from_size_align((api.handle_size)(UV_ASYNC), 16)
                .ok()
                .filter(|l| l.size() >= std::mem::size_of::<*mut c_void>())?;
            let resource = Object::new(env).ok()?;
            let name = env.create_string("@cline/hooks settle").ok()?;
            let mut reference = std::ptr::null_mut();
            if sys::napi_create_reference(raw, resource.raw(), 1, &mut reference)
                != sys::Status::napi_ok
            {
                return None;
            }
            let mut context = std::ptr::null_mut();
            if sys::napi_async_init(raw, resource.raw(), name.raw(), &mut context)
                != sys::Status::napi_ok
            {
                sys::napi_delete_reference(raw, reference);
                return None;
            }
            let handle = std::alloc::alloc_zeroed(layout).cast::<c_void>();
            if handle.is_null() {
                sys::napi_async_destroy(raw, context);
                sys::napi_delete_reference(raw, reference);
                return None;
            }
            if (api.async_init)(lp.cast(), handle, on_signal) != 0 {
                std::alloc::dealloc(handle.cast(), layout);
                sys::napi_async_destroy(raw, context);
                sys::napi_delete_reference(raw, reference);
                return None;
            }
            let state = Box::into_raw(Box::new(State {
                env: raw,
                resource: reference,
                context,
                channel,
                cleanup: std::ptr::null_mut(),
                layout,
            }));
            *handle.cast::<*mut State>() = state;
            // Node waits for this hook (it closes the handle) before it closes the loop.
            if sys::napi_add_async_cleanup_hook(
                raw,
                Some(on_teardown),
                handle,
                &mut (*state).cleanup,
            ) != sys::Status::napi_ok
            {
                // The handle exists now; it must be closed, not freed.
                (api.close)(handle, on_closed);
                return None;
            }
            Some(handle)
        }
    }

    pub fn signal(handle: *mut c_void) {
        if let Some(api) = api() {
            // Safety: `deliver` holds the lock under which the handle is known open.
            unsafe { (api.async_send)(handle) };
        }
    }

    pub fn keep_alive(handle: *mut c_void, on: bool) {
        if let Some(api) = api() {
            // Safety: the JavaScript thread's own open handle.
            unsafe {
                if on {
                    (api.uv_ref)(handle);
                } else {
                    (api.uv_unref)(handle);
                }
            }
        }
    }

    /// libuv's callback on the JavaScript thread: settles what is queued inside a callback
    /// scope, so promise jobs and `process.nextTick`s run when it ends, as after any I/O.
    unsafe extern "C" fn on_signal(handle: *mut c_void) {
        // Safety: `data` was set to the state before the handle could be signalled, and the
        // state lives until the handle is closed.
        let state = unsafe { &**handle.cast::<*const State>() };
        let env = state.env;
        // Safety: napi calls on the JavaScript thread, in the scopes opened here.
        unsafe {
            let mut handles = std::ptr::null_mut();
            if sys::napi_open_handle_scope(env, &mut handles) != sys::Status::napi_ok {
                return;
            }
            let mut resource = std::ptr::null_mut();
            sys::napi_get_reference_value(env, state.resource, &mut resource);
            let mut scope = std::ptr::null_mut();
            let opened = !resource.is_null()
                && sys::napi_open_callback_scope(env, resource, state.context, &mut scope)
                    == sys::Status::napi_ok;
            drain(&Env::from_raw(env), &state.channel);
            if opened {
                sys::napi_close_callback_scope(env, scope);
            }
            sys::napi_close_handle_scope(env, handles);
        }
    }

    /// The environment is being torn down: no more signals, then the handle closes.
    unsafe extern "C" fn on_teardown(
        _hook: sys::napi_async_cleanup_hook_handle,
        handle: *mut c_void,
    ) {
        // Safety: as in `on_signal`.
        let state = unsafe { &**handle.cast::<*const State>() };
        *lock(&state.channel.wake) = None;
        forget(&state.channel);
        if let Some(api) = api() {
            // Safety: the handle is open; `on_closed` frees it.
            unsafe { (api.close)(handle, on_closed) };
        }
    }

    unsafe extern "C" fn on_closed(handle: *mut c_void) {
        // Safety: the state was boxed in `start` and is freed here once, with the handle.
        unsafe {
            let state = Box::from_raw(*handle.cast::<*mut State>());
            std::alloc::dealloc(handle.cast(), state.layout);
            if !state.cleanup.is_null() {
                sys::napi_remove_async_cleanup_hook(state.cleanup);
            }
        }
    }
}

/// The wake handle elsewhere: napi's thread-safe function.
mod tsfn {
    use super::*;

    pub fn start(env: &Env, channel: Arc<Channel>) -> Result<sys::napi_threadsafe_function> {
        let name = env.create_string("@cline/hooks settle")?;
        let finalize_data = Arc::into_raw(channel) as *mut c_void;
        let mut tsfn = std::ptr::null_mut();
        // Safety: a plain napi call on this thread's env; `finalize_data` is an `Arc` that
        // `finalized` takes back, and the context is that same channel.
        let status = unsafe {
            sys::napi_create_threadsafe_function(
                env.raw(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                name.raw(),
                0,
                1,
                finalize_data,
                Some(finalized),
                finalize_data,
                Some(call_js),
                &mut tsfn,
            )
        };
        if status != sys::Status::napi_ok {
            // Safety: not handed to Node, so still ours.
            drop(unsafe { Arc::from_raw(finalize_data as *const Channel) });
            return Err(Error::new(
                Status::from(status),
                "could not create the thread-safe function",
            ));
        }
        Ok(tsfn)
    }

    /// Node's call on the JavaScript thread (inside a callback scope); with a null env when
    /// the environment is being torn down and its queue is only being emptied.
    unsafe extern "C" fn call_js(
        env: sys::napi_env,
        _callback: sys::napi_value,
        context: *mut c_void,
        _data: *mut c_void,
    ) {
        if env.is_null() || context.is_null() {
            return;
        }
        // Safety: the context is the channel, alive until `finalized`.
        let channel = unsafe { &*(context as *const Channel) };
        drain(&Env::from_raw(env), channel);
    }

    /// Finalizer of the thread-safe function: from here on nothing signals it.
    unsafe extern "C" fn finalized(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
        // Safety: `data` is the `Arc` given at creation, handed back once.
        let channel = unsafe { Arc::from_raw(data as *const Channel) };
        *lock(&channel.wake) = None;
        forget(&channel);
    }
}

/// `work`, with a panic while polling it caught and handed back as its payload.
struct Unwinding<W> {
    work: Pin<Box<W>>,
}

type Panic = Box<dyn std::any::Any + Send>;

impl<W: Future> Future for Unwinding<W> {
    type Output = std::result::Result<W::Output, Panic>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let work = self.work.as_mut();
        match catch_unwind(AssertUnwindSafe(|| work.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

fn panic_text(payload: Panic) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}
