//! The path options and `env`, read from JavaScript by hand, each value once, and checked
//! against what the operating system can hold (no NUL, valid Unicode, Linux's size of one
//! variable), so a bad one is refused up front with a message naming the option, the entry
//! and the fix. The rules are the pure functions at the top; the napi reading follows.

use napi::bindgen_prelude::{Env, Error, Function, JsValue, Status, Unknown, ValueType};
use napi::sys;

use crate::node::describe::describe_type;
use crate::node::errors::Failure;
use cline_hooks_core::error::{quoted, HookError};

/// What stops the OS from taking a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextProblem {
    /// A NUL at this index (UTF-16 units, as JavaScript's `indexOf` counts): C strings, and so
    /// every path and environment variable the OS takes, end there.
    Nul(usize),
    /// An unpaired surrogate at this index: not Unicode, so no UTF-8 path or variable can hold
    /// it (converting it silently would name another file).
    LoneSurrogate { index: usize, unit: u16 },
}

impl TextProblem {
    /// "contains a NUL byte at index 3, which no {holder} can hold".
    fn describe(self, holder: &str) -> String {
        match self {
            TextProblem::Nul(index) => {
                format!("contains a NUL byte at index {index}, which no {holder} can hold")
            }
            TextProblem::LoneSurrogate { index, unit } => format!(
                "holds a lone UTF-16 surrogate (\\u{unit:04x}) at index {index}, which is not Unicode and no {holder} can hold"
            ),
        }
    }
}

/// `units` (a JavaScript string) as Rust text, or the first thing in it the OS cannot take.
pub fn check_text(units: &[u16]) -> Result<String, TextProblem> {
    let mut text = String::with_capacity(units.len());
    let mut index = 0;
    for decoded in char::decode_utf16(units.iter().copied()) {
        match decoded {
            Ok('\0') => return Err(TextProblem::Nul(index)),
            Ok(c) => {
                text.push(c);
                index += c.len_utf16();
            }
            Err(e) => {
                return Err(TextProblem::LoneSurrogate {
                    index,
                    unit: e.unpaired_surrogate(),
                })
            }
        }
    }
    Ok(text)
}

/// A directory path option's text, or the reason to refuse it. `entry` is `workspaceRoots[2]`
/// for an array's entry, `None` for a single-path option; `if_empty` is the fix for "".
pub fn path_text(entry: Option<&str>, units: &[u16], if_empty: &str) -> Result<String, String> {
    // Only a refusal needs the path shown (every run reads its paths).
    let subject = || {
        let shown = quoted(&String::from_utf16_lossy(units));
        match entry {
            Some(entry) => format!("{entry} ({shown})"),
            None => shown,
        }
    };
    match check_text(units) {
        Ok(text) if text.is_empty() => Err(match entry {
            Some(entry) => {
                format!("{entry} is an empty string, which names no file or folder; {if_empty}")
            }
            None => format!("an empty string names no file or folder; {if_empty}"),
        }),
        Ok(text) => Ok(text),
        Err(problem @ TextProblem::Nul(_)) => Err(format!(
            "{} {}; pass the path without it",
            subject(),
            problem.describe("file path")
        )),
        Err(problem) => Err(format!(
            "{} {}; pass the path as valid Unicode text",
            subject(),
            problem.describe("file path")
        )),
    }
}

/// How a message names a variable: `env.PATH`, or `env["A=B"]` when the name is not a plain
/// identifier.
pub fn env_label(name: &str) -> String {
    let identifier = name.chars().enumerate().all(|(i, c)| {
        c == '_' || c == '$' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())
    });
    if identifier && !name.is_empty() {
        format!("env.{name}")
    } else {
        format!("env[{}]", quoted(name))
    }
}

