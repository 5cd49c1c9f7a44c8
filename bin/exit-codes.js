'use strict'

// Every exit status of cline-hooks, with what it means: the one table the code and `--help` use.

const { INPUT_LIMIT_TEXT } = require('./read-input')

const EXIT = {
  OK: 0,
  CANCEL: 1,
  /** doctor: a file will not run; enable: the file would still not run. */
  WILL_NOT_RUN: 1,
  USAGE: 2,
  STRICT: 3,
  INTERNAL: 70,
  OUTPUT_FAILED: 74,
  SIGHUP: 129,
  SIGINT: 130,
  OUTPUT_CLOSED: 141,
  SIGTERM: 143,
}

/** The signals that stop a run, and the status each one exits with (128 + its number). */
const SIGNAL_EXITS = { SIGHUP: EXIT.SIGHUP, SIGINT: EXIT.SIGINT, SIGTERM: EXIT.SIGTERM }

/** [status, meaning] rows for `--help`, in order. */
const EXIT_TABLE = [
  [EXIT.OK, 'list printed; or the hooks allowed the operation (a hook that failed or timed out blocks only with --on-failure block)'],
  [EXIT.CANCEL, 'the hooks cancelled the operation (a hook printed "cancel": true, or failed with --on-failure block)'],
  [EXIT.USAGE, `usage or input error, and no hook ran: a bad option or hook name; an --input that is unreadable, not a JSON object or over ${INPUT_LIMIT_TEXT}; a hooks folder that did not answer in time`],
  [EXIT.STRICT, 'run --strict: the hooks allowed the operation, but a hook did not complete (failed, timed out, did not start) or a file meant for the hook will not run'],
  [EXIT.INTERNAL, 'internal error in cline-hooks: one line on stderr says how to report it'],
  [EXIT.OUTPUT_FAILED, 'the output could not be written (for example, the disk is full)'],
  [EXIT.SIGHUP, 'SIGHUP (the terminal closed): the running hooks were stopped first'],
  [EXIT.SIGINT, 'SIGINT (Ctrl-C): the running hooks were stopped first'],
  [EXIT.OUTPUT_CLOSED, 'stdout was closed before all output was written (for example `| head -1`): the hooks had finished, their verdict was not printed'],
  [EXIT.SIGTERM, 'SIGTERM: the running hooks were stopped first'],
]

module.exports = { EXIT, SIGNAL_EXITS, EXIT_TABLE }
