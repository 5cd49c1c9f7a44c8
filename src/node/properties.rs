//! Own data properties defined on JavaScript objects, never assigned, and JSON values built
//! that way: an assignment runs any setter a host (or a polyfill) put on a prototype, and one
//! that throws would fail the call; a definition runs nothing, as `JSON.parse` and object
//! literals do.

use napi::bindgen_prelude::*;
use napi::sys;
use serde_json::Value;

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

/// `value` as JavaScript, its properties defined as `JSON.parse` defines them: own data
/// properties, so a `"__proto__"` key is a plain key and no setter on a prototype runs.
pub fn json_value(env: sys::napi_env, value: &Value) -> Result<sys::napi_value> {
    let mut out = std::ptr::null_mut();
    // Safety: plain napi calls on this thread's env with valid out-pointers.
    unsafe {
        match value {
            Value::Null => check_status!(sys::napi_get_null(env, &mut out))?,
            Value::Bool(b) => check_status!(sys::napi_get_boolean(env, *b, &mut out))?,
            Value::Number(n) => {
                // Finite by construction: serde_json reads no NaN or Infinity.
                let number = n.as_f64().unwrap_or(f64::NAN);
                check_status!(sys::napi_create_double(env, number, &mut out))?
            }
            Value::String(s) => out = string(env, s)?,
            Value::Array(items) => {
                check_status!(sys::napi_create_array_with_length(
                    env,
                    items.len(),
                    &mut out
                ))?;
                let mut props = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    props.push((string(env, &i.to_string())?, json_value(env, item)?));
                }
                define(env, out, &props)?;
            }
            Value::Object(map) => {
                check_status!(sys::napi_create_object(env, &mut out))?;
                let mut props = Vec::with_capacity(map.len());
                for (key, item) in map {
                    props.push((string(env, key)?, json_value(env, item)?));
                }
                define(env, out, &props)?;
            }
        }
    }
    Ok(out)
}
