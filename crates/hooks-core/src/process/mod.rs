//! One hook process: start it, feed and read its pipes, enforce its deadline, stop its whole
//! tree; the registry of live trees and the watchdog that stops them if the host dies.

mod hook_process;
mod registry;
mod tree;
mod watchdog;

pub use hook_process::*;
pub use registry::*;
pub use tree::*;
pub use watchdog::*;
