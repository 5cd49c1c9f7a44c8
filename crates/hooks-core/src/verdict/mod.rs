//! What a hook said: its stdout read as it streams, the final JSON object found and its
//! verdict fields checked, and many hooks' verdicts combined into one, failures counted as
//! a cancel where the failure policy says so.

mod block_spotter;
mod combine;
mod encoding;
mod failure_policy;
mod fields;
mod js_space;
mod lenient;
mod locate;
mod on_failure;
mod stream;

pub use block_spotter::*;
pub use combine::*;
pub use encoding::*;
pub use failure_policy::*;
pub use fields::*;
pub use js_space::*;
pub use lenient::*;
pub use locate::*;
pub use on_failure::*;
pub use stream::*;
