//! All the hooks of one event: the input they are given and the runner that starts them,
//! in parallel, and combines what they said.

mod input;
mod runner;

pub use input::*;
pub use runner::*;