/// A variable name of `env`, or the reason to refuse it.
pub fn env_name(units: &[u16]) -> Result<String, String> {
    let label = env_label(&String::from_utf16_lossy(units));
    if units.is_empty() {
        return Err(format!(
            "{label} has an empty name, which no environment variable can have; give the variable a name or remove it"
        ));
    }
    let name = check_text(units).map_err(|problem| {
        format!(
            "the name of {label} {}; rename the variable",
            problem.describe("environment variable's name")
        )
    })?;
    if let Some(index) = name.encode_utf16().position(|u| u == u16::from(b'=')) {
        return Err(format!(
            "the name of {label} contains \"=\" at index {index}, which ends a variable's name (the hook would see another variable); rename the variable"
        ));
    }
    Ok(name)
}

/// The value of variable `name`, or the reason to refuse it. `limit`: most bytes one
/// `NAME=value` may have on this system, if it has a limit of its own.
pub fn env_value(name: &str, units: &[u16], limit: Option<usize>) -> Result<String, String> {
    let label = env_label(name);
    let value = check_text(units).map_err(|problem| match problem {
        TextProblem::Nul(_) => format!(
            "the value of {label} {}; remove the NUL from the value",
            problem.describe("environment variable")
        ),
        TextProblem::LoneSurrogate { .. } => format!(
            "the value of {label} {}; pass the value as valid Unicode text",
            problem.describe("environment variable")
        ),
    })?;
    let bytes = name.len() + 1 + value.len();
    match limit {
        Some(limit) if bytes > limit => Err(format!(
            "{label} is {bytes} bytes long as NAME=value, more than the {limit} bytes this system allows one variable; pass large data in the hook's input or in a file instead"
        )),
        _ => Ok(value),
    }
}

/// Most bytes one `NAME=value` may have: Linux refuses to start a program with a longer one
/// (MAX_ARG_STRLEN, 32 pages, counting the terminating NUL); elsewhere only the whole
/// environment is bounded, which depends on what the host inherited.
pub fn one_variable_limit() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // Asked once: a tool call with `env` makes no system call for it.
        static LIMIT: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
        *LIMIT.get_or_init(|| {
            // Safety: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            usize::try_from(page)
                .ok()
                .filter(|p| *p > 0)
                .map(|p| p * 32 - 1)
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// What a JavaScript value of `env` turns into: Node's `child_process` rules where they give
/// a meaningful string, a refusal where they would give nonsense.
#[derive(Debug, PartialEq, Eq)]
pub enum EnvValue {
    /// A string, used as it is.
    Text,
    /// A finite number or a BigInt: `String(value)`, as Node does.
    Stringified,
    /// `undefined`: left out, as Node does (the hook inherits the host's value, if any).
    LeftOut,
    /// Anything else, with the reason for the message (after "env.NAME is ").
    Refused(String),
}

/// The rule for one value of `env`, by its type (and, for a number, its value).
pub fn env_value_kind(t: ValueType, number: Option<f64>) -> EnvValue {
    match (t, number) {
        (ValueType::String, _) => EnvValue::Text,
        (ValueType::Number, Some(n)) if n.is_finite() => EnvValue::Stringified,
        (ValueType::BigInt, _) => EnvValue::Stringified,
        (ValueType::Undefined, _) => EnvValue::LeftOut,
        (ValueType::Number, n) => EnvValue::Refused(format!(
            "{}; use a string or a finite number",
            n.map(crate::node::describe::js_number)
                .unwrap_or_else(|| "a number".to_owned())
        )),
        // Node would pass the text "null" or "false", which reads as set (and true) to most
        // programs.
        (ValueType::Null, _) => EnvValue::Refused(
            "null; use a string, or leave the variable out to keep the inherited value".to_owned(),
        ),
        (ValueType::Boolean, _) => {
            EnvValue::Refused("a boolean; use a string such as \"1\" or \"true\"".to_owned())
        }
        (ValueType::Object, _) => EnvValue::Refused(
            "an object; use a string (JSON.stringify it for structured data)".to_owned(),
        ),
        (other, _) => EnvValue::Refused(format!("{}; use a string", describe_type(other))),
    }
}

// ----- Reading from JavaScript -----

fn ok(status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(Status::from(status), "napi call failed"))
    }
}

