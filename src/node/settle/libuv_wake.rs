//! The wake handle on hosts whose file implementing Node-API also exports libuv (Node's does
//! on macOS and Linux): libuv's async handle on the JavaScript thread's loop, found by
//! `dlsym`/`dladdr`, and signalled outside every lock.

use std::ffi::c_void;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::sys;

use super::{drain, forget, lock, Channel};

/// `UV_ASYNC` in libuv's `uv_handle_type`, stable across libuv 1.x.
const UV_ASYNC: i32 = 1;

type Callback = unsafe extern "C" fn(handle: *mut c_void);
type HandleSize = unsafe extern "C" fn(kind: i32) -> usize;
type AsyncInit = unsafe extern "C" fn(lp: *mut c_void, handle: *mut c_void, cb: Callback) -> i32;
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
            handle_size: std::mem::transmute::<*mut c_void, HandleSize>(symbol(c"uv_handle_size")?),
            async_init: std::mem::transmute::<*mut c_void, AsyncInit>(symbol(c"uv_async_init")?),
            async_send: std::mem::transmute::<*mut c_void, AsyncSend>(symbol(c"uv_async_send")?),
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
        if sys::napi_add_async_cleanup_hook(raw, Some(on_teardown), handle, &mut (*state).cleanup)
            != sys::Status::napi_ok
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
unsafe extern "C" fn on_teardown(_hook: sys::napi_async_cleanup_hook_handle, handle: *mut c_void) {
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
