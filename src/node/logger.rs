//! Logging: the core's `tracing` records, sent to a JavaScript function (`setLogger`) without
//! blocking the runtime, or with `CLINE_HOOKS_LOG` set printed to stderr; off otherwise, where
//! a disabled record costs one atomic load at its call site.
//!
//! One subscriber is installed for the process as the addon loads (a process has one global
//! `tracing` dispatcher, set once); what it does with a record is swapped behind it. The core
//! installs none: an embedder chooses.

use std::fmt::{self, Write as _};
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use serde_json::{Map, Value};
use tracing_core::field::{Field, Visit};
use tracing_core::span::{Attributes, Id, Record};
use tracing_core::subscriber::Interest;
use tracing_core::{Dispatch, Event, Level, LevelFilter, Metadata, Subscriber};

use crate::node::errors::{self, Failure};
use crate::node::properties;
use cline_hooks_core::error::HookError;

/// Records waiting for the JavaScript thread (or the stderr writer) at most; more are dropped,
/// and counted.
const QUEUE: usize = 1024;

/// The levels by rank: 1 `error` .. 5 `trace`; 0 is off.
const LEVELS: [&str; 5] = ["error", "warn", "info", "debug", "trace"];

/// The rank records are delivered up to: the logger's level when one is set, else
/// `CLINE_HOOKS_LOG`'s, else 0.
static LEVEL: AtomicUsize = AtomicUsize::new(0);
/// `CLINE_HOOKS_LOG`'s rank, read as the addon loads.
static ENV_LEVEL: AtomicUsize = AtomicUsize::new(0);
/// Records dropped because a queue was full, since the last notice.
static DROPPED: AtomicU64 = AtomicU64::new(0);
/// Tells one logger's thread-safe function from the next (its finalizer must not clear a
/// newer one).
static GENERATION: AtomicU64 = AtomicU64::new(0);
/// The JavaScript logger, if one is set.
static SINK: Mutex<Option<JsSink>> = Mutex::new(None);
/// The stderr writer's queue, started at the first record printed.
static STDERR: OnceLock<Option<SyncSender<String>>> = OnceLock::new();
/// Lines queued for stderr and not yet written.
static UNWRITTEN: AtomicUsize = AtomicUsize::new(0);
/// Longest wait at exit for the stderr writer to finish the lines queued.
const EXIT_FLUSH: std::time::Duration = std::time::Duration::from_millis(500);

/// A JavaScript logger: its thread-safe function (unreferenced: it never keeps Node alive).
struct JsSink {
    tsfn: Tsfn,
    generation: u64,
    level: usize,
}

#[derive(Clone, Copy)]
struct Tsfn(sys::napi_threadsafe_function);
// Safety: napi's thread-safe functions are made to be called from any thread; it is used only
// under `SINK`'s lock, and never after its finalizer (which takes that lock) cleared it.
unsafe impl Send for Tsfn {}

/// Installs the process's `tracing` dispatcher and reads `CLINE_HOOKS_LOG`; runs once, as the
/// library loads.
pub fn install() {
    let env_level = match std::env::var("CLINE_HOOKS_LOG") {
        Ok(text) => match level_rank(&text) {
            Some(rank) => rank,
            None => {
                eprintln!(
                    "@cline/hooks: CLINE_HOOKS_LOG={} is not a log level; use error, warn, info, debug or trace",
                    Value::String(text)
                );
                0
            }
        },
        Err(_) => 0,
    };
    ENV_LEVEL.store(env_level, Ordering::Relaxed);
    LEVEL.store(env_level, Ordering::Relaxed);
    // Fails only if another dispatcher was set first (in this library's copy of `tracing`,
    // which no one else links): then logging stays off.
    let _ = tracing_core::dispatcher::set_global_default(Dispatch::new(Bridge));
}

/// The rank of a level name (`off` and the empty string are 0); `None` for anything else.
fn level_rank(name: &str) -> Option<usize> {
    let name = name.trim().to_ascii_lowercase();
    if name.is_empty() || name == "off" {
        return Some(0);
    }
    LEVELS.iter().position(|l| *l == name).map(|at| at + 1)
}

