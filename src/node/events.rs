//! Live events (`RunOptions.onEvent`) -> JavaScript calls. The core reports each hook's start,
//! output lines, slow mark and end on the runtime's threads; each event becomes JSON text there
//! and is queued, in order, with the run's settlement (see `settle::spawn_observed`), so the
//! JavaScript thread calls `onEvent` with every event of a run before the run's promise
//! settles, and nothing of a run is left to deliver (or to keep Node alive) after it. The
//! runtime never waits for the JavaScript thread; what `onEvent` throws is dropped.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;

use crate::node::errors::Failure;
use crate::node::results::{self, ExecutionJson};
use crate::node::settle::{Callback, Event, Poster, Reserved};
use cline_hooks_core::error::HookError;
use cline_hooks_core::observe::{EventKind, HookEvent as CoreEvent, Observer};

/// What happened to one hook of a run, as it happened (`RunOptions.onEvent`).
// Declares the type for index.d.ts; events reach JavaScript as JSON text (`JsObserver`).
#[napi(object, object_from_js = false)]
#[allow(dead_code)]
pub struct HookEvent {
    /// `start`: its process started (never sent for a hook that did not start). `stdout`,
    /// `stderr`: one line it printed, in `line`. `slow`: it has been running (or waiting for
    /// a process slot) for `slowThresholdMs`; sent at most once. `end`: it ended, with its
    /// `execution`; sent exactly once for every entry of the result's `hooks`, and last.
    #[napi(
        js_name = "type",
        ts_type = "'start' | 'stdout' | 'stderr' | 'slow' | 'end'"
    )]
    pub kind: String,
    /// The hook name it ran for.
    pub hook_name: String,
    /// Absolute path of the hook file.
    pub path: String,
    /// Which kind of directory it was found in.
    #[napi(
        ts_type = "'managed' | 'extra' | 'global' | 'workspace' | 'claudeUser' | 'claudeProject' | 'claudeLocal'"
    )]
    pub source: String,
    /// `stdout`/`stderr` only: the line, without its `\n` or `\r\n`, invalid UTF-8 replaced,
    /// cut at 4096 bytes of UTF-8. After 1,000 lines of one hook (stdout and stderr together),
    /// one last line `[truncated: the rest of this hook's output is not sent as events]`.
    pub line: Option<String>,
    /// Milliseconds since the hook's turn began (a few microseconds before the moment its
    /// `durationMs` counts from, so a wait for a process slot is included).
    pub elapsed_ms: f64,
    /// `end` only: the hook's entry of the result (the same fields as `HookRunResult.hooks`).
    pub execution: Option<crate::node::results::HookExecution>,
}

/// Reads `options.onEvent`: a function, or nothing. A getter that throws is the cause.
pub fn read<'env>(
    env: &'env Env,
    options: Option<&Object<'env>>,
) -> std::result::Result<Option<Callback>, Failure<'env>> {
    let Some(options) = options else {
        return Ok(None);
    };
    let thrown = |_: Error| {
        Failure::thrown(
            env,
            HookError::InvalidOption {
                option: "onEvent",
                reason: "reading it threw (the error's cause is what it threw); pass a function"
                    .to_owned(),
            },
        )
    };
    let value: Option<Unknown> = options.get("onEvent").map_err(thrown)?;
    let Some(value) = value else {
        return Ok(None);
    };
    match value.get_type().map_err(thrown)? {
        ValueType::Undefined | ValueType::Null => Ok(None),
        ValueType::Function => {
            // Safety: checked to be a function just above.
            let function: Function<(), ()> = unsafe { value.cast().map_err(thrown)? };
            Ok(Some(function.create_ref().map_err(thrown)?))
        }
        other => Err(HookError::InvalidOption {
            option: "onEvent",
            reason: format!(
                "{} was given; use a function, (event) => void",
                crate::node::describe::describe_type(other)
            ),
        }
        .into()),
    }
}

/// The core observer of one run whose events go to its `onEvent`.
pub fn observer(poster: Poster) -> Arc<dyn Observer> {
    Arc::new(JsObserver { poster })
}

struct JsObserver {
    poster: Poster,
}

/// `HookEvent`, keys in the order the API lists them.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct EventJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    hook_name: &'a str,
    path: std::borrow::Cow<'a, str>,
    source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<&'a str>,
    elapsed_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    execution: Option<ExecutionJson<'a>>,
}

impl Observer for JsObserver {
    fn event(&self, event: &CoreEvent<'_>) -> bool {
        let line = match event.kind {
            EventKind::Stdout(line) | EventKind::Stderr(line) => Some(line),
            _ => None,
        };
        // An event's own fields are small; a line is at most 4 KiB. The one truncated line
        // that ends a hook's lines always goes: a hook cut short must say so.
        let counted = line.map_or(0, |l| l.len() + 256);
        let always = line == Some(cline_hooks_core::observe::TRUNCATED_LINE);
        let Some(reserved) = Reserved::take(counted, always) else {
            return false;
        };
        let json = EventJson {
            kind: event.kind.as_str(),
            hook_name: &event.hook.hook_name,
            path: event.hook.path.to_string_lossy(),
            source: event.hook.source.as_str(),
            line,
            elapsed_ms: results::millis(event.elapsed),
            execution: match event.kind {
                EventKind::End(execution) => Some(ExecutionJson::from(execution)),
                _ => None,
            },
        };
        // Strings, booleans and finite numbers: serializing cannot fail.
        let text = serde_json::to_string(&json).unwrap_or_else(|_| "{}".to_owned());
        self.poster.post(Event::new(text, reserved));
        true
    }
}

/// Stands in for the `onEvent` field during struct conversion (for index.d.ts); the function
/// itself is read by [`read`], as a live JavaScript value.
pub struct OnEventField;

impl TypeName for OnEventField {
    fn type_name() -> &'static str {
        "Function"
    }
    fn value_type() -> ValueType {
        ValueType::Function
    }
}

impl FromNapiValue for OnEventField {
    unsafe fn from_napi_value(_env: sys::napi_env, _value: sys::napi_value) -> Result<Self> {
        Ok(OnEventField)
    }
}

impl ValidateNapiValue for OnEventField {}
