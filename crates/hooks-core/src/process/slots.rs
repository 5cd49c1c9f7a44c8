//! A run's process slots (the semaphore of `maxConcurrentHooks`) as hooks wait for them. A
//! live persistent process holds a slot for its whole life, idle and retiring included, so the
//! cap counts every live hook process; a hook that has to wait for a slot asks the idle
//! persistent processes holding that limiter's slots to retire and give theirs back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use tokio::sync::{AcquireError, Notify, OwnedSemaphorePermit, Semaphore};

/// How often a waiting hook asks again (an idle process that was busy when first asked).
const ASK_AGAIN: Duration = Duration::from_millis(25);

/// Limiters (by address) that hooks are waiting for, and how many hooks wait.
fn wanted() -> MutexGuard<'static, HashMap<usize, usize>> {
    static WANTED: OnceLock<Mutex<HashMap<usize, usize>>> = OnceLock::new();
    WANTED
        .get_or_init(Mutex::default)
        .lock()
        // Single increments and removes: a poisoned lock still holds a consistent map.
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn asked() -> &'static Notify {
    static ASKED: OnceLock<Notify> = OnceLock::new();
    ASKED.get_or_init(Notify::new)
}

fn address(limiter: &Arc<Semaphore>) -> usize {
    Arc::as_ptr(limiter) as usize
}

/// One hook waiting for a slot of a limiter; counted while it lives. The waiter holds the
/// limiter, so its address is not reused meanwhile.
struct Waiting(usize);

impl Waiting {
    fn new(limiter: &Arc<Semaphore>) -> Waiting {
        let key = address(limiter);
        *wanted().entry(key).or_default() += 1;
        Waiting(key)
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let mut wanted = wanted();
        if let Some(count) = wanted.get_mut(&self.0) {
            *count -= 1;
            if *count == 0 {
                wanted.remove(&self.0);
            }
        }
    }
}

/// A slot of `limiter`: at once when one is free; else, while waiting, idle persistent
/// processes holding its slots are asked to retire. Cancel-safe.
pub(crate) async fn acquire(
    limiter: &Arc<Semaphore>,
) -> Result<OwnedSemaphorePermit, AcquireError> {
    if let Ok(permit) = limiter.clone().try_acquire_owned() {
        return Ok(permit);
    }
    let _waiting = Waiting::new(limiter);
    let permit = limiter.clone().acquire_owned();
    tokio::pin!(permit);
    loop {
        asked().notify_waiters();
        tokio::select! {
            biased;
            permit = &mut permit => return permit,
            _ = tokio::time::sleep(ASK_AGAIN) => {}
        }
    }
}

/// Resolves when a hook waits for a slot of `limiter`: an idle persistent process holding one
/// retires then. Cancel-safe.
pub(crate) async fn asked_for(limiter: &Arc<Semaphore>) {
    let key = address(limiter);
    loop {
        let notified = asked().notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if wanted().contains_key(&key) {
            return;
        }
        notified.await;
    }
}

/// Default limit on hook processes running at once per limiter: 8 per core, at least 8.
pub fn default_process_limit() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get() * 8)
        .unwrap_or(8)
        .max(8)
}

/// A limiter of `max_processes` hook processes at once: at least one (zero would run
/// nothing, every hook waiting out its deadline for a slot) and at most what a semaphore holds.
pub fn limiter(max_processes: usize) -> Arc<Semaphore> {
    Arc::new(Semaphore::new(
        max_processes.clamp(1, Semaphore::MAX_PERMITS),
    ))
}

/// The limiter shared by every call that sets no limit of its own.
pub fn shared_limiter() -> Arc<Semaphore> {
    static SHARED: std::sync::OnceLock<Arc<Semaphore>> = std::sync::OnceLock::new();
    SHARED
        .get_or_init(|| limiter(default_process_limit()))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_waiting_hook_asks_the_holders_of_its_limiter_only() {
        let limiter = Arc::new(Semaphore::new(1));
        let other = Arc::new(Semaphore::new(1));
        let held = acquire(&limiter).await.unwrap();
        let holder = {
            let limiter = limiter.clone();
            tokio::spawn(async move {
                asked_for(&limiter).await;
                drop(held);
            })
        };
        let bystander = {
            let other = other.clone();
            tokio::spawn(async move { asked_for(&other).await })
        };
        let permit = tokio::time::timeout(Duration::from_secs(10), acquire(&limiter))
            .await
            .expect("the holder gave its slot back");
        assert!(permit.is_ok());
        holder.await.unwrap();
        assert!(!bystander.is_finished());
        bystander.abort();
        assert!(!wanted().contains_key(&address(&limiter)));
    }
}
