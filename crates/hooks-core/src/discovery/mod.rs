//! Which folders hold hooks, which of their files are hooks, and in what order.
//!
//! [`hook_dirs`] names the folders of a [`Layout`]; a [`Scanner`] reads them into
//! [`Listing`]s (the entries named like the hooks asked for, each with its argv resolved);
//! [`discover`] picks the hooks of one name from listings without a system call; [`resolve`]
//! turns a hook or CLI event name into the name hook files carry.

mod claude_settings_hooks;
mod claude_settings_scan;
mod discovered;
mod folders;
mod header;
mod hook_files;
mod inspect;
mod listing;
mod managed;
mod managed_scan;
mod names;
mod run_order;
mod sandbox_choice;
mod scan;
mod source;
mod tool_names;
pub mod watch;

pub use claude_settings_hooks::*;
pub use claude_settings_scan::*;
pub use discovered::*;
pub use folders::*;
pub use header::*;
pub use hook_files::*;
pub use inspect::*;
pub use listing::*;
pub use managed::*;
pub use names::*;
pub use run_order::*;
pub use sandbox_choice::*;
pub use scan::*;
pub use source::*;
pub use tool_names::*;

/// Test fixtures other modules' tests build listings with.
#[cfg(test)]
pub(crate) use hook_files::tests as fixtures;
