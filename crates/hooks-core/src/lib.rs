//! The hook runtime. Plain Rust: nothing here knows about Node.
//!
//! A call flows one way: [`factory`] hands out an [`event`] runner from a [`discovery`]
//! snapshot; the runner completes the event's input and starts each hook ([`launch`] gives
//! its argv, [`process`] drives it as a process tree until its deadline); [`verdict`] reads
//! what each hook printed and combines the verdicts.

#![deny(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod discovery;
pub mod error;
pub mod event;
pub mod factory;
pub mod launch;
pub mod process;
pub mod verdict;
