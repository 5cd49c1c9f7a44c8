//! The hook runtime. Plain Rust: nothing here knows about Node.
//!
//! A call flows one way: `factory` (cached `discover`y, `name` checks) hands out a `runner`,
//! which completes the `input`, starts each hook as a process tree (`launch`, `tree`, `run`,
//! tracked by `running`, and by the `watchdog` should the host die), reads each verdict as its
//! stdout streams (`stdout`: `encoding`, `locate`, `lenient`; then `output`) and folds them (`combine`).

pub mod combine;
pub mod discover;
pub mod encoding;
pub mod error;
pub mod factory;
pub mod input;
pub mod launch;
pub mod lenient;
pub mod locate;
pub mod name;
pub mod output;
pub mod run;
pub mod runner;
pub mod running;
pub mod stdout;
pub mod tree;
pub mod watchdog;
