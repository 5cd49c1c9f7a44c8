'use strict'

// The JSON a hook gets on stdin from the Cline SDK's file-hook runner (`createHookConfigFileHooks`
// in @cline/core 0.0.86), built from the SDK's runtime-hook contexts. Pure functions: same
// fields, same order, same fallbacks as the SDK, so a hook cannot tell which runner called it.

/** The agent ids of a runtime snapshot, as the SDK names them. */
function idsOf(snapshot) {
  return {
    agentId: snapshot.agentId,
    conversationId: snapshot.conversationId ?? snapshot.runId ?? snapshot.agentId,
    parentAgentId: snapshot.parentAgentId ?? null,
  }
}

/**
 * The fields every payload starts with. `settings` holds the adapter's `workspacePath`,
 * `rootSessionId` and `workspaceInfo`; `env` is the environment the SDK reads them from.
 */
function common(ids, settings, env, now) {
  return {
    clineVersion: env.CLINE_VERSION?.trim() || '',
    timestamp: now.toISOString(),
    taskId: ids.conversationId,
    sessionContext: { rootSessionId: settings.rootSessionId || ids.conversationId },
    workspaceRoots: settings.workspacePath ? [settings.workspacePath] : [],
    workspaceInfo: settings.workspaceInfo,
    userId: env.CLINE_USER_ID?.trim() || env.USER?.trim() || 'unknown',
    agent_id: ids.agentId,
    parent_agent_id: ids.parentAgentId,
  }
}

/** Tool parameters as the legacy `preToolUse.parameters` map: strings kept, the rest as JSON. */
function parametersOf(input) {
  if (!input || typeof input !== 'object') return {}
  const parameters = {}
  for (const [name, value] of Object.entries(input)) {
    parameters[name] = typeof value === 'string' ? value : JSON.stringify(value)
  }
  return parameters
}

/** The text of a message's text parts, as the SDK reads a user's prompt. */
function textOf(content) {
  if (!Array.isArray(content)) return ''
  return content
    .filter((part) => part && part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('')
}

/**
 * The text a user sent, from a prompt message: its text parts, without the
 * `<user_input mode="...">` element the SDK host wraps a prompt in.
 */
function promptOf(content) {
  const text = textOf(content)
  const wrapped = /^<user_input(?: [^>]*)?>([\s\S]*)<\/user_input>$/.exec(text)
  return wrapped ? wrapped[1] : text
}

/** `agent_start` or `agent_resume` (the SDK picks resume when CLINE_HOOK_AGENT_RESUME=1). */
function runStart(hookName, snapshot, settings, env, now) {
  const base = { ...common(idsOf(snapshot), settings, env, now), hookName }
  return hookName === 'agent_resume'
    ? { ...base, taskResume: { taskMetadata: {}, previousState: {} } }
    : { ...base, taskStart: { taskMetadata: {} } }
}

function promptSubmit(snapshot, prompt, settings, env, now) {
  return {
    ...common(idsOf(snapshot), settings, env, now),
    hookName: 'prompt_submit',
    userPromptSubmit: { prompt, attachments: [] },
  }
}

function toolCall(context, settings, env, now) {
  const { snapshot, toolCall: call, input } = context
  return {
    ...common(idsOf(snapshot), settings, env, now),
    hookName: 'tool_call',
    iteration: snapshot.iteration,
    tool_call: { id: call.toolCallId, name: call.toolName, input },
    preToolUse: { toolName: call.toolName, parameters: parametersOf(input) },
  }
}

function toolResult(context, settings, env, now) {
  const { snapshot, toolCall: call, input, result } = context
  const record = {
    id: call.toolCallId,
    name: call.toolName,
    input,
    output: result.output,
    error: result.isError ? String(result.output) : undefined,
    durationMs: context.durationMs,
    startedAt: context.startedAt,
    endedAt: context.endedAt,
  }
  return {
    ...common(idsOf(snapshot), settings, env, now),
    hookName: 'tool_result',
    iteration: snapshot.iteration,
    tool_result: record,
    postToolUse: {
      toolName: record.name,
      parameters: parametersOf(record.input),
      result: typeof record.output === 'string' ? record.output : JSON.stringify(record.output),
      success: !record.error,
      executionTimeMs: record.durationMs,
    },
  }
}

/** Whether a run's error reads as a cancel: the SDK's rule for `agent_abort`. */
function readsAsAbort(message) {
  const text = String(message ?? '').toLowerCase()
  return text.includes('cancel') || text.includes('abort') || text.includes('interrupt')
}

/**
 * The events that follow a finished run, in the SDK's order: `agent_end` for a completed run;
 * for an aborted one `session_shutdown`, after `agent_abort` when its reason reads as a cancel
 * (a hook's stop is not one); `agent_error` for a failed one.
 */
function runEnd(snapshot, result, settings, env, now) {
  const base = (hookName) => ({ ...common(idsOf(snapshot), settings, env, now), hookName })
  if (result.status === 'completed') {
    return [
      {
        ...base('agent_end'),
        iteration: result.iterations,
        turn: { outputText: result.outputText, status: result.status },
        taskComplete: { taskMetadata: {} },
      },
    ]
  }
  if (result.status === 'aborted' || readsAsAbort(result.error?.message)) {
    const reason = result.error?.message
    const shutdown = { ...base('session_shutdown'), reason }
    if (!readsAsAbort(reason)) return [shutdown]
    return [{ ...base('agent_abort'), reason, taskCancel: { taskMetadata: {} } }, shutdown]
  }
  if (result.error) {
    const { name, message, stack } = result.error
    return [{ ...base('agent_error'), iteration: result.iterations, error: { name, message, stack } }]
  }
  return []
}

/**
 * The message that shows a UserPromptSubmit hook's context to the model, right after the
 * prompt, in the SDK's own `<hook_context>` form (a `<hook_context` inside the text escaped,
 * so a hook cannot close the block early).
 */
function promptContextMessage(prompt, text) {
  const body = text.trim().replace(/<(\/?)hook_context/gi, '<\\$1hook_context')
  return {
    id: `${prompt.id}:hook_context`,
    role: 'user',
    content: [{ type: 'text', text: `<hook_context source="UserPromptSubmit">\n${body}\n</hook_context>` }],
    createdAt: prompt.createdAt,
    metadata: { displayRole: 'system' },
  }
}

/**
 * The payload as the hook reads it: the SDK writes `JSON.stringify(payload)`, so dates become
 * ISO strings and `undefined` members go; doing it here keeps the bytes identical.
 */
function asJson(payload) {
  return JSON.parse(JSON.stringify(payload))
}

module.exports = {
  promptOf,
  promptContextMessage,
  runStart,
  promptSubmit,
  toolCall,
  toolResult,
  runEnd,
  asJson,
}
