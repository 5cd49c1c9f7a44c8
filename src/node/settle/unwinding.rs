//! A panic in a runtime future, caught: the `Unwinding` wrapper hands it back as a value, and
//! `panic_text` says what it was, so the promise rejects instead of the host aborting.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

/// `work`, with a panic while polling it caught and handed back as its payload.
pub(super) struct Unwinding<W> {
    pub(super) work: Pin<Box<W>>,
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

pub(super) fn panic_text(payload: Panic) -> String {
    cline_hooks_core::error::panic_message(payload.as_ref())
        .unwrap_or("a panic")
        .to_owned()
}
