//! JavaScript options -> core settings. Only conversion and validation happen here.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::hooks::discover::{GlobalDir, Layout, Profile};
use crate::hooks::error::HookError;
use crate::hooks::runner::RunSettings;
use crate::hooks::running::Owner;
use tokio_util::sync::CancellationToken;

/// Where to look for hooks.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct DiscoveryOptions {
    /// Workspace roots, in order; each one's `.clinerules/hooks` is searched. Default: none.
    pub workspace_roots: Option<Vec<String>>,
    /// The global hooks folder. Default: the user's Documents folder + `/Cline/Hooks`
    /// (the Documents known folder on Windows, `XDG_DOCUMENTS_DIR` on Linux, `~/Documents`
    /// otherwise). `null` turns global hooks off.
    #[napi(ts_type = "string | null")]
    pub global_hooks_dir: Option<Either<String, Null>>,
    /// More hooks folders, searched first (for example a CLI `--hooks-dir`).
    pub extra_hooks_dirs: Option<Vec<String>>,
    /// Whose conventions to follow. `"extension"` (default): `.clinerules/hooks`, one
    /// executable per hook per folder. `"cli"`: the Cline CLI's file hooks: also
    /// `$CLINE_DIR/hooks` and `<root>/.cline/hooks`, files with extensions (`.sh .bash .zsh
    /// .js .mjs .cjs .ts .mts .cts .py .ps1`) run by their `#!` line or their extension's
    /// interpreter, several per hook, no exec bit needed.
    #[napi(ts_type = "'extension' | 'cli'")]
    pub profile: Option<String>,
    /// The CLI profile's data folder; default `$CLINE_DIR`, else `~/.cline`.
    pub cline_dir: Option<String>,
    /// Most hook processes this factory runs at once; more wait for a free slot (their
    /// timeout keeps running while they wait). Default: 8 per CPU core, shared by all callers
    /// that set no limit.
    pub max_concurrent_hooks: Option<u32>,
}

/// How to run.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct RunOptions {
    /// Per-hook timeout in milliseconds (default 30000). A hook still running then has its
    /// whole process tree stopped and is reported `timedOut`.
    pub timeout_ms: Option<f64>,
    /// Aborting kills every running hook's process tree and rejects with an `AbortError`;
    /// an already-aborted signal starts nothing.
    #[napi(ts_type = "AbortSignal")]
    #[allow(dead_code)] // typed here for index.d.ts; the live object is read by signal.rs
    pub signal: Option<SignalField>,
    /// Variables added to the inherited environment of every hook.
    pub env: Option<HashMap<String, String>>,
    /// `false` (default): the hooks of one run start together. `true`: one after another.
    /// Results are always combined in discovery order.
    pub sequential: Option<bool>,
    /// Most hook processes this call runs at once, replacing the factory's limit.
    pub max_concurrent_hooks: Option<u32>,
    /// Fire and forget, for observation-only hooks: start the hooks with their input and
    /// resolve as soon as they have started (status `"started"`). Their output is not read,
    /// and they never hold the caller, its event loop or its exit.
    pub detached: Option<bool>,
}

/// `DiscoveryOptions & RunOptions`.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct RunHookOptions {
    /// See `DiscoveryOptions.workspaceRoots`.
    pub workspace_roots: Option<Vec<String>>,
    /// See `DiscoveryOptions.globalHooksDir`.
    #[napi(ts_type = "string | null")]
    pub global_hooks_dir: Option<Either<String, Null>>,
    /// See `DiscoveryOptions.extraHooksDirs`.
    pub extra_hooks_dirs: Option<Vec<String>>,
    /// See `DiscoveryOptions.profile`.
    #[napi(ts_type = "'extension' | 'cli'")]
    pub profile: Option<String>,
    /// See `DiscoveryOptions.clineDir`.
    pub cline_dir: Option<String>,
    /// See `RunOptions.maxConcurrentHooks`.
    pub max_concurrent_hooks: Option<u32>,
    /// See `RunOptions.timeoutMs`.
    pub timeout_ms: Option<f64>,
    /// See `RunOptions.signal`.
    #[napi(ts_type = "AbortSignal")]
    #[allow(dead_code)] // typed here for index.d.ts; the live object is read by signal.rs
    pub signal: Option<SignalField>,
    /// See `RunOptions.env`.
    pub env: Option<HashMap<String, String>>,
    /// See `RunOptions.sequential`.
    pub sequential: Option<bool>,
    /// See `RunOptions.detached`.
    pub detached: Option<bool>,
}

