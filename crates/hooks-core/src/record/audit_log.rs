//! The audit log (`auditLog`): one JSON line per hook execution, appended with one `write` per
//! line to a file opened for appending (`O_APPEND`; `FILE_APPEND_DATA` on Windows), so lines
//! written by many runs and processes at once never interleave.

use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};

use crate::process::Execution;

/// The audit line of `exec` (newline-terminated): `time` (ISO 8601, UTC), `runId`, `hookName`,
/// `path`, `source`, `sha256` (of the file discovery read; null when unknown), `status`,
/// `durationMs`, `exitCode`, `signal` (its name), `signalNumber`, `failureKind`, `cancel`,
/// `review`, `inputOverridden`, `stdoutBytes`, `stderrBytes`, `confined`: the names and words of the API's
/// `HookExecution`. Pure.
pub fn audit_line(exec: &Execution, sha256: Option<&str>, run_id: &str, time: &str) -> String {
    let duration_ms = (exec.duration.as_secs_f64() * 1_000_000.0).round() / 1000.0;
    let signal = exec.signal.as_deref().map(crate::process::signal_parts);
    let line = json!({
        "time": time,
        "runId": run_id,
        "hookName": exec.hook_name,
        "path": exec.path.to_string_lossy(),
        "source": exec.source.as_str(),
        "sha256": sha256,
        "status": exec.status.as_str(),
        "durationMs": duration_ms,
        "exitCode": exec.exit_code,
        "signal": signal.map(|(name, _)| name),
        "signalNumber": signal.and_then(|(_, number)| number),
        "failureKind": exec.failure_kind.map(|k| k.as_str()),
        "cancel": exec.cancel,
        "review": exec.review,
        "inputOverridden": exec.override_input.is_some(),
        "stdoutBytes": exec.output_bytes.0,
        "stderrBytes": exec.output_bytes.1,
        "confined": exec.confined,
    });
    let mut text = Value::to_string(&line);
    text.push('\n');
    text
}

/// Appends `lines` to the audit log at `path`, one `write` each, creating the file (and its
/// folders) if needed. The error is a warning for the run, naming the file and the fix.
pub fn append_lines(path: &Path, lines: &[String]) -> Result<(), String> {
    let fail = |what: String| {
        format!(
            "the audit log {} was not written: {what}; check that its folder is writable, or pass another auditLog",
            path.display()
        )
    };
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)
            .map_err(|e| fail(format!("its folder could not be created ({e})")))?;
    }
    let mut file = super::open_for_append(path).map_err(fail)?;
    for line in lines {
        // One write per line: a line is never split among other processes' lines.
        match file.write(line.as_bytes()) {
            Ok(n) if n == line.len() => {}
            Ok(n) => {
                return Err(fail(format!(
                    "only {n} of a line's {} bytes were written (is the disk full?)",
                    line.len()
                )))
            }
            Err(e) => return Err(fail(e.to_string())),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::DiscoveredHook;
    use crate::process::{FailureKind, Status};
    use std::time::Duration;

    #[test]
    fn an_audit_line_is_one_json_object_with_every_field() {
        let hook = DiscoveredHook::sample("/ws/.clinerules/hooks/PreToolUse");
        let mut exec = Execution::of(&hook, Status::Failed);
        exec.duration = Duration::from_micros(12_345);
        exec.exit_code = Some(3);
        exec.failure_kind = Some(FailureKind::Crash);
        exec.cancel = true;
        exec.override_input = Some(serde_json::Map::new());
        exec.output_bytes = (10, 20);
        let line = audit_line(&exec, Some("ab12"), "run1", "2026-11-24T17:00:00.000Z");
        assert!(line.ends_with('\n') && !line[..line.len() - 1].contains('\n'));
        let parsed: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            parsed,
            json!({
                "time": "2026-11-24T17:00:00.000Z", "runId": "run1", "hookName": "PreToolUse",
                "path": "/ws/.clinerules/hooks/PreToolUse", "source": "workspace", "sha256": "ab12",
                "status": "failed", "durationMs": 12.345, "exitCode": 3, "signal": null, "signalNumber": null,
                "failureKind": "crash", "cancel": true, "review": false, "inputOverridden": true,
                "stdoutBytes": 10, "stderrBytes": 20, "confined": false
            })
        );
        let unknown = audit_line(&exec, None, "run1", "t");
        assert!(unknown.contains("\"sha256\":null"), "{unknown}");
    }

    #[test]
    fn lines_are_appended_and_a_folder_that_cannot_be_a_folder_is_a_warning() {
        let dir = crate::record::scratch("audit-append");
        let log = dir.join("logs/audit.jsonl");
        append_lines(&log, &["{\"a\":1}\n".to_owned()]).unwrap();
        append_lines(&log, &["{\"b\":2}\n".to_owned(), "{\"c\":3}\n".to_owned()]).unwrap();
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(text, "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n");

        std::fs::write(dir.join("file"), "").unwrap();
        let why = append_lines(&dir.join("file/audit.jsonl"), &["x\n".to_owned()]).unwrap_err();
        assert!(why.starts_with("the audit log "), "{why}");
        assert!(why.contains("pass another auditLog"), "{why}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
