//! How a caller's value is named in an error message: by its value when that helps find the
//! mistake (`the number 12345`), else by its type (`an array`).

use napi::bindgen_prelude::*;

/// A number as JavaScript prints it (`Infinity`, not Rust's `inf`).
pub fn js_number(n: f64) -> String {
    match n {
        f64::INFINITY => "Infinity".to_owned(),
        f64::NEG_INFINITY => "-Infinity".to_owned(),
        n => n.to_string(),
    }
}

/// What a caller passed, for messages: the value itself for a string, number or boolean (`the
/// string "abc"`, `the number 12345`: a mistake is easier to find by its value), else its
/// type (`an array`, `a function`).
pub fn describe_value(value: &Unknown) -> String {
    match value.get_type() {
        Ok(ValueType::String) => {
            // Safety: checked to be a string.
            let text = unsafe { String::from_napi_value(value.value().env, value.raw()) }
                .unwrap_or_default();
            format!("the string {}", cline_hooks_core::error::quoted(&text))
        }
        Ok(ValueType::Number) => match value.coerce_to_number().and_then(|n| n.get_double()) {
            Ok(n) => format!("the number {}", js_number(n)),
            Err(_) => "a number".to_owned(),
        },
        Ok(ValueType::Boolean) => match value.coerce_to_bool() {
            Ok(b) => format!("the boolean {b}"),
            Err(_) => "a boolean".to_owned(),
        },
        Ok(ValueType::Object) if value.is_array().unwrap_or(false) => "an array".to_owned(),
        Ok(other) => describe_type(other),
        Err(e) => e.reason,
    }
}

/// `a string`, `a number`, ... for messages.
pub fn describe_type(t: ValueType) -> String {
    match t {
        ValueType::Undefined => "undefined".to_owned(),
        ValueType::Null => "null".to_owned(),
        ValueType::Boolean => "a boolean".to_owned(),
        ValueType::Number => "a number".to_owned(),
        ValueType::String => "a string".to_owned(),
        ValueType::Symbol => "a symbol".to_owned(),
        ValueType::Object => "an object".to_owned(),
        ValueType::Function => "a function".to_owned(),
        ValueType::External => "an external".to_owned(),
        ValueType::BigInt => "a BigInt".to_owned(),
        other => format!("{other}").to_lowercase(),
    }
}