fn type_of(env: &Env, value: sys::napi_value) -> napi::Result<ValueType> {
    let mut t = 0;
    // Safety: a plain napi call on this thread's env.
    ok(unsafe { sys::napi_typeof(env.raw(), value, &mut t) })?;
    Ok(ValueType::from(t))
}

/// A JavaScript string's exact UTF-16 units (napi's UTF-8 copy would hide lone surrogates).
fn utf16(env: &Env, value: sys::napi_value) -> napi::Result<Vec<u16>> {
    let mut len = 0usize;
    // Safety: a length query, then a copy into a buffer of that length plus the terminator.
    unsafe {
        ok(sys::napi_get_value_string_utf16(
            env.raw(),
            value,
            std::ptr::null_mut(),
            0,
            &mut len,
        ))?;
        let mut units = vec![0u16; len + 1];
        let mut copied = 0usize;
        ok(sys::napi_get_value_string_utf16(
            env.raw(),
            value,
            units.as_mut_ptr(),
            units.len(),
            &mut copied,
        ))?;
        units.truncate(copied);
        Ok(units)
    }
}

/// `String(value)` of a number or BigInt (no caller code runs for primitives).
fn stringified(env: &Env, value: sys::napi_value) -> napi::Result<Vec<u16>> {
    let mut text = std::ptr::null_mut();
    // Safety: a plain napi call on this thread's env.
    ok(unsafe { sys::napi_coerce_to_string(env.raw(), value, &mut text) })?;
    utf16(env, text)
}

fn prototype(env: &Env, value: sys::napi_value) -> napi::Result<sys::napi_value> {
    let mut proto = std::ptr::null_mut();
    // Safety: a plain napi call; a Proxy's getPrototypeOf trap may throw (left pending).
    ok(unsafe { sys::napi_get_prototype(env.raw(), value, &mut proto) })?;
    Ok(proto)
}

/// The error for option `option` whose reading ran the caller's code, which threw.
fn threw<'env>(env: &'env Env, option: &'static str, what: &str, fix: &str) -> Failure<'env> {
    Failure::thrown(
        env,
        HookError::InvalidOption {
            option,
            reason: format!("{what} threw (the error's cause is what it threw); {fix}"),
        },
    )
}

fn refuse<'env>(option: &'static str, reason: String) -> Failure<'env> {
    HookError::InvalidOption { option, reason }.into()
}

/// An array of directory paths (already checked to be an array), each entry checked.
pub fn path_list<'env>(
    env: &'env Env,
    option: &'static str,
    value: &Unknown<'env>,
) -> Result<Vec<String>, Failure<'env>> {
    text_list(
        env,
        option,
        value,
        "directory path",
        "an array of directory paths",
    )
}

/// An array of strings, each `one` (`"hook name"`; `many`: the array, in the fix of an entry
/// that throws), already checked to be an array, each entry checked as text (not empty, no
/// NUL, valid Unicode).
pub fn text_list<'env>(
    env: &'env Env,
    option: &'static str,
    value: &Unknown<'env>,
    one: &str,
    many: &str,
) -> Result<Vec<String>, Failure<'env>> {
    let internal = |e: Error| Failure::thrown(env, HookError::Internal(e.reason));
    let mut len = 0u32;
    // Safety: `value` is an array (napi_is_array), so this runs no caller code.
    ok(unsafe { sys::napi_get_array_length(env.raw(), value.raw(), &mut len) })
        .map_err(internal)?;
    let mut paths = Vec::new();
    for i in 0..len {
        let entry = format!("{option}[{i}]");
        let mut element = std::ptr::null_mut();
        // Safety: a plain napi call; an accessor on the array may throw (left pending).
        if unsafe { sys::napi_get_element(env.raw(), value.raw(), i, &mut element) }
            != sys::Status::napi_ok
        {
            return Err(threw(
                env,
                option,
                &format!("reading {entry}"),
                &format!("pass {many}"),
            ));
        }
        let t = type_of(env, element).map_err(internal)?;
        if t != ValueType::String {
            return Err(refuse(
                option,
                format!("{entry} is {}; use a {one} (a string)", describe_type(t)),
            ));
        }
        let units = utf16(env, element).map_err(internal)?;
        let text = path_text(
            Some(&entry),
            &units,
            &format!("pass a {one} or leave the entry out"),
        )
        .map_err(|reason| refuse(option, reason))?;
        paths.push(text);
    }
    Ok(paths)
}

