//! A live event (`onEvent`) on its way from the runtime to the JavaScript thread, where it
//! travels the settlement queue ahead of its run's result: its JSON text, the bound on the
//! bytes of lines queued, and the call of `onEvent` once it arrives.

use std::sync::atomic::{AtomicUsize, Ordering};

use napi::bindgen_prelude::*;
use napi::sys;

use crate::node::errors::take_exception;
use crate::node::results;

/// A run's `onEvent`, held by its pending promise on the JavaScript thread.
pub type Callback = FunctionRef<(), ()>;

/// Line events queued for the JavaScript thread at most, in bytes, all runs together: a thread
/// that falls this far behind gets each hook's lines cut short (a `truncated` line), never a
/// `start`, `slow` or `end` dropped.
const QUEUED_LINES_LIMIT: usize = 16 << 20;

/// Bytes of line events queued now.
static QUEUED_LINES: AtomicUsize = AtomicUsize::new(0);

/// Bytes counted in [`QUEUED_LINES`] for one event, given back when it is delivered or
/// dropped.
pub struct Reserved(usize);

impl Reserved {
    /// Counts `bytes` of a line event, unless the queue is over its limit (`always`: the one
    /// truncated line that ends a hook's lines goes anyway: a hook cut short must say so).
    pub fn take(bytes: usize, always: bool) -> Option<Reserved> {
        let queued = QUEUED_LINES.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if bytes > 0 && queued > QUEUED_LINES_LIMIT && !always {
            QUEUED_LINES.fetch_sub(bytes, Ordering::Relaxed);
            return None;
        }
        Some(Reserved(bytes))
    }
}

/// One event on its way to JavaScript, as JSON text.
pub struct Event {
    text: String,
    ascii: bool,
    /// What it counts in [`QUEUED_LINES`], given back when it is delivered or dropped.
    counted: usize,
}

impl Event {
    /// The event `text` (JSON), holding `reserved`.
    pub fn new(text: String, reserved: Reserved) -> Event {
        let counted = reserved.0;
        std::mem::forget(reserved);
        Event {
            ascii: text.is_ascii(),
            text,
            counted,
        }
    }
}

impl Drop for Reserved {
    fn drop(&mut self) {
        if self.0 > 0 {
            QUEUED_LINES.fetch_sub(self.0, Ordering::Relaxed);
        }
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if self.counted > 0 {
            QUEUED_LINES.fetch_sub(self.counted, Ordering::Relaxed);
        }
    }
}

/// Calls `observer` with `event` (on the JavaScript thread). What it throws is dropped: it
/// must not reach the host as an uncaught exception, nor stop the run's other events.
pub fn call(env: &Env, observer: sys::napi_value, event: Event) {
    let Ok(object) = results::object_from_json(env, &event.text, event.ascii) else {
        let _ = take_exception(env);
        return;
    };
    drop(event);
    let mut undefined = std::ptr::null_mut();
    let mut returned = std::ptr::null_mut();
    // Safety: plain napi calls on this thread's env; `observer` is a function of this scope.
    unsafe {
        sys::napi_get_undefined(env.raw(), &mut undefined);
        sys::napi_call_function(env.raw(), undefined, observer, 1, &object, &mut returned);
    }
    let _ = take_exception(env);
}
