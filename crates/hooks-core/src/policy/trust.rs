//! Which discovered hooks may run under the user's policy: the ones they disabled do not, and,
//! where trust is required, neither do the ones whose exact bytes they have not approved.
//! Pure: applied to hooks and a store already read.

use super::store::Policy;
use crate::discovery::{DiscoveredHook, Source};

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
            (TrustScope::Workspace, source) => source == Source::Workspace,
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
        Source::Extra | Source::Global | Source::Workspace => true,
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

/// Applies `policy` to `hooks`: a hook the user disabled is listed disabled with reason
/// `disabled` (whatever else is true of it), and a hook `scope` covers gets its trust state;
/// one not approved for its current bytes is listed disabled with `not trusted: ...` unless
/// it was already disabled for another reason.
pub fn apply(hooks: &mut [DiscoveredHook], policy: &Policy, scope: TrustScope) {
    // The warm path of a host without a store: nothing to look up.
    if scope == TrustScope::Off && policy.disabled.is_empty() {
        return;
    }
    for hook in hooks {
        if !policy_applies(hook.source) {
            continue;
        }
        if policy.is_disabled(hook.policy_path()) {
            hook.disabled = Some(DISABLED.to_owned());
            hook.command.clear();
        }
        if !scope.covers(hook.source) {
            continue;
        }
        hook.trust = trust_state(policy.approval(hook.policy_path()), hook.sha256.as_deref());
        if let Some(refusal) = hook.trust.refusal() {
            if hook.disabled.is_none() {
                hook.disabled = Some(refusal.to_owned());
                hook.command.clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    const B: &str = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";

    fn hook(path: &str, source: Source, sha256: Option<&str>) -> DiscoveredHook {
        DiscoveredHook {
            source,
            sha256: sha256.map(str::to_owned),
            ..DiscoveredHook::sample(path)
        }
    }

    fn reasons(hooks: &[DiscoveredHook]) -> Vec<(Option<&str>, TrustState)> {
        hooks
            .iter()
            .map(|h| (h.disabled.as_deref(), h.trust))
            .collect()
    }

    #[test]
    fn the_state_compares_the_approved_digest_with_the_bytes_now() {
        assert_eq!(trust_state(None, Some(A)), TrustState::New);
        assert_eq!(trust_state(Some(A), Some(A)), TrustState::Approved);
        assert_eq!(trust_state(Some(A), Some(B)), TrustState::Changed);
        assert_eq!(trust_state(Some(A), None), TrustState::Changed);
        assert_eq!(trust_state(None, None), TrustState::New);
    }

    #[test]
    fn workspace_trust_covers_workspace_hooks_only_and_all_covers_every_user_folder() {
        let mut policy = Policy::default();
        policy.approved.insert("/w/ok".into(), A.into());
        policy.approved.insert("/w/edited".into(), A.into());
        let hooks = || {
            vec![
                hook("/w/ok", Source::Workspace, Some(A)),
                hook("/w/edited", Source::Workspace, Some(B)),
                hook("/w/new", Source::Workspace, Some(A)),
                hook("/g/new", Source::Global, Some(A)),
            ]
        };
        let mut workspace = hooks();
        apply(&mut workspace, &policy, TrustScope::Workspace);
        assert_eq!(
            reasons(&workspace),
            vec![
                (None, TrustState::Approved),
                (Some(NOT_TRUSTED_CHANGED), TrustState::Changed),
                (Some(NOT_TRUSTED_NEW), TrustState::New),
                (None, TrustState::NotRequired),
            ]
        );
        assert!(
            workspace[1].command.is_empty(),
            "a refused hook has no argv"
        );
        let mut all = hooks();
        apply(&mut all, &policy, TrustScope::All);
        assert_eq!(all[3].disabled.as_deref(), Some(NOT_TRUSTED_NEW));
        let mut off = hooks();
        apply(&mut off, &policy, TrustScope::Off);
        assert!(off
            .iter()
            .all(|h| h.enabled() && h.trust == TrustState::NotRequired));
    }

    #[test]
    fn managed_hooks_are_never_subject_to_trust_or_the_users_disabled_state() {
        let mut policy = Policy::default();
        policy.disabled.insert("/etc/cline/hooks/PreToolUse".into());
        let mut hooks = vec![hook(
            "/etc/cline/hooks/PreToolUse",
            Source::Managed,
            Some(A),
        )];
        apply(&mut hooks, &policy, TrustScope::All);
        assert!(hooks[0].enabled());
        assert_eq!(hooks[0].trust, TrustState::NotRequired);
    }

    #[test]
    fn a_disabled_hook_says_disabled_and_other_reasons_stay() {
        let mut policy = Policy::default();
        policy.disabled.insert("/w/off".into());
        let mut no_exec = hook("/w/no-exec", Source::Workspace, Some(A));
        no_exec.disabled = Some("it is not executable".into());
        let mut hooks = vec![hook("/w/off", Source::Global, Some(A)), no_exec];
        apply(&mut hooks, &policy, TrustScope::Workspace);
        assert_eq!(hooks[0].disabled.as_deref(), Some(DISABLED));
        // Untrusted too, but the reason it already had is the one to fix first.
        assert_eq!(hooks[1].disabled.as_deref(), Some("it is not executable"));
        assert_eq!(hooks[1].trust, TrustState::New);
    }
}