/// One directory path (already checked to be a string), checked.
pub fn path<'env>(
    env: &'env Env,
    option: &'static str,
    value: &Unknown<'env>,
    if_empty: &str,
) -> Result<String, Failure<'env>> {
    let units =
        utf16(env, value.raw()).map_err(|e| Failure::thrown(env, HookError::Internal(e.reason)))?;
    path_text(None, &units, if_empty).map_err(|reason| refuse(option, reason))
}

const ENV_SHAPE: &str = "use a plain object of variable names to string values";

/// `env` (already checked to be a non-array object): its own enumerable string keys, in
/// order, each name and value checked. Inherited properties are not read.
pub fn env_vars<'env>(
    env: &'env Env,
    value: &Unknown<'env>,
) -> Result<Vec<(String, String)>, Failure<'env>> {
    let internal = |e: Error| Failure::thrown(env, HookError::Internal(e.reason));
    let fix = "pass a plain object of variable names to string values";
    if !is_plain(env, value.raw()).map_err(|_| threw(env, "env", "reading its prototype", fix))? {
        return Err(refuse("env", not_plain(env, value.raw())));
    }
    let mut keys = std::ptr::null_mut();
    // Safety: a plain napi call on this thread's env; a Proxy's ownKeys trap may throw (left
    // pending). Own, enumerable, string keys: what `Object.keys` lists.
    let listed = unsafe {
        sys::napi_get_all_property_names(
            env.raw(),
            value.raw(),
            sys::KeyCollectionMode::own_only,
            sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
            sys::KeyConversion::numbers_to_strings,
            &mut keys,
        )
    };
    if listed != sys::Status::napi_ok {
        return Err(threw(env, "env", "listing its keys", fix));
    }
    let mut count = 0u32;
    // Safety: napi returned an array of its own making.
    ok(unsafe { sys::napi_get_array_length(env.raw(), keys, &mut count) }).map_err(internal)?;
    let limit = one_variable_limit();
    let mut vars = Vec::new();
    for i in 0..count {
        let mut key = std::ptr::null_mut();
        // Safety: an element of napi's own array of strings.
        ok(unsafe { sys::napi_get_element(env.raw(), keys, i, &mut key) }).map_err(internal)?;
        let name = env_name(&utf16(env, key).map_err(internal)?)
            .map_err(|reason| refuse("env", reason))?;
        let label = env_label(&name);
        let mut item = std::ptr::null_mut();
        // Safety: read by the key itself (not its UTF-8 copy); a getter may throw (left
        // pending).
        if unsafe { sys::napi_get_property(env.raw(), value.raw(), key, &mut item) }
            != sys::Status::napi_ok
        {
            return Err(threw(env, "env", &format!("reading {label}"), fix));
        }
        let t = type_of(env, item).map_err(internal)?;
        let number = if t == ValueType::Number {
            let mut n = 0f64;
            // Safety: checked to be a number.
            ok(unsafe { sys::napi_get_value_double(env.raw(), item, &mut n) }).map_err(internal)?;
            Some(n)
        } else {
            None
        };
        let units = match env_value_kind(t, number) {
            EnvValue::Text => utf16(env, item).map_err(internal)?,
            EnvValue::Stringified => stringified(env, item).map_err(internal)?,
            EnvValue::LeftOut => continue,
            EnvValue::Refused(why) => return Err(refuse("env", format!("{label} is {why}"))),
        };
        let text = env_value(&name, &units, limit).map_err(|reason| refuse("env", reason))?;
        vars.push((name, text));
    }
    Ok(vars)
}

