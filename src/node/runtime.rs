//! The runtime the binding's futures run on: napi-rs's multi-threaded tokio runtime, with one
//! change on Linux. A worker waiting for work is `SCHED_BATCH`, so the wake-up a call sends it
//! from the JavaScript thread does not preempt that thread on its own core (the scheduler
//! preempts on wake-up for normal threads only); the worker is a normal thread again the moment
//! it runs, so the hooks it starts inherit the normal policy.

/// Installs the runtime; napi-rs builds its default one if this is not called or fails.
pub fn install() {
    #[cfg(target_os = "linux")]
    {
        let built = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .on_thread_park(|| policy(libc::SCHED_BATCH))
            .on_thread_unpark(|| policy(libc::SCHED_OTHER))
            .build();
        if let Ok(runtime) = built {
            napi::bindgen_prelude::create_custom_tokio_runtime(runtime);
        }
    }
}

/// Sets the calling thread's policy; a refusal (a sandbox's filter) leaves it as it was.
///
/// The system call, not libc's wrapper: musl's `sched_setscheduler` does nothing (it returns
/// ENOSYS by design), and its `sched_param` has more fields than glibc's. The kernel reads only
/// the priority, which is 0 for both policies.
#[cfg(target_os = "linux")]
fn policy(policy: libc::c_int) {
    // Safety: all-zero is a valid `sched_param` in every libc.
    let param: libc::sched_param = unsafe { std::mem::zeroed() };
    // Safety: pid 0 is the calling thread; `param` is valid for the call.
    unsafe { libc::syscall(libc::SYS_sched_setscheduler, 0, policy, &param as *const _) };
}
