//! A run's result, as JSON text, becomes JavaScript objects: through the engine's own
//! `JSON.parse`, taken when the addon loads, or, in a host that had already replaced
//! `JSON.parse`, by native code with the same rules.

use std::cell::OnceCell;

use napi::bindgen_prelude::*;
use napi::sys;
use serde_json::Value;

use crate::node::properties::{define, json_value, string};

/// Compiled once per JavaScript thread. A host that replaced `JSON.parse` (with a reviver
/// that turns dates into `Date`s, say) must not change what a hook printed, nor make
/// `runHook` reject: unless `JSON.parse` looks like the engine's own and reads a probe exactly
/// as the engine does (an own `"__proto__"` key, this realm's prototypes, a date left a
/// string, nothing added), this returns null and results are built natively.
const HANDOVER: &str = "(function () {\n\
    'use strict'\n\
    try {\n\
      const parse = JSON.parse\n\
      const { getPrototypeOf, keys } = Object\n\
      const own = Object.prototype.hasOwnProperty\n\
      const apply = Reflect.apply\n\
      if (apply(Function.prototype.toString, parse, []) !== 'function parse() { [native code] }') return null\n\
      const probe = apply(parse, JSON, ['{\"__proto__\":{\"a\":[1,\"2024-01-01T00:00:00.000Z\",null,true]}}'])\n\
      const plain = (o, proto, n) => o !== null && typeof o === 'object' && getPrototypeOf(o) === proto && keys(o).length === n\n\
      if (!plain(probe, Object.prototype, 1) || !apply(own, probe, ['__proto__'])) return null\n\
      const inner = probe['__proto__']\n\
      if (!plain(inner, Object.prototype, 1) || !apply(own, inner, ['a'])) return null\n\
      const a = inner.a\n\
      if (!plain(a, Array.prototype, 4) || a[0] !== 1 || a[1] !== '2024-01-01T00:00:00.000Z' || a[2] !== null || a[3] !== true) return null\n\
      return function handover(text, slowest) {\n\
        const result = apply(parse, JSON, [text])\n\
        if (slowest >= 0) result.slowest = result.hooks[slowest]\n\
        return result\n\
      }\n\
    } catch (_) {\n\
      return null\n\
    }\n\
  })()";

type Handover = FunctionRef<FnArgs<(Unknown<'static>, i32)>, Unknown<'static>>;

thread_local! {
    /// `None` inside: the host's `JSON.parse` is not the engine's.
    static HANDOVER_FN: OnceCell<Option<Handover>> = const { OnceCell::new() };
}

/// Takes `JSON.parse` as it is now (the addon loading): what the host does to it later does
/// not reach results. Never fails: anything amiss means results are built natively.
pub fn capture(env: &Env) {
    HANDOVER_FN.with(|cell| {
        if cell.get().is_none() {
            let made = || -> Result<Option<Handover>> {
                let made: Unknown = env.run_script(HANDOVER)?;
                if made.get_type()? != ValueType::Function {
                    return Ok(None);
                }
                // Safety: just checked to be a function.
                let function: Function<FnArgs<(Unknown, i32)>, Unknown> = unsafe { made.cast()? };
                Ok(Some(function.create_ref()?))
            };
            let handover = made().unwrap_or_else(|_| {
                let _ = crate::node::errors::take_exception(env);
                None
            });
            let _ = cell.set(handover);
        }
    })
}

/// The result object for `text`, with `slowest` set to the hook at that index.
pub fn to_js(env: &Env, text: &str, ascii: bool, slowest: Option<u32>) -> Result<sys::napi_value> {
    capture(env);
    let slowest = slowest.and_then(|i| i32::try_from(i).ok());
    HANDOVER_FN.with(|cell| match cell.get() {
        Some(Some(handover)) => {
            let text = if ascii {
                env.create_string_latin1(text.as_bytes())?
            } else {
                env.create_string(text)?
            }
            .to_unknown();
            let args = FnArgs::from((text, slowest.unwrap_or(-1)));
            handover.borrow_back(env)?.call(args).map(|v| v.raw())
        }
        _ => native(env, text, slowest),
    })
}

/// What `handover` does, without the host's `JSON.parse`.
fn native(env: &Env, text: &str, slowest: Option<i32>) -> Result<sys::napi_value> {
    // The result wraps a hook's output, itself as deep as serde_json reads, in three levels.
    let mut reader = serde_json::Deserializer::from_str(text);
    reader.disable_recursion_limit();
    let value = <Value as serde::Deserialize>::deserialize(&mut reader)
        .map_err(|e| Error::from_reason(format!("the result did not read back: {e}")))?;
    let raw = env.raw();
    let result = json_value(raw, &value)?;
    if let Some(index) = slowest {
        let mut hooks = std::ptr::null_mut();
        let mut hook = std::ptr::null_mut();
        // Safety: plain napi calls on this thread's env; `result` is the object just built.
        unsafe {
            check_status!(sys::napi_get_named_property(
                raw,
                result,
                c"hooks".as_ptr(),
                &mut hooks
            ))?;
            check_status!(sys::napi_get_element(raw, hooks, index as u32, &mut hook))?;
            define(raw, result, &[(string(raw, "slowest")?, hook)])?;
        }
    }
    Ok(result)
}
