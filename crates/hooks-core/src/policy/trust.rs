//! Trust's terms: which hooks must be approved before they run ([`TrustScope`]), where a hook
//! stands with the user's approvals ([`TrustState`]), and the reasons a hook refused by the
//! user's policy is listed disabled with. Pure; enforce.rs applies them to discovered hooks.

use crate::discovery::Source;

/// Which hooks must be approved before they run (`DiscoveryOptions.trust`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TrustScope {
    /// None: today's behaviour.
    #[default]
    Off,
    /// The hooks of workspace roots: the ones a cloned repository brings.
    Workspace,
    /// Every hook but the managed ones.
    All,
}

impl TrustScope {
    /// Its name in the API: `off`, `workspace` or `all`.
    pub fn as_str(self) -> &'static str {
        match self {
            TrustScope::Off => "off",
            TrustScope::Workspace => "workspace",
            TrustScope::All => "all",
        }
    }

    /// The scope named `name`, if there is one.
    pub fn parse(name: &str) -> Option<TrustScope> {
        match name {
            "off" => Some(TrustScope::Off),
            "workspace" => Some(TrustScope::Workspace),
            "all" => Some(TrustScope::All),
            _ => None,
        }
    }

    /// Whether a hook found in a folder of `source` must be approved.
    pub fn covers(self, source: Source) -> bool {
        match (self, source) {
            (TrustScope::Off, _) => false,
            (TrustScope::Workspace, source) => source.is_workspace(),
            (TrustScope::All, source) => policy_applies(source),
        }
    }
}

/// Where a hook stands with the user's approvals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrustState {
    /// Its folder is outside the trust scope (or trust is off).
    #[default]
    NotRequired,
    /// Its path is approved with the digest its bytes have.
    Approved,
    /// Its path was never approved.
    New,
    /// Its path was approved with other bytes: it changed since.
    Changed,
}

impl TrustState {
    /// Its name in the API: `notRequired`, `approved`, `new` or `changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            TrustState::NotRequired => "notRequired",
            TrustState::Approved => "approved",
            TrustState::New => "new",
            TrustState::Changed => "changed",
        }
    }

    /// The reason a hook in this state is listed disabled, if it is.
    pub fn refusal(self) -> Option<&'static str> {
        match self {
            TrustState::New => Some(NOT_TRUSTED_NEW),
            TrustState::Changed => Some(NOT_TRUSTED_CHANGED),
            TrustState::NotRequired | TrustState::Approved => None,
        }
    }
}

/// The reason of a hook never approved.
pub const NOT_TRUSTED_NEW: &str = "not trusted: new";
/// The reason of a hook whose bytes are not the ones approved.
pub const NOT_TRUSTED_CHANGED: &str = "not trusted: changed since approved";
/// The reason of a hook the user disabled.
pub const DISABLED: &str = "disabled";

/// Whether the user's store (approvals, disabled state) has a say over hooks of `source`:
/// everywhere but the managed folder, whose hooks every user runs.
pub fn policy_applies(source: Source) -> bool {
    match source {
        Source::Extra
        | Source::Global
        | Source::Workspace
        | Source::ClaudeUser
        | Source::ClaudeProject
        | Source::ClaudeLocal => true,
        Source::Managed => false,
    }
}

/// Where `sha256` (the hook's bytes now; `None` if they could not be read) stands with the
/// digest `approved` for its path.
pub fn trust_state(approved: Option<&str>, sha256: Option<&str>) -> TrustState {
    match (approved, sha256) {
        (None, _) => TrustState::New,
        (Some(approved), Some(now)) if approved == now => TrustState::Approved,
        (Some(_), _) => TrustState::Changed,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Two digests (the SHA-256 of two different files).
    pub(in crate::policy) const A: &str =
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    pub(in crate::policy) const B: &str =
        "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";

    #[test]
    fn the_state_compares_the_approved_digest_with_the_bytes_now() {
        assert_eq!(trust_state(None, Some(A)), TrustState::New);
        assert_eq!(trust_state(Some(A), Some(A)), TrustState::Approved);
        assert_eq!(trust_state(Some(A), Some(B)), TrustState::Changed);
        assert_eq!(trust_state(Some(A), None), TrustState::Changed);
        assert_eq!(trust_state(None, None), TrustState::New);
    }
}
