// Reading what the Cline runtime logged: JSON lines (the CLI's pino log, its `--json` stdout) and
// the stop reason of a run a hook stopped, which the runtime reports only in its log.
'use strict'

/** Parses JSON-object lines; other lines are returned apart, so nothing is silently lost. */
function parseJsonLines(text) {
  const entries = []
  const other = []
  for (const line of String(text ?? '').split('\n')) {
    if (!line.trim()) continue
    try {
      const value = JSON.parse(line)
      if (value && typeof value === 'object' && !Array.isArray(value)) entries.push(value)
      else other.push(line)
    } catch {
      other.push(line)
    }
  }
  return { entries, other }
}

/**
 * The reason a hook (file hook, plugin or runtime hook) stopped the run with, or undefined.
 * A stop becomes a `ControlledStopError` whose message is the reason; the agent loop logs it as
 * "Agent loop caught error" with `errorName` and `errorMessage` (pino level 40 in the CLI's
 * ~/.cline/data/logs/cline.log; `logger.log` with `severity: "warn"` in an SDK host). The CLI's
 * `--json` stdout only says `run_aborted` / "aborted by another client".
 */
function controlledStopReason(logEntries) {
  let reason
  for (const entry of logEntries ?? []) {
    if (entry && entry.errorName === 'ControlledStopError') reason = entry.errorMessage
  }
  return reason
}

module.exports = { parseJsonLines, controlledStopReason }
