//! `scrubEnv`, read from JavaScript by hand: `true` (leave out the variables whose names look
//! like credentials), `false`, or the names to leave out, each checked. The rule is the pure
//! function at the top; the napi reading follows.

use std::ffi::OsString;

use napi::bindgen_prelude::{Env, Error, JsValue, Status, TypeName, Unknown, ValueType};
use napi::bindgen_prelude::{FromNapiValue, ValidateNapiValue};
use napi::sys;

use crate::node::describe::describe_type;
use crate::node::errors::Failure;
use crate::node::options::env_and_paths::check_text;
use cline_hooks_core::error::{quoted, HookError};
use cline_hooks_core::process::ScrubEnv;

/// Entry `index` of a `scrubEnv` list (its UTF-16 units) as a variable name, or the reason to
/// refuse it.
pub fn scrub_name(index: u32, units: &[u16]) -> Result<String, String> {
    let entry = format!("scrubEnv[{index}]");
    let shown = || quoted(&String::from_utf16_lossy(units));
    if units.is_empty() {
        return Err(format!(
            "{entry} is an empty string, which names no environment variable; give a variable name or remove the entry"
        ));
    }
    let name = check_text(units).map_err(|_| {
        format!(
            "{entry} ({}) holds a NUL byte or a lone UTF-16 surrogate, which no environment variable's name can hold; give a variable name",
            shown()
        )
    })?;
    if let Some(index) = name.encode_utf16().position(|u| u == u16::from(b'=')) {
        return Err(format!(
            "{entry} ({}) contains \"=\" at index {index}, which no environment variable's name can hold; give the name alone, without a value",
            shown()
        ));
    }
    Ok(name)
}

/// A checked `scrubEnv`. Read by `read` by hand, never by napi's conversion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScrubEnvOption(pub ScrubEnv);

impl TypeName for ScrubEnvOption {
    fn type_name() -> &'static str {
        "boolean | string[]"
    }
    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl FromNapiValue for ScrubEnvOption {
    unsafe fn from_napi_value(_env: sys::napi_env, _value: sys::napi_value) -> napi::Result<Self> {
        Err(Error::new(
            Status::InvalidArg,
            "scrubEnv must be read by options::read",
        ))
    }
}

impl ValidateNapiValue for ScrubEnvOption {}

fn refuse<'env>(reason: String) -> Failure<'env> {
    HookError::InvalidOption {
        option: "scrubEnv",
        reason,
    }
    .into()
}

fn ok(status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(Status::from(status), "napi call failed"))
    }
}

/// `scrubEnv` (already checked to be a boolean or an array), checked.
pub fn read<'env>(env: &'env Env, value: &Unknown<'env>) -> Result<ScrubEnv, Failure<'env>> {
    let internal = |e: Error| Failure::thrown(env, HookError::Internal(e.reason));
    if value.get_type().map_err(internal)? == ValueType::Boolean {
        // Safety: checked to be a boolean.
        let on = unsafe { bool::from_napi_value(env.raw(), value.raw()) }.map_err(internal)?;
        return Ok(if on {
            ScrubEnv::Credentials
        } else {
            ScrubEnv::Off
        });
    }
    let mut len = 0u32;
    // Safety: `value` is an array (checked), so this runs no caller code.
    ok(unsafe { sys::napi_get_array_length(env.raw(), value.raw(), &mut len) })
        .map_err(internal)?;
    let mut names = Vec::new();
    for i in 0..len {
        let mut element = std::ptr::null_mut();
        // Safety: a plain napi call; an accessor on the array may throw (left pending).
        if unsafe { sys::napi_get_element(env.raw(), value.raw(), i, &mut element) }
            != sys::Status::napi_ok
        {
            return Err(Failure::thrown(
                env,
                HookError::InvalidOption {
                    option: "scrubEnv",
                    reason: format!("reading scrubEnv[{i}] threw (the error's cause is what it threw); pass an array of variable names"),
                },
            ));
        }
        // Safety: a live value of this env.
        let element = unsafe { Unknown::from_raw_unchecked(env.raw(), element) };
        let t = element.get_type().map_err(internal)?;
        if t != ValueType::String {
            return Err(refuse(format!(
                "scrubEnv[{i}] is {}; use a variable name (a string)",
                describe_type(t)
            )));
        }
        // Safety: checked to be a string; UTF-16, so a lone surrogate is seen.
        let units = unsafe {
            napi::bindgen_prelude::Utf16String::from_napi_value(env.raw(), element.raw())
        }
        .map_err(internal)?;
        let name = scrub_name(i, &units[..]).map_err(refuse)?;
        names.push(OsString::from(name));
    }
    Ok(ScrubEnv::Names(names))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn names_are_refused_when_no_variable_can_have_them() {
        assert_eq!(
            scrub_name(0, &u("GITHUB_TOKEN")),
            Ok("GITHUB_TOKEN".to_owned())
        );
        assert!(scrub_name(1, &[])
            .unwrap_err()
            .starts_with("scrubEnv[1] is an empty string"));
        let eq = scrub_name(2, &u("A=B")).unwrap_err();
        assert!(
            eq.starts_with("scrubEnv[2] (\"A=B\") contains \"=\" at index 1"),
            "{eq}"
        );
        let nul = scrub_name(0, &u("A\0")).unwrap_err();
        assert!(nul.contains("holds a NUL byte"), "{nul}");
        assert!(scrub_name(0, &[0x41, 0xd800]).is_err());
    }
}
