// `@cline/hooks/sdk`: the Cline SDK's file hooks, run by @cline/hooks. The shapes below are the
// parts of `@cline/shared`'s runtime-hook types this adapter reads and returns, so the object
// `createFileHooks` returns is assignable to the SDK's `AgentHooks` without this package
// depending on the SDK.

import type { CliEventName } from '..'

/** The SDK's `BasicLogger`. */
export interface FileHooksLogger {
  debug?: (message: string, metadata?: Record<string, unknown>) => void
  log: (message: string, metadata?: Record<string, unknown>) => void
}

/** The events the adapter runs hooks for (the SDK's `HookEventName`, less `pre_compact`): the `cli` profile's event names. */
export type FileHookEventName = CliEventName

/** The SDK's `HookRuntimeObserver` event: how long a lifecycle hook ran. */
export interface HookRuntimeEvent {
  hookName: FileHookEventName
  durationMs: number
  exitCode: number | null
  exited: boolean
}

/**
 * The options of the SDK's `createHookConfigFileHooks`, then those of `runHook`.
 * Unknown options are refused (`ERR_INVALID_OPTION`), as `runHook` does.
 */
export interface FileHooksOptions {
  /** The workspace folder: its `.clinerules/hooks` and `.cline/hooks` are searched, and payloads name it. */
  workspacePath: string
  /**
   * Accepted for the SDK's signature. Hooks run in their workspace root (global ones in the
   * host's current directory), as in the `cli` profile.
   */
  cwd?: string
  /** `sessionContext.rootSessionId` of every payload; default: the conversation id. */
  rootSessionId?: string
  /** Where failures (warn) and notes (debug) go; default: `console.warn` for failures. */
  logger?: FileHooksLogger
  /** Per-hook timeout of blocking events in ms; default 120000, as the SDK. Same as `timeoutMs`. */
  toolCallTimeoutMs?: number
  /**
   * `true` (default): lifecycle hooks (`agent_end`, `agent_error`, `agent_abort`,
   * `session_shutdown`, and `agent_start`/`agent_resume`/`prompt_submit` unless blocking) are
   * started and left running. `false`: awaited, their verdicts ignored (for tests).
   */
  detachAsyncHooks?: boolean
  /**
   * Await `agent_start`/`agent_resume` and `prompt_submit` hooks and honour them: a cancel stops
   * the run with its reason, context reaches the model (for a prompt, after it, on every
   * request). Default `false`, as the SDK: a long-running start hook would hold every run.
   */
  blockingRunStartHooks?: boolean
  /**
   * Called per hook of an awaited lifecycle run (`detachAsyncHooks: false`) with its duration.
   * Unlike the SDK's runner, detached hooks are not observed: this runtime does not follow a
   * hook it left running.
   */
  onHookRuntime?: (event: HookRuntimeEvent) => void
  /** Forwarded into every payload as `workspaceInfo`. */
  workspaceInfo?: unknown
  /** Replaces `[workspacePath]` as the roots searched (`[]`: no workspace folders). */
  workspaceRoots?: Array<string>
  /** See `DiscoveryOptions.globalHooksDir`; `null` turns the global folders off. */
  globalHooksDir?: string | null
  /** See `DiscoveryOptions.managedHooksDir`; `null`: no managed folder. Default: the system's. */
  managedHooksDir?: string | null
  /** Searched first; default: `CLINE_HOOKS_DIR` (the CLI's `--hooks-dir`) when set. */
  extraHooksDirs?: Array<string>
  /** See `DiscoveryOptions.clineDir`. */
  clineDir?: string
  /** See `DiscoveryOptions.maxConcurrentHooks`. */
  maxConcurrentHooks?: number
  /** Same as `toolCallTimeoutMs` (give one, or both equal). */
  timeoutMs?: number
  /**
   * See `RunOptions.maxTimeoutMs`: the longest timeout a hook's header (`timeout=`) may ask
   * for; a longer one runs with this. Default 600000 (10 minutes).
   */
  maxTimeoutMs?: number
  /** Aborting stops every running hook tree of these hooks. */
  signal?: AbortSignal
  /** See `RunOptions.env`. */
  env?: Record<string, string | undefined>
  /** See `RunOptions.sequential`. */
  sequential?: boolean
  /** See `DiscoveryOptions.policyFile`: the user's store of approvals and disabled hooks. */
  policyFile?: string
  /** See `DiscoveryOptions.trust`; needs `policyFile`. */
  trust?: 'workspace' | 'all' | 'off'
  /**
   * See `DiscoveryOptions.requireHooks`: hook or event names (`"PreToolUse"`, `"tool_call"`)
   * whose events are blocked, with a message saying why, when no hook of that name starts.
   */
  requireHooks?: string[]
  /**
   * See `DiscoveryOptions.claudeSettings`: also run the hooks of Claude Code's settings files
   * (`~/.claude/settings.json`, each root's `.claude/settings.json` and `settings.local.json`).
   */
  claudeSettings?: boolean
  /**
   * See `DiscoveryOptions.sandbox`: run hooks confined in an OS sandbox (`'workspace'`: the
   * hooks a repository brings; `'all'`: every hook but the managed ones).
   */
  sandbox?: 'off' | 'workspace' | 'all'
  /** See `DiscoveryOptions.sandboxWritable`. */
  sandboxWritable?: string[]
  /** See `DiscoveryOptions.sandboxNetwork`. */
  sandboxNetwork?: boolean
  /** See `RunOptions.onFailure`. */
  onFailure?: 'allow' | 'block' | { timeout?: 'allow' | 'block'; crash?: 'allow' | 'block'; startFailure?: 'allow' | 'block'; invalidOutput?: 'allow' | 'block' }
  /** See `RunOptions.scrubEnv`. */
  scrubEnv?: boolean | Array<string>
}

