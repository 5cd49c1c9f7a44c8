'use strict'

// What the SDK's runtime hooks resolve with, from this runtime's combined result. Pure
// functions. The SDK's rules, per hook: a cancel stops with its `errorMessage` (else its
// context) as the reason; otherwise its context (else its `errorMessage`) is appended for the
// model; `overrideInput` replaces a tool's input. Where this runtime is stricter it says so:
// a printed cancel is kept even when the hook then failed, and a stop always has a reason.
// Stop or go is read from the runtime's result only (`cancel`; each execution's `status`,
// `started`), so how a hook is run and by which entry point never changes what it decides.

const path = require('path')

/** Whether a hook printed `field` as a string (its verdict object is kept whole). */
function printed(execution, field) {
  return execution.output !== null && typeof execution.output[field] === 'string'
}

/** Whether the execution is a Claude Code settings handler's (`claudeSettings`). */
function isClaudeHandler(execution) {
  return typeof execution.source === 'string' && execution.source.startsWith('claude')
}

/**
 * A hook's context as the SDK reads it: `context`, else `contextModification`, else
 * `errorMessage`. A Claude settings handler prints none of those: its context is what the
 * runtime read from its answer (`additionalContext`, plain stdout, a PostToolUse exit 2's
 * stderr), and its `errorMessage` (a `systemMessage`) is for the user, not the model.
 */
function contextOf(execution) {
  if (isClaudeHandler(execution)) return execution.contextModification
  return printed(execution, 'context') || printed(execution, 'contextModification')
    ? execution.contextModification
    : execution.errorMessage
}

/** A cancelling hook's reason as the SDK reads it: a non-blank `errorMessage`, else its context. */
function reasonOf(execution) {
  return execution.errorMessage.trim() ? execution.errorMessage : execution.contextModification
}

/**
 * Whether the runtime refused to start this hook because its file is no longer the one the
 * user approved (trust policy): like an unapproved hook at discovery, not run and no failure.
 * The result has no structured field for it (no `failureKind`, status `failed`), so this reads
 * the runtime's sentence, which starts with its constant `not trusted:` (NOT_TRUSTED_CHANGED in
 * crates/hooks-core/src/policy/trust.rs). The one place the adapter reads a sentence to decide.
 */
function refusedAsUntrusted(execution) {
  return typeof execution.failure === 'string' && execution.failure.startsWith('not trusted:')
}

/**
 * Whether this hook applied to the event and never started (no process slot before its timeout,
 * refused by the system, stopped before its start): a guardrail that did not run. A hook its
 * header's `tools=` skipped (status `skipped`, with a `skipReason`) did not apply: it never counts.
 */
function appliedButNotStarted(execution) {
  return !execution.started && execution.status !== 'skipped' && !refusedAsUntrusted(execution)
}

function joinNonBlank(texts) {
  return texts.filter((text) => typeof text === 'string' && text.trim()).join('\n')
}

/**
 * `{ stop, reason }` when any hook cancelled, else `{ appendContext }` from the hooks that
 * completed; `input` from `overrideInput` when `withInput`; `review` when a hook asked for it.
 * `undefined` when there is nothing to say, as the SDK resolves.
 */
function controlOf(result, hookName, { withInput }) {
  const unstarted = result.hooks.filter(appliedButNotStarted)
  if (!result.cancel && unstarted.length > 0) {
    // A guardrail that never ran must not let the operation through.
    const why = unstarted.map((execution) => `${path.basename(execution.path)}: ${execution.failure}`).join('; ')
    return { stop: true, reason: `The ${hookName} hooks did not all run (${why})` }
  }
  const control = {}
  if (result.cancel) {
    const cancelling = result.hooks.filter((execution) => execution.cancel)
    control.stop = true
    control.reason =
      joinNonBlank(cancelling.map(reasonOf)) ||
      // No hook cancelled itself: the run's failure policy did, and its errorMessage says why.
      (cancelling.length === 0 ? result.errorMessage.trim() : '') ||
      `Blocked by the ${hookName} hook ${cancelling.map((execution) => path.basename(execution.path)).join(', ')}.`
  } else {
    const appendContext = joinNonBlank(
      result.hooks.filter((execution) => execution.status === 'completed').map(contextOf),
    )
    if (appendContext) control.appendContext = appendContext
  }
  if (withInput && result.overrideInput !== null) control.input = result.overrideInput
  if (result.review) control.review = true
  return Object.keys(control).length > 0 ? control : undefined
}

/**
 * A stop for a blocking event whose hooks could not be run at all (discovery timed out, no
 * thread): a guardrail that did not run must not let the operation through unnoticed.
 */
function couldNotRun(hookName, error) {
  const code = error && error.code ? ` (${error.code})` : ''
  const message = error && error.message ? error.message : String(error)
  return { stop: true, reason: `The ${hookName} hooks could not run${code}: ${message}` }
}

/** Two events' controls as one: the first stop wins; contexts are joined, first first. */
function combineControls(first, second) {
  if (!first) return second
  if (!second) return first
  if (first.stop) return first
  if (second.stop) return second
  const combined = { ...first, ...second }
  const appendContext = joinNonBlank([first.appendContext, second.appendContext])
  if (appendContext) combined.appendContext = appendContext
  return combined
}

module.exports = { controlOf, couldNotRun, combineControls, appliedButNotStarted, refusedAsUntrusted }
