//! Conversions between JavaScript and the core. No behaviour lives here.

pub mod decisions;
pub mod describe;
pub mod diagnosis;
pub mod errors;
pub mod events;
pub mod host;
pub mod lifecycle;
pub mod logger;
pub mod options;
pub mod panic_hook;
pub mod properties;
pub mod refresh;
pub mod results;
pub mod runtime;
pub mod settle;
pub mod signal;
pub mod teardown;
