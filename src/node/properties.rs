//! Own data properties defined on JavaScript objects, never assigned: an assignment runs any
//! setter a host (or a polyfill) put on a prototype, and one that throws would fail the call;
//! a definition runs nothing, as `JSON.parse` and object literals do.

use napi::bindgen_prelude::*;
use napi::sys;

/// A JavaScript string of `s`.
pub fn string(env: sys::napi_env, s: &str) -> Result<sys::napi_value> {
    let mut out = std::ptr::null_mut();
    // Safety: `s` is valid UTF-8 of the given length.
    check_status!(unsafe {
        sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, &mut out)
    })?;
    Ok(out)
}

/// Defines writable, enumerable, configurable data properties (as an assignment to a plain
/// object makes them) on `object`.
pub fn define(
    env: sys::napi_env,
    object: sys::napi_value,
    props: &[(sys::napi_value, sys::napi_value)],
) -> Result<()> {
    if props.is_empty() {
        return Ok(());
    }
    let descriptors: Vec<sys::napi_property_descriptor> = props
        .iter()
        .map(|&(name, value)| sys::napi_property_descriptor {
            utf8name: std::ptr::null(),
            name,
            method: None,
            getter: None,
            setter: None,
            value,
            attributes: sys::PropertyAttributes::writable
                | sys::PropertyAttributes::enumerable
                | sys::PropertyAttributes::configurable,
            data: std::ptr::null_mut(),
        })
        .collect();
    // Safety: `descriptors` are valid for the call; `object` is an object of this env.
    check_status!(unsafe {
        sys::napi_define_properties(env, object, descriptors.len(), descriptors.as_ptr())
    })
}
