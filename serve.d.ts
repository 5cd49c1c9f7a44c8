// `@cline/hooks/serve`: write a hook as one function, and it answers in both of the runtime's
// modes: persistent (`CLINE_HOOK_MODE=persistent`, one JSON event per line of stdin, one answer
// per line of stdout, until EOF) and per-event (one JSON object on stdin, one answer).

/**
 * A hook's input: one JSON object. Its fields depend on the hook and the profile: the common
 * ones (`hookName`, `timestamp`, `workspaceRoots`, `model`, ...) and one named after the hook
 * (`preToolUse: { tool, parameters }`, `postToolUse`, `taskStart`, ... ; in the `cli` profile
 * `tool_call`, `tool_result`, ...). See "Writing a hook" in the README.
 */
export type HookInput = Record<string, unknown>

/** A hook's answer. Every field is optional; `{}` (or returning nothing) lets the operation go ahead. */
export interface HookVerdict {
  /** `true` stops the operation (a tool call, a task, a prompt). */
  cancel?: boolean
  /** Text added to the model's next turn (the extension profile). */
  contextModification?: string
  /** Shown to the user when `cancel` is `true`. */
  errorMessage?: string
  /** The `cli` profile's context field. */
  context?: string
  /** The `cli` profile: ask the user to review the tool call. */
  review?: boolean
  /** The `cli` profile: replace the tool call's input. */
  overrideInput?: Record<string, unknown>
  /** The older reference's opposite of `cancel`. */
  shouldContinue?: boolean
  [field: string]: unknown
}

/**
 * Answers one event. Returning (or resolving to) `undefined` is `{}`. Throwing, rejecting, or
 * returning anything but a plain object prints the error with its stack to stderr and exits
 * the process with code 1: the runtime reports the event as failed (the hook's failure policy
 * applies) and starts a persistent hook again for the next event.
 */
export type HookHandler<Input extends object = HookInput> = (
  event: Input,
) => HookVerdict | undefined | void | Promise<HookVerdict | undefined | void>

export interface ServeHookOptions {
  /**
   * How to read stdin. Default: `'persistent'` when the environment has
   * `CLINE_HOOK_MODE=persistent` (the runtime sets it for a hook whose header says
   * `mode=persistent`), otherwise `'per-event'`.
   */
  mode?: 'persistent' | 'per-event'
}

/** What `serveHook` resolves with once stdin has ended and every answer is written. */
export interface ServeHookResult {
  /** The mode it served in. */
  mode: 'persistent' | 'per-event'
  /** How many events it answered (empty lines are not events). */
  events: number
}

/**
 * Serves `handler` on this process's stdin and stdout, one event at a time and in order.
 * While it serves, whatever the process writes to stdout other than the answers
 * (`console.log`, `console.info`, `console.debug`, `process.stdout.write`, ...) goes to stderr,
 * so no log line can be taken for an answer. Resolves when stdin ends (the runtime's "stop
 * now") after the events already received are answered; the console is given back then.
 * Close what the handler opened (timers, connections) after it resolves so the process can exit.
 * After a failure the process exits with code 1 and the promise never settles.
 *
 * @throws TypeError when `handler` is not a function or an option is unknown or invalid;
 *   Error when called a second time in one process.
 */
export declare function serveHook<Input extends object = HookInput>(
  handler: HookHandler<Input>,
  options?: ServeHookOptions,
): Promise<ServeHookResult>
