//! All the hooks of one event: the input they are given and the runner that starts them,
//! in parallel, and combines what they said.

mod batch_runs;
mod input;
mod required;
mod runner;
mod tool_match;

pub use input::*;
pub use required::*;
pub use runner::*;
pub use tool_match::*;

/// The token type of [`RunSettings::abort`], so that an embedder needs no `tokio-util` of its own.
pub use tokio_util::sync::CancellationToken;
