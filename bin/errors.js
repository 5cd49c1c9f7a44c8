'use strict'

// The errors cline-hooks reports as a user's mistake (exit 2), as opposed to its own bugs (exit 70).

/** A mistake in how the CLI was called or in its input: exit 2 with one sentence. `hint`: add "(try cline-hooks --help)". */
class UsageError extends Error {
  constructor(message, { hint = true } = {}) {
    super(message)
    this.hint = hint
  }
}

module.exports = { UsageError }