/// Whether `object` is a plain object: its prototype is null or a realm's `Object.prototype`
/// (whose own prototype is null; checked that way because Jest and `vm` contexts have their
/// own). A Map, class instance or `Object.create(proto)` is not: their variables would be
/// lost or inherited.
fn is_plain(env: &Env, object: sys::napi_value) -> napi::Result<bool> {
    let proto = prototype(env, object)?;
    if type_of(env, proto)? == ValueType::Null {
        return Ok(true);
    }
    let above = prototype(env, proto)?;
    Ok(type_of(env, above)? == ValueType::Null)
}

/// The refusal of an `env` that is an object but not a plain one; a Map is named, with its
/// conversion.
fn not_plain(env: &Env, object: sys::napi_value) -> String {
    // A brand check, true for a Map of any realm and for nothing else; no caller code runs.
    let is_map = (|| -> napi::Result<bool> {
        let check: Function<Unknown, bool> = env.run_script(
            "(function (v) { try { Map.prototype.has.call(v, undefined); return true } catch (_) { return false } })",
        )?;
        // Safety: a live value of this env.
        check.call(unsafe { Unknown::from_raw_unchecked(env.raw(), object) })
    })()
    .unwrap_or_else(|_| {
        let _ = crate::node::errors::take_exception(env);
        false
    });
    if is_map {
        format!("a Map was given; {ENV_SHAPE}, such as Object.fromEntries(map)")
    } else {
        format!("an object whose prototype is not Object.prototype (a class instance, Set, Date, boxed string or Object.create(...) result) was given; {ENV_SHAPE}, such as {{ NAME: 'value' }}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn text_with_a_nul_or_a_lone_surrogate_is_refused_at_its_index() {
        assert_eq!(check_text(&u("/tmp/é😀")), Ok("/tmp/é😀".to_owned()));
        assert_eq!(check_text(&u("/a\0b")), Err(TextProblem::Nul(2)));
        // The index counts UTF-16 units, as JavaScript does: 😀 is two.
        assert_eq!(check_text(&u("😀\0")), Err(TextProblem::Nul(2)));
        let mut lone = u("/a");
        lone.push(0xd800);
        lone.extend(u("b"));
        assert_eq!(
            check_text(&lone),
            Err(TextProblem::LoneSurrogate {
                index: 2,
                unit: 0xd800
            })
        );
        assert_eq!(
            check_text(&[0xdc00]),
            Err(TextProblem::LoneSurrogate {
                index: 0,
                unit: 0xdc00
            })
        );
    }

    #[test]
    fn a_bad_path_is_named_with_its_entry_and_the_fix() {
        assert_eq!(
            path_text(Some("workspaceRoots[2]"), &u("/a\0b"), "x"),
            Err("workspaceRoots[2] (\"/a\\u0000b\") contains a NUL byte at index 2, which no file path can hold; pass the path without it".to_owned())
        );
        assert_eq!(
            path_text(None, &u("\0"), "x"),
            Err("\"\\u0000\" contains a NUL byte at index 0, which no file path can hold; pass the path without it".to_owned())
        );
        assert_eq!(
            path_text(Some("extraHooksDirs[0]"), &[0x2f, 0xdc00], "x"),
            Err("extraHooksDirs[0] (\"/\u{fffd}\") holds a lone UTF-16 surrogate (\\udc00) at index 1, which is not Unicode and no file path can hold; pass the path as valid Unicode text".to_owned())
        );
        assert_eq!(
            path_text(Some("workspaceRoots[0]"), &[], "leave it out"),
            Err(
                "workspaceRoots[0] is an empty string, which names no file or folder; leave it out"
                    .to_owned()
            )
        );
        assert_eq!(path_text(None, &u("rel/x"), "x"), Ok("rel/x".to_owned()));
    }

    #[test]
    fn env_names_are_refused_naming_the_variable_and_what_is_wrong_with_the_name() {
        assert_eq!(env_name(&u("PATH")), Ok("PATH".to_owned()));
        assert_eq!(env_name(&u("my var é")), Ok("my var é".to_owned()));
        assert!(env_name(&[])
            .unwrap_err()
            .starts_with("env[\"\"] has an empty name"));
        let eq = env_name(&u("A=B")).unwrap_err();
        assert!(
            eq.starts_with("the name of env[\"A=B\"] contains \"=\" at index 1"),
            "{eq}"
        );
        let nul = env_name(&u("A\0")).unwrap_err();
        assert!(
            nul.starts_with("the name of env[\"A\\u0000\"] contains a NUL byte at index 1"),
            "{nul}"
        );
        assert!(nul.ends_with("; rename the variable"), "{nul}");
        let lone = env_name(&[0x41, 0xd83d]).unwrap_err();
        assert!(
            lone.contains("lone UTF-16 surrogate (\\ud83d) at index 1"),
            "{lone}"
        );
    }

    #[test]
    fn env_values_are_refused_naming_the_value_and_its_variable() {
        let nul = env_value("TOKEN", &u("a\0b"), None).unwrap_err();
        assert_eq!(nul, "the value of env.TOKEN contains a NUL byte at index 1, which no environment variable can hold; remove the NUL from the value");
        assert_eq!(env_value("A", &u(""), None), Ok(String::new()));
        // NAME=value may have at most `limit` bytes.
        assert_eq!(env_value("A", &u("xx"), Some(4)), Ok("xx".to_owned()));
        let long = env_value("A", &u("xxx"), Some(4)).unwrap_err();
        assert!(
            long.starts_with("env.A is 5 bytes long as NAME=value, more than the 4 bytes"),
            "{long}"
        );
        assert_eq!(env_label("A-B"), "env[\"A-B\"]");
        assert_eq!(env_label("_a1$"), "env._a1$");
        assert_eq!(env_label("1A"), "env[\"1A\"]");
    }

    #[test]
    fn env_values_follow_node_where_it_is_meaningful_and_are_refused_otherwise() {
        assert_eq!(env_value_kind(ValueType::String, None), EnvValue::Text);
        assert_eq!(
            env_value_kind(ValueType::Number, Some(1.5)),
            EnvValue::Stringified
        );
        assert_eq!(
            env_value_kind(ValueType::BigInt, None),
            EnvValue::Stringified
        );
        assert_eq!(
            env_value_kind(ValueType::Undefined, None),
            EnvValue::LeftOut
        );
        assert_eq!(
            env_value_kind(ValueType::Number, Some(f64::NAN)),
            EnvValue::Refused("NaN; use a string or a finite number".to_owned())
        );
        assert_eq!(
            env_value_kind(ValueType::Number, Some(f64::NEG_INFINITY)),
            EnvValue::Refused("-Infinity; use a string or a finite number".to_owned())
        );
        for t in [
            ValueType::Null,
            ValueType::Boolean,
            ValueType::Object,
            ValueType::Function,
            ValueType::Symbol,
        ] {
            let EnvValue::Refused(why) = env_value_kind(t, None) else {
                panic!("{t:?} accepted");
            };
            assert!(why.contains("; use a string"), "{why}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_allows_32_pages_per_variable() {
        // 131071 bytes with 4 KiB pages: measured, one more byte fails with E2BIG.
        let limit = one_variable_limit().unwrap();
        assert!(limit >= 131_071, "{limit}");
    }
}