/// Stands in for the `signal` field during struct conversion; the signal object itself is
/// read separately (see `signal.rs`), because it must stay a live JavaScript object.
pub struct SignalField;

impl TypeName for SignalField {
    fn type_name() -> &'static str {
        "AbortSignal"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl FromNapiValue for SignalField {
    unsafe fn from_napi_value(
        _env: napi::sys::napi_env,
        _value: napi::sys::napi_value,
    ) -> Result<Self> {
        Ok(SignalField)
    }
}

impl ValidateNapiValue for SignalField {}

impl RunHookOptions {
    pub fn split(self) -> (DiscoveryOptions, RunOptions) {
        (
            DiscoveryOptions {
                workspace_roots: self.workspace_roots,
                global_hooks_dir: self.global_hooks_dir,
                extra_hooks_dirs: self.extra_hooks_dirs,
                profile: self.profile,
                cline_dir: self.cline_dir,
                max_concurrent_hooks: None,
            },
            RunOptions {
                timeout_ms: self.timeout_ms,
                signal: None,
                env: self.env,
                sequential: self.sequential,
                max_concurrent_hooks: self.max_concurrent_hooks,
                detached: self.detached,
            },
        )
    }
}

/// `global_null` says the caller passed `globalHooksDir: null` (global hooks off).
pub fn layout(options: &DiscoveryOptions) -> std::result::Result<Layout, HookError> {
    let absolute = |option: &'static str,
                    paths: &Option<Vec<String>>|
     -> std::result::Result<Vec<PathBuf>, HookError> {
        paths
            .iter()
            .flatten()
            .map(|p| absolute_path(option, p))
            .collect()
    };
    let global_hooks_dir = match &options.global_hooks_dir {
        Some(Either::B(Null)) => GlobalDir::Off,
        Some(Either::A(dir)) => GlobalDir::At(absolute_path("globalHooksDir", dir)?),
        None => GlobalDir::Default,
    };
    Ok(Layout {
        workspace_roots: absolute("workspaceRoots", &options.workspace_roots)?,
        global_hooks_dir,
        extra_hooks_dirs: absolute("extraHooksDirs", &options.extra_hooks_dirs)?,
        profile: match options.profile.as_deref() {
            None | Some("extension") => Profile::Extension,
            Some("cli") => Profile::Cli,
            Some(other) => {
                return Err(HookError::InvalidOption {
                    option: "profile",
                    reason: format!("{other:?} is not a profile; use \"extension\" or \"cli\""),
                })
            }
        },
        cline_dir: options
            .cline_dir
            .as_deref()
            .map(|d| absolute_path("clineDir", d))
            .transpose()?,
    })
}

fn absolute_path(option: &'static str, path: &str) -> std::result::Result<PathBuf, HookError> {
    if path.is_empty() {
        return Err(HookError::InvalidOption {
            option,
            reason: "an empty string is not a directory path".to_owned(),
        });
    }
    let absolute = std::path::absolute(path).map_err(|e| HookError::InvalidOption {
        option,
        reason: format!("{path:?}: {e}"),
    })?;
    Ok(normalize(&absolute))
}

/// Removes `.` and resolves `..` lexically (without following links), so one directory
/// spelled two ways is searched once.
fn normalize(path: &std::path::Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

pub fn process_limit(
    option: &'static str,
    value: Option<u32>,
) -> std::result::Result<Option<usize>, HookError> {
    match value {
        Some(0) => Err(HookError::InvalidOption {
            option,
            reason: "must be at least 1".to_owned(),
        }),
        other => Ok(other.map(|n| n as usize)),
    }
}

/// Longest accepted `timeoutMs`: a day. Longer is almost surely a unit mistake.
const MAX_TIMEOUT_MS: f64 = 86_400_000.0;

pub fn run_settings(
    options: RunOptions,
    abort: CancellationToken,
    owner: Owner,
) -> std::result::Result<RunSettings, HookError> {
    let timeout = match options.timeout_ms {
        Some(ms) if ms.is_finite() && (1.0..=MAX_TIMEOUT_MS).contains(&ms) => {
            Duration::from_millis(ms.ceil() as u64)
        }
        Some(ms) => {
            return Err(HookError::InvalidOption {
                option: "timeoutMs",
                reason: format!("{ms} is not a timeout: use a number of milliseconds from 1 to {MAX_TIMEOUT_MS} (24 hours)"),
            })
        }
        None => crate::hooks::runner::DEFAULT_TIMEOUT,
    };
    let mut env: Vec<(OsString, OsString)> = Vec::new();
    for (key, value) in options.env.into_iter().flatten() {
        if key.is_empty() || key.contains('=') || key.contains('\0') || value.contains('\0') {
            return Err(HookError::InvalidOption {
                option: "env",
                reason: format!("{key:?} is not a valid environment variable (names cannot be empty or contain '=' or NUL)"),
            });
        }
        env.push((key.into(), value.into()));
    }
    Ok(RunSettings {
        timeout,
        env,
        sequential: options.sequential.unwrap_or(false),
        detached: options.detached.unwrap_or(false),
        abort,
        max_processes: process_limit("maxConcurrentHooks", options.max_concurrent_hooks)?,
        owner,
    })
}

/// Converts an options object into `T`; no object means the defaults. A field of the wrong
/// type is an `InvalidOption` error (a rejection, never a synchronous throw).
pub fn read<T: FromNapiValue + Default>(
    env: &Env,
    options: Option<&Object>,
) -> std::result::Result<T, HookError> {
    let Some(obj) = options else {
        return Ok(T::default());
    };
    unsafe { T::from_napi_value(env.raw(), obj.raw()) }.map_err(|e| HookError::InvalidOption {
        option: "options",
        reason: e
            .reason
            .replace("Failed to convert JavaScript value", "got")
            .replace(" into rust type ", " where the API expects "),
    })
}

/// The hook input must be a plain object; checked without converting it.
pub fn check_input(input: &Unknown) -> std::result::Result<(), HookError> {
    match input.get_type() {
        Ok(ValueType::Object) if input.is_array().unwrap_or(false) => Err(HookError::InvalidInput(
            "the hook input must be a JSON object, not an array".to_owned(),
        )),
        Ok(ValueType::Object) => Ok(()),
        Ok(other) => Err(HookError::InvalidInput(format!(
            "the hook input must be a JSON object, not {}",
            format!("{other}").to_lowercase()
        ))),
        Err(e) => Err(HookError::InvalidInput(e.reason.clone())),
    }
}

/// Converts the hook input to JSON.
pub fn read_input(env: &Env, input: Unknown) -> std::result::Result<serde_json::Value, HookError> {
    check_input(&input)?;
    env.from_js_value::<serde_json::Value, _>(input)
        .map_err(|e| {
            HookError::InvalidInput(format!("it cannot be turned into JSON: {}", e.reason))
        })
}

/// The host's own Node binary (`process.execPath`), for `.js` hooks of the CLI profile.
pub fn node_path(env: &Env) -> Option<PathBuf> {
    static NODE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    NODE.get_or_init(|| {
        let global = env.get_global().ok()?;
        let process: Object = global.get_named_property("process").ok()?;
        let exec_path: String = process.get_named_property("execPath").ok()?;
        Some(exec_path.into())
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_timeout_is_the_contracts_30_seconds_and_bad_ones_are_refused() {
        let settings = run_settings(RunOptions::default(), CancellationToken::new(), 0).unwrap();
        assert_eq!(settings.timeout, Duration::from_secs(30));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let options = RunOptions {
                timeout_ms: Some(bad),
                ..RunOptions::default()
            };
            let refused = run_settings(options, CancellationToken::new(), 0);
            assert!(
                matches!(
                    refused,
                    Err(HookError::InvalidOption {
                        option: "timeoutMs",
                        ..
                    })
                ),
                "{bad}"
            );
        }
    }
}
