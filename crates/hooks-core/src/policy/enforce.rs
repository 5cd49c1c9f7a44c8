//! Which discovered hooks may run under the user's policy: the ones they disabled do not, and,
//! where trust is required, neither do the ones whose exact bytes they have not approved.
//! Pure: applied to hooks and a store already read.

use super::store::Policy;
use super::trust::{policy_applies, trust_state, TrustScope, DISABLED};
use crate::discovery::DiscoveredHook;

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
    use crate::discovery::Source;
    use crate::policy::trust::tests::{A, B};
    use crate::policy::{TrustState, NOT_TRUSTED_CHANGED, NOT_TRUSTED_NEW};

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
