//! Which folders hold hooks, which of their files are hooks, and in what order.

mod discover;
mod names;

pub use discover::*;
pub use names::*;
