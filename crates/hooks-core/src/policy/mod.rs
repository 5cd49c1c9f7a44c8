//! Which hooks may run: the user's policy store (approved fingerprints and disabled hooks, a
//! JSON file outside any workspace), the trust scope that decides which hooks need approval,
//! and the fingerprints (sha256 of a hook file's bytes) that approvals are checked against,
//! at discovery and again on the bytes that are started.

mod access;
mod decisions;
mod enforce;
mod fingerprint;
mod paths;
mod policy_file;
mod store;
mod trust;

pub use access::*;
pub use decisions::*;
pub use enforce::*;
pub use fingerprint::*;
pub use paths::*;
pub use policy_file::*;
pub use store::*;
pub use trust::*;
