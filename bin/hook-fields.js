'use strict'

// What each hook reads and prints, for the templates `init` writes: the common input fields, each
// hook's own field (named after the hook in camelCase) with its members, a sample input, and one
// check a template shows, commented out, as its blocking example. The members follow the published
// hooks page (reference 000); TaskError, SessionShutdown and Notification have no published shape,
// so theirs are the examples' own (examples/README.md), marked as such.

/** The fields every hook gets; the runtime fills in the first four when the caller left them out. */
const COMMON_FIELDS = [
  ['hookName', 'the hook\'s name, e.g. "PreToolUse"'],
  ['timestamp', 'when it fired: milliseconds since the epoch, as a string'],
  ['workspaceRoots', 'the workspace root paths (a workspace hook runs in its own root)'],
  ['model', '{ provider, slug } of the active model ("unknown" when unknown)'],
  ['taskId', 'the task\'s id'],
  ['clineVersion', 'the Cline version'],
  ['userId', 'the user\'s id'],
]

/** The verdict a hook prints: one JSON object, last on stdout. */
const OUTPUT_FIELDS = [
  ['cancel', 'true blocks the operation; false (or no JSON at all) lets it go ahead'],
  ['contextModification', 'text added to the conversation for the model (at most 50,000 bytes)'],
  ['errorMessage', 'shown to the user when cancel is true: say why, and what to do instead'],
]

const task = (what) => ({ members: [['task', `the task's text (${what})`]], sample: { task: 'Add authentication to the API' } })

/**
 * Per hook: `key` (its input field), `when` (what fires it), `members` ([name, meaning]),
 * `sample` (the value of `key` in a sample input), `invented` (no published shape), and `check`:
 * the member and value the blocking example tests, and its message.
 */
const HOOKS = {
  TaskStart: { when: 'when a new task starts', ...task('the new task'), check: ['task', 'rm -rf /', 'This task is not allowed here.'] },
  TaskResume: { when: 'when an interrupted task is resumed', ...task('the resumed task'), check: ['task', 'rm -rf /', 'This task is not allowed here.'] },
  TaskCancel: { when: 'when the user cancels a task', ...task('the cancelled task'), check: ['task', 'rm -rf /', 'Logged.'] },
  TaskComplete: { when: 'when a task completes', ...task('the completed task'), check: ['task', 'rm -rf /', 'Logged.'] },
  TaskError: {
    when: 'when a task ends with an error',
    members: [['task', "the task's text"], ['error', 'the error message']],
    sample: { task: 'Add authentication to the API', error: 'The model returned no answer' },
    invented: true,
    check: ['error', 'quota exceeded', 'Logged.'],
  },
  PreToolUse: {
    when: 'before Cline uses a tool: it can block the tool',
    members: [
      ['tool', 'the tool\'s name, e.g. "write_to_file", "execute_command", "read_file"'],
      ['parameters', 'the tool\'s parameters, e.g. { "path": "src/a.ts", "content": "..." }'],
    ],
    sample: { tool: 'write_to_file', parameters: { path: 'src/a.ts', content: 'export {}' } },
    check: ['tool', 'execute_command', 'Commands are not allowed in this workspace.'],
  },
  PostToolUse: {
    when: 'after a tool ran (it cannot undo it; cancel stops the task)',
    members: [
      ['tool', "the tool's name"],
      ['parameters', "the tool's parameters"],
      ['result', "the tool's result, as text"],
      ['success', 'whether the tool succeeded (true/false)'],
      ['durationMs', 'how long the tool took, in milliseconds'],
    ],
    sample: { tool: 'execute_command', parameters: { command: 'npm test' }, result: 'All tests passed', success: true, durationMs: 3450 },
    check: ['tool', 'execute_command', 'Stop: a command ran.'],
  },
  UserPromptSubmit: {
    when: 'when the user sends a message',
    members: [['prompt', "the user's message"]],
    sample: { prompt: 'Add a login page' },
    check: ['prompt', 'deploy to production', 'Deployments are not done from Cline.'],
  },
  PreCompact: {
    when: 'before Cline truncates the conversation to free context',
    members: [
      ['conversationLength', 'how many messages the conversation holds'],
      ['estimatedTokens', 'its estimated size in tokens'],
    ],
    sample: { conversationLength: 45, estimatedTokens: 125000 },
    check: ['conversationLength', 45, 'Not now.'],
  },
  SessionShutdown: {
    when: 'when the session ends',
    members: [['reason', 'why it ends, e.g. "user_exit"']],
    sample: { reason: 'user_exit' },
    invented: true,
    check: ['reason', 'user_exit', 'Logged.'],
  },
  Notification: {
    when: 'when Cline notifies the user',
    members: [
      ['type', 'what kind of notification, e.g. "approval_required"'],
      ['message', 'its text'],
    ],
    sample: { type: 'approval_required', message: 'Cline wants to run a command' },
    invented: true,
    check: ['type', 'approval_required', 'Logged.'],
  },
}

/** The Cline CLI's event names and the hook each one is (hook files are named after the hook). */
const CLI_EVENTS = {
  agent_start: 'TaskStart',
  agent_resume: 'TaskResume',
  prompt_submit: 'UserPromptSubmit',
  tool_call: 'PreToolUse',
  tool_result: 'PostToolUse',
  agent_end: 'TaskComplete',
  agent_error: 'TaskError',
  agent_abort: 'TaskCancel',
  session_shutdown: 'SessionShutdown',
}

/** The input field of `hook`: its name in camelCase (`preToolUse`). */
function inputKey(hook) {
  return hook[0].toLowerCase() + hook.slice(1)
}

/** A sample input for `hook`: the fields the runtime does not fill in, and the hook's own field. */
function sampleInput(hook) {
  return { taskId: 'example-task', [inputKey(hook)]: HOOKS[hook].sample }
}

module.exports = { COMMON_FIELDS, OUTPUT_FIELDS, HOOKS, CLI_EVENTS, inputKey, sampleInput }
