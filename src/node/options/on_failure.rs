//! `onFailure`, read from JavaScript by hand: `'allow'`, `'block'`, or an object giving either
//! for `timedOut` (or its old name `timeout`), `crash`, `startFailure` and `invalidOutput`. The rules are the pure functions
//! at the top; the napi reading follows.

use napi::bindgen_prelude::{Env, Error, JsValue, Object, Status, TypeName, Unknown, ValueType};
use napi::bindgen_prelude::{FromNapiValue, JsObjectValue, ValidateNapiValue};
use napi_derive::napi;

use crate::node::describe::describe_type;
use crate::node::errors::Failure;
use crate::node::options::{closest, own_keys};
use cline_hooks_core::error::{quoted, HookError};
use cline_hooks_core::verdict::{FailurePolicy, OnFailure};

/// The keys of an `onFailure` object, as the API spells them.
pub const KINDS: [&str; 4] = ["timedOut", "crash", "startFailure", "invalidOutput"];

/// The object form of `onFailure`: `'allow'` or `'block'` for each kind of failure (a kind
/// left out is allowed).
// Declared for index.d.ts; `read` fills `RunOptions` by hand.
#[napi(object, object_to_js = false)]
#[allow(dead_code)]
pub struct OnFailurePolicy {
    /// A hook still running at its timeout (or waiting for a process slot until it): the
    /// executions with `failureKind: 'timedOut'`.
    #[napi(ts_type = "'allow' | 'block'")]
    pub timed_out: Option<String>,
    /// The old name of `timedOut` (deprecated; it still works).
    #[napi(ts_type = "'allow' | 'block'")]
    pub timeout: Option<String>,
    /// A hook that exited with a non-zero code or was killed by a signal.
    #[napi(ts_type = "'allow' | 'block'")]
    pub crash: Option<String>,
    /// A hook that could not start (its file or interpreter missing, not executable, ...).
    #[napi(ts_type = "'allow' | 'block'")]
    pub start_failure: Option<String>,
    /// A hook that exited 0 but printed output that cannot be used.
    #[napi(ts_type = "'allow' | 'block'")]
    pub invalid_output: Option<String>,
}

/// `word` as a policy, or the reason to refuse it; `label` names where it was given
/// (`onFailure`, `onFailure.timedOut`).
pub fn on_failure_word(label: &str, word: &str) -> Result<OnFailure, String> {
    match word {
        "allow" => Ok(OnFailure::Allow),
        "block" => Ok(OnFailure::Block),
        other => Err(format!(
            "{label} is {}; use \"allow\" or \"block\"",
            quoted(other)
        )),
    }
}

/// Why `keys` cannot be read as one policy: both `timedOut` and its old name `timeout` (one
/// kind given twice, which would leave the verdict to the order of the keys). Pure.
pub fn both_names(keys: &[String]) -> Option<String> {
    let has = |name: &str| keys.iter().any(|k| k == name);
    (has("timedOut") && has("timeout")).then(|| {
        "it has both timedOut and timeout, its old name, for the same kind of failure; keep timedOut".to_owned()
    })
}

/// Sets the policy of the kind named `key` (one of [`KINDS`]) in `policy`, or says why `key`
/// is not one, naming the closest.
pub fn set_kind(policy: &mut FailurePolicy, key: &str, value: OnFailure) -> Result<(), String> {
    match key {
        // `timeout`: its name before 0.2 (deprecated), kept so older settings still block.
        "timedOut" | "timeout" => policy.timeout = value,
        "crash" => policy.crash = value,
        "startFailure" => policy.start_failure = value,
        "invalidOutput" => policy.invalid_output = value,
        other => {
            // The old name counts as near: `timout` means `timedOut`.
            let near = closest(other, &[KINDS.as_slice(), &["timeout"]].concat()).map(|near| {
                if near == "timeout" {
                    "timedOut"
                } else {
                    near
                }
            });
            let hint = match near {
                Some(near) => format!(": did you mean \"{near}\"?"),
                None => "; remove it".to_owned(),
            };
            return Err(format!(
                "{} is not a kind of failure{hint} (the keys of onFailure are {})",
                quoted(other),
                KINDS.join(", ")
            ));
        }
    }
    Ok(())
}

/// A checked `onFailure`. Read by `read` by hand, never by napi's conversion.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OnFailureOption(pub FailurePolicy);

impl TypeName for OnFailureOption {
    fn type_name() -> &'static str {
        "'allow' | 'block' | OnFailurePolicy"
    }
    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl FromNapiValue for OnFailureOption {
    unsafe fn from_napi_value(
        _env: napi::sys::napi_env,
        _value: napi::sys::napi_value,
    ) -> napi::Result<Self> {
        Err(Error::new(
            Status::InvalidArg,
            "onFailure must be read by options::read",
        ))
    }
}

