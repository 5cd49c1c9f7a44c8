//! The wake handle on other hosts: napi's thread-safe function, whose call signals the
//! JavaScript thread under the lock that thread then needs.

use std::ffi::c_void;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::sys;

use super::{drain, forget, lock, Channel};

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