interface Message {
  id: string
  role: string
  content: ReadonlyArray<unknown>
  metadata?: Record<string, unknown>
}

interface Snapshot {
  agentId: string
  conversationId?: string
  runId?: string
  parentAgentId?: string | null
  iteration: number
  /** At `beforeRun`: the conversation, the run's own prompt last. */
  messages?: ReadonlyArray<Message>
}

interface ToolCall {
  toolCallId: string
  toolName: string
}

/** What a blocking hook event resolves with: the SDK's control fields, plus `review`. */
export interface FileHookControl {
  /** A hook cancelled: the SDK stops the run. */
  stop?: boolean
  /** Why: the cancelling hooks' `errorMessage`s (else their context), else the hooks' names. */
  reason?: string
  /** Context for the model from hooks that completed (their `context`, else `errorMessage`). */
  appendContext?: string
  /** A hook asked the user to review the operation (the CLI's `review`); the SDK ignores it. */
  review?: boolean
}

/** The SDK's runtime hooks (`AgentHooks`), backed by this runtime. */
export interface FileHooks {
  beforeRun(context: { snapshot: Snapshot }): Promise<FileHookControl | undefined>
  onEvent(event: { type: string; snapshot?: Snapshot; message?: unknown }): Promise<void>
  beforeModel<M extends { id: string }>(context: {
    request: { messages: ReadonlyArray<M> }
  }): Promise<{ stop?: boolean; reason?: string; messages?: ReadonlyArray<M> } | undefined>
  beforeTool(context: {
    snapshot: Snapshot
    toolCall: ToolCall
    input: unknown
  }): Promise<(FileHookControl & { input?: unknown }) | undefined>
  afterTool(context: {
    snapshot: Snapshot
    toolCall: ToolCall
    input: unknown
    result: { output: unknown; isError?: boolean }
    startedAt: Date
    endedAt: Date
    durationMs: number
  }): Promise<FileHookControl | undefined>
  afterRun(context: {
    snapshot: Snapshot
    result: {
      status: string
      iterations: number
      outputText: string
      error?: { name: string; message: string; stack?: string }
    }
  }): Promise<void>
}

/**
 * The runtime hooks the SDK's `createHookConfigFileHooks(options)` returns, run by
 * @cline/hooks in the `cli` profile. Unlike the SDK's, it returns them even when no hook file
 * exists yet, so hooks added during a session run. Throws `ERR_INVALID_OPTION` for a bad option.
 */
export declare function createFileHooks(options: FileHooksOptions): FileHooks