fn rank_of(level: &Level) -> usize {
    match *level {
        Level::ERROR => 1,
        Level::WARN => 2,
        Level::INFO => 3,
        Level::DEBUG => 4,
        _ => 5,
    }
}

fn filter_of(rank: usize) -> LevelFilter {
    match rank {
        0 => LevelFilter::OFF,
        1 => LevelFilter::ERROR,
        2 => LevelFilter::WARN,
        3 => LevelFilter::INFO,
        4 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    }
}

/// Sets the rank delivered and has every call site ask again, so a disabled one costs nothing.
fn set_level(rank: usize) {
    if LEVEL.swap(rank, Ordering::AcqRel) != rank {
        tracing_core::callsite::rebuild_interest_cache();
    }
}

/// The subscriber: events only (the core opens no spans), filtered by [`LEVEL`].
struct Bridge;

impl Subscriber for Bridge {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if self.enabled(metadata) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        rank_of(metadata.level()) <= LEVEL.load(Ordering::Relaxed)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(filter_of(LEVEL.load(Ordering::Relaxed)))
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let metadata = event.metadata();
        let rank = rank_of(metadata.level());
        if rank > LEVEL.load(Ordering::Relaxed) {
            return;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        deliver(rank, metadata.target(), fields);
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}

/// A record's message and fields, as JSON values.
#[derive(Default)]
struct Fields {
    message: String,
    fields: Map<String, Value>,
}

impl Fields {
    fn put(&mut self, field: &Field, value: Value) {
        match (field.name(), value) {
            ("message", Value::String(text)) => self.message = text,
            (name, value) => {
                self.fields.insert(name.to_owned(), value);
            }
        }
    }
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.put(field, Value::String(format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, Value::String(value.to_owned()));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, Value::from(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(field, Value::from(value));
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.put(field, Value::from(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, Value::Bool(value));
    }
}

/// Hands a record to the JavaScript logger, or (none set) to stderr when `CLINE_HOOKS_LOG`
/// asks for it. Never waits: a full queue drops the record and counts it.
fn deliver(rank: usize, target: &str, fields: Fields) {
    let sink = SINK.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(sink) = sink.as_ref() {
        if rank <= sink.level {
            let dropped = DROPPED.swap(0, Ordering::Relaxed);
            if dropped > 0 && !send(sink.tsfn, dropped_notice(dropped)) {
                DROPPED.fetch_add(dropped, Ordering::Relaxed);
            }
            if !send(sink.tsfn, js_record(rank, target, fields)) {
                DROPPED.fetch_add(1, Ordering::Relaxed);
            }
        }
        return;
    }
    drop(sink);
    if rank <= ENV_LEVEL.load(Ordering::Relaxed) {
        print_line(stderr_line(rank, target, &fields));
    }
}

/// `{ level, target, message, fields }`.
fn js_record(rank: usize, target: &str, fields: Fields) -> Value {
    let mut record = Map::new();
    record.insert("level".into(), LEVELS[rank - 1].into());
    record.insert("target".into(), target.into());
    record.insert("message".into(), fields.message.into());
    record.insert("fields".into(), Value::Object(fields.fields));
    Value::Object(record)
}

/// The record that says how many were dropped.
fn dropped_notice(dropped: u64) -> Value {
    let mut fields = Map::new();
    fields.insert("dropped".into(), dropped.into());
    js_record(
        2,
        "cline_hooks",
        Fields {
            message: format!("{dropped} log records were dropped: the logger did not keep up"),
            fields,
        },
    )
}

/// `2026-11-24T17:00:00.000Z DEBUG target: message name=value ...`, newline-terminated.
fn stderr_line(rank: usize, target: &str, fields: &Fields) -> String {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let time =
        cline_hooks_core::event::timestamp(cline_hooks_core::discovery::Profile::Cli, since_epoch);
    let level = LEVELS[rank - 1].to_ascii_uppercase();
    let mut line = format!("{time} {level:5} {target}: {}", fields.message);
    for (name, value) in &fields.fields {
        let _ = write!(line, " {name}={value}");
    }
    line.push('\n');
    line
}

/// Queues `line` for the stderr writer thread (started at the first line): a full queue, or
/// a stderr that does not take it, never holds a runtime thread.
fn print_line(line: String) {
    let queue = STDERR.get_or_init(|| {
        let (queue, lines) = sync_channel::<String>(QUEUE);
        std::thread::Builder::new()
            .name("cline-hooks-log".into())
            .spawn(move || {
                for line in lines {
                    let _ = std::io::stderr().write_all(line.as_bytes());
                    UNWRITTEN.fetch_sub(1, Ordering::AcqRel);
                }
            })
            .ok()
            .map(|_| {
                flush_at_exit();
                queue
            })
    });
    if let Some(queue) = queue {
        UNWRITTEN.fetch_add(1, Ordering::AcqRel);
        if queue.try_send(line).is_err() {
            UNWRITTEN.fetch_sub(1, Ordering::AcqRel);
            DROPPED.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Waits for the lines queued for stderr to be written: the last records of a process that
/// exits at once are the ones that say how it ended. At most [`EXIT_FLUSH`] in all, from the
/// first wait: a process ending by itself waits at its environment's teardown and again at
/// exit, and a stderr nobody reads must not hold it twice.
fn flush_stderr() {
    static FIRST_WAIT: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let started = *FIRST_WAIT.get_or_init(std::time::Instant::now);
    while UNWRITTEN.load(Ordering::Acquire) > 0 && started.elapsed() < EXIT_FLUSH {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Has the process's exit (`process.exit()` included) wait for the stderr writer.
#[cfg(unix)]
fn flush_at_exit() {
    extern "C" fn at_exit() {
        flush_stderr();
    }
    // Safety: registers a plain function with no captured state.
    unsafe { libc::atexit(at_exit) };
}

/// Has an environment's teardown wait for the stderr writer (Windows: no `atexit` here).
#[cfg(not(unix))]
fn flush_at_exit() {}

/// Registers the stderr flush with `env`'s teardown (a Node process that ends by itself).
pub fn on_env(env: &Env) {
    unsafe extern "C" fn cleanup(_arg: *mut std::ffi::c_void) {
        flush_stderr();
    }
    // Safety: a plain napi call on this thread's env, with a function and no data.
    unsafe { sys::napi_add_env_cleanup_hook(env.raw(), Some(cleanup), std::ptr::null_mut()) };
}

/// Queues `record` for the JavaScript thread without waiting; `false` when it was not queued
/// (the queue is full, or the logger is going away).
fn send(tsfn: Tsfn, record: Value) -> bool {
    let data = Box::into_raw(Box::new(record));
    // Safety: the function is alive (see `Tsfn`); `data` is ours until the call succeeds, then
    // `call_js` takes it back.
    let status = unsafe {
        sys::napi_call_threadsafe_function(
            tsfn.0,
            data.cast(),
            sys::ThreadsafeFunctionCallMode::nonblocking,
        )
    };
    if status != sys::Status::napi_ok {
        // Safety: not queued, so still ours.
        drop(unsafe { Box::from_raw(data) });
        return false;
    }
    true
}

/// On the JavaScript thread: calls the logger with the record. Whatever it throws is caught
/// and dropped; with a null env (the logger is going away) the record is only freed.
unsafe extern "C" fn call_js(
    env: sys::napi_env,
    callback: sys::napi_value,
    _context: *mut std::ffi::c_void,
    data: *mut std::ffi::c_void,
) {
    if data.is_null() {
        return;
    }
    // Safety: `data` is the box `send` queued, handed over once.
    let record = unsafe { Box::from_raw(data.cast::<Value>()) };
    if env.is_null() || callback.is_null() {
        return;
    }
    let Ok(argument) = properties::json_value(env, &record) else {
        clear_exception(env);
        return;
    };
    let mut this = std::ptr::null_mut();
    let mut result = std::ptr::null_mut();
    // Safety: plain napi calls on the JavaScript thread's env.
    unsafe {
        sys::napi_get_undefined(env, &mut this);
        if sys::napi_call_function(env, this, callback, 1, &argument, &mut result)
            != sys::Status::napi_ok
        {
            clear_exception(env);
        }
    }
}

/// Drops a pending exception (a logger that threw): it must reach neither the host's
/// `uncaughtException` nor the next napi call.
fn clear_exception(env: sys::napi_env) {
    let mut pending = false;
    let mut thrown = std::ptr::null_mut();
    // Safety: plain napi calls on the JavaScript thread's env.
    unsafe {
        if sys::napi_is_exception_pending(env, &mut pending) == sys::Status::napi_ok && pending {
            sys::napi_get_and_clear_last_exception(env, &mut thrown);
        }
    }
}

/// The logger's thread-safe function is gone (its environment was torn down, or it was
/// released): forget it, unless a newer logger took its place.
unsafe extern "C" fn finalized(
    _env: sys::napi_env,
    data: *mut std::ffi::c_void,
    _hint: *mut std::ffi::c_void,
) {
    let generation = data as u64;
    let mut sink = SINK.lock().unwrap_or_else(PoisonError::into_inner);
    if sink.as_ref().is_some_and(|s| s.generation == generation) {
        *sink = None;
        drop(sink);
        set_level(ENV_LEVEL.load(Ordering::Relaxed));
    }
}

/// A record given to the logger of `setLogger`.
#[napi(object, object_from_js = false)]
#[allow(dead_code)] // typed here for index.d.ts; records are built as JSON in `js_record`
pub struct LogRecord {
    /// How much it matters.
    #[napi(ts_type = "'error' | 'warn' | 'info' | 'debug' | 'trace'")]
    pub level: String,
    /// Where in the runtime it comes from: its Rust module (`cline_hooks_core::process::spawn`).
    pub target: String,
    /// What happened (`hook started`).
    pub message: String,
    /// The details, by name (`hook`, `argv`, `pid`, `status`, ...).
    #[napi(ts_type = "Record<string, string | number | boolean | null>")]
    pub fields: Map<String, Value>,
}

/// Options of `setLogger`.
#[napi(object, object_to_js = false)]
#[allow(dead_code)] // typed here for index.d.ts; read by hand in `set_logger`
pub struct LoggerOptions {
    /// The most detailed level given to the logger (default `'info'`): `'error'`, `'warn'`,
    /// `'info'`, `'debug'` (discovery decisions, hook starts with their argv, exits, output
    /// read) or `'trace'` (also each discovery cache hit and miss).
    #[napi(ts_type = "'error' | 'warn' | 'info' | 'debug' | 'trace'")]
    pub level: Option<String>,
}

/// Routes the runtime's log records to `logger` (one call per record, `{ level, target,
/// message, fields }`), up to `options.level` (default `'info'`), or with `null` stops.
/// Records are queued for the JavaScript thread and never wait for it: a slow logger makes
/// the queue (1,024 records) drop records, then one `warn` record says how many; a logger
/// that throws is ignored. It does not keep Node alive. One logger per process: the last
/// call wins. Without a logger, `CLINE_HOOKS_LOG=debug` (or another level) prints records to
/// stderr.
#[napi(
    catch_unwind,
    ts_args_type = "logger: ((record: LogRecord) => void) | null, options?: LoggerOptions",
    ts_return_type = "void"
)]
pub fn set_logger(env: &Env, logger: Option<Unknown>, options: Option<Unknown>) -> Result<()> {
    let level = match logger_level(env, options) {
        Ok(level) => level,
        Err(failure) => return Err(errors::throw(env, failure)),
    };
    let new = match logger.as_ref().map(|l| l.get_type()).transpose()? {
        None | Some(ValueType::Null | ValueType::Undefined) => None,
        Some(ValueType::Function) => Some(create(env, logger.as_ref(), level)?),
        Some(_) => {
            let given = logger
                .as_ref()
                .map(crate::node::describe::describe_value)
                .unwrap_or_default();
            let failure = Failure::from(HookError::InvalidOption {
                option: "logger",
                reason: format!(
                    "{given} was given; pass a function taking one record ({{ level, target, message, fields }}), or null to stop logging"
                ),
            });
            return Err(errors::throw(env, failure));
        }
    };
    let rank = new.as_ref().map(|s| s.level);
    let old = std::mem::replace(
        &mut *SINK.lock().unwrap_or_else(PoisonError::into_inner),
        new,
    );
    if let Some(old) = old {
        // Safety: taken out of `SINK`, so no thread calls it any more.
        unsafe {
            sys::napi_release_threadsafe_function(
                old.tsfn.0,
                sys::ThreadsafeFunctionReleaseMode::release,
            )
        };
    }
    set_level(rank.unwrap_or_else(|| ENV_LEVEL.load(Ordering::Relaxed)));
    Ok(())
}

/// `options.level` as a rank (default `info`), checked as every option is.
fn logger_level<'env>(
    env: &'env Env,
    options: Option<Unknown<'env>>,
) -> std::result::Result<usize, Failure<'env>> {
    let Some(options) = crate::node::options::options_object_like(options, "{ level: 'debug' }")?
    else {
        return Ok(3);
    };
    crate::node::options::known_keys(env, &options, "setLogger", &["level"])?;
    let value: Unknown = options.get_named_property("level").map_err(|_| {
        Failure::thrown(
            env,
            HookError::InvalidOption {
                option: "level",
                reason: "reading it threw (the error's cause is what it threw); pass a plain value"
                    .to_owned(),
            },
        )
    })?;
    let refuse = |shown: String| HookError::InvalidOption {
        option: "level",
        reason: format!("{shown}; use 'error', 'warn', 'info', 'debug' or 'trace'"),
    };
    let internal = |e: Error| Failure::from(HookError::Internal(e.reason));
    match value.get_type().map_err(internal)? {
        ValueType::Undefined | ValueType::Null => Ok(3),
        ValueType::String => {
            // Safety: checked to be a string.
            let text =
                unsafe { String::from_napi_value(env.raw(), value.raw()) }.map_err(internal)?;
            match level_rank(&text) {
                Some(rank) if rank > 0 && LEVELS.contains(&text.as_str()) => Ok(rank),
                _ => Err(refuse(format!(
                    "{} is not a level",
                    cline_hooks_core::error::quoted(&text)
                ))
                .into()),
            }
        }
        other => Err(refuse(format!(
            "{} was given",
            crate::node::describe::describe_type(other)
        ))
        .into()),
    }
}

/// A logger's thread-safe function for `logger`, unreferenced, with a bounded queue.
fn create(env: &Env, logger: Option<&Unknown>, level: usize) -> Result<JsSink> {
    let Some(logger) = logger else {
        return Err(Error::new(Status::InvalidArg, "no logger"));
    };
    let generation = GENERATION.fetch_add(1, Ordering::Relaxed) + 1;
    let name = env.create_string("@cline/hooks logger")?;
    let mut tsfn = std::ptr::null_mut();
    // Safety: a plain napi call on this thread's env; the finalize data is a plain number.
    check_status!(unsafe {
        sys::napi_create_threadsafe_function(
            env.raw(),
            logger.raw(),
            std::ptr::null_mut(),
            name.raw(),
            QUEUE,
            1,
            generation as *mut std::ffi::c_void,
            Some(finalized),
            std::ptr::null_mut(),
            Some(call_js),
            &mut tsfn,
        )
    })?;
    // Safety: just created on this thread.
    check_status!(unsafe { sys::napi_unref_threadsafe_function(env.raw(), tsfn) })?;
    Ok(JsSink {
        tsfn: Tsfn(tsfn),
        generation,
        level,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_names_have_ranks_and_anything_else_is_none() {
        assert_eq!(level_rank("error"), Some(1));
        assert_eq!(level_rank(" DEBUG "), Some(4));
        assert_eq!(level_rank("trace"), Some(5));
        assert_eq!(level_rank("off"), Some(0));
        assert_eq!(level_rank(""), Some(0));
        assert_eq!(level_rank("verbose"), None);
        assert_eq!(filter_of(0), LevelFilter::OFF);
        assert_eq!(filter_of(rank_of(&Level::INFO)), LevelFilter::INFO);
    }

    #[test]
    fn a_stderr_line_has_the_time_level_target_message_and_fields() {
        let mut fields = Fields {
            message: "hook started".into(),
            ..Fields::default()
        };
        fields.fields.insert("pid".into(), 42.into());
        fields.fields.insert("hook".into(), "/h/PreToolUse".into());
        let line = stderr_line(4, "cline_hooks_core::process::spawn", &fields);
        assert!(line.ends_with(
            " DEBUG cline_hooks_core::process::spawn: hook started pid=42 hook=\"/h/PreToolUse\"\n"
        ), "{line}");
        assert!(line.starts_with("20"), "{line}");
    }
}