impl ValidateNapiValue for OnFailureOption {}

fn refuse<'env>(reason: String) -> Failure<'env> {
    HookError::InvalidOption {
        option: "onFailure",
        reason,
    }
    .into()
}

/// A string's text (its type already checked).
fn text(env: &Env, value: &Unknown) -> napi::Result<String> {
    // Safety: the caller checked it is a string.
    unsafe { String::from_napi_value(env.raw(), value.raw()) }
}

/// `onFailure` (already checked to be a string or a non-array object), checked.
pub fn read<'env>(env: &'env Env, value: &Unknown<'env>) -> Result<FailurePolicy, Failure<'env>> {
    let internal = |e: Error| Failure::thrown(env, HookError::Internal(e.reason));
    if value.get_type().map_err(internal)? == ValueType::String {
        let word = text(env, value).map_err(internal)?;
        let all = on_failure_word("onFailure", &word).map_err(|_| {
            refuse(format!(
                "{} is not a failure policy; use \"allow\", \"block\", or an object such as {{ timedOut: 'block', crash: 'block' }}",
                quoted(&word)
            ))
        })?;
        return Ok(FailurePolicy::all(all));
    }
    // Safety: checked to be an object.
    let object: Object = unsafe { value.cast() }.map_err(internal)?;
    let keys = own_keys(env, &object).map_err(|e| {
        Failure::thrown(
            env,
            HookError::InvalidOption {
                option: "onFailure",
                reason: format!(
                    "listing its keys failed ({}); pass a plain object",
                    e.reason
                ),
            },
        )
    })?;
    if let Some(why) = both_names(&keys) {
        return Err(refuse(why));
    }
    let mut policy = FailurePolicy::default();
    for key in &keys {
        // An unknown key is refused before its value is read (on a scratch policy: checking a
        // key must not undo what an earlier key set).
        set_kind(&mut FailurePolicy::default(), key, OnFailure::Allow).map_err(refuse)?;
        let label = format!("onFailure.{key}");
        let item: Unknown = object.get_named_property(key).map_err(|_| {
            Failure::thrown(
                env,
                HookError::InvalidOption {
                    option: "onFailure",
                    reason: format!(
                        "reading {label} threw (the error's cause is what it threw); pass \"allow\" or \"block\""
                    ),
                },
            )
        })?;
        let value = match item.get_type().map_err(internal)? {
            // Left out, as if the key were not there.
            ValueType::Undefined => continue,
            ValueType::String => {
                on_failure_word(&label, &text(env, &item).map_err(internal)?).map_err(refuse)?
            }
            other => {
                return Err(refuse(format!(
                    "{label} is {}; use \"allow\" or \"block\"",
                    describe_type(other)
                )))
            }
        };
        set_kind(&mut policy, key, value).map_err(refuse)?;
    }
    Ok(policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_old_name_beside_the_new_is_refused() {
        let keys = |k: &[&str]| k.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(both_names(&keys(&["timedOut", "crash"])).is_none());
        assert!(both_names(&keys(&["timeout"])).is_none());
        assert!(both_names(&keys(&["timeout", "timedOut"]))
            .is_some_and(|why| why.contains("keep timedOut")));
    }

    #[test]
    fn allow_and_block_are_the_only_words() {
        assert_eq!(on_failure_word("onFailure", "allow"), Ok(OnFailure::Allow));
        assert_eq!(on_failure_word("onFailure", "block"), Ok(OnFailure::Block));
        assert_eq!(
            on_failure_word("onFailure.crash", "Block"),
            Err("onFailure.crash is \"Block\"; use \"allow\" or \"block\"".to_owned())
        );
    }

    #[test]
    fn each_kind_sets_its_own_policy_and_a_misspelled_one_names_the_closest() {
        let mut policy = FailurePolicy::default();
        for key in KINDS {
            set_kind(&mut policy, key, OnFailure::Block).unwrap();
        }
        assert_eq!(policy, FailurePolicy::block());
        let err = set_kind(&mut policy, "timedout", OnFailure::Block).unwrap_err();
        assert!(
            err.starts_with("\"timedout\" is not a kind of failure: did you mean \"timedOut\"?"),
            "{err}"
        );
        let err = set_kind(&mut policy, "zzz", OnFailure::Block).unwrap_err();
        assert_eq!(err, "\"zzz\" is not a kind of failure; remove it (the keys of onFailure are timedOut, crash, startFailure, invalidOutput)");
    }
}
