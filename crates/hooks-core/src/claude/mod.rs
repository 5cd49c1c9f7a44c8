//! Claude Code's hook settings run on this runtime: the `hooks` key of `.claude/settings.json`
//! (and `settings.local.json`, and the user's `~/.claude/settings.json`) read into hooks that
//! discovery lists beside the hook files, Cline's events and tools told in Claude's words on
//! stdin, and Claude's answer (exit code 2, or its JSON) read into the same verdict a hook
//! file's gives. Pure: the files are read and the processes run at the edges (scan.rs, run.rs).

mod batch;
mod batch_fields;
mod events;
mod hook;
mod json_numbers;
mod lists;
mod matcher;
mod missing;
mod output;
mod paths;
mod scripts;
mod sdk_reads;
mod search_replace;
mod settings;
mod tools;
mod updated_input;

pub use batch::*;
pub use events::*;
pub use hook::*;
pub use matcher::*;
pub use missing::*;
pub use output::*;
pub use scripts::*;
pub use settings::*;
pub use tools::*;
pub use updated_input::*;
