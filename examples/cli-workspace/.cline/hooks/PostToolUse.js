// Inspect tool results and add context (run by the host's own Node: no #! line needed).
let data = ''
process.stdin.on('data', (chunk) => (data += chunk))
process.stdin.on('end', () => {
  const event = JSON.parse(data)
  const result = event.tool_result || {}
  console.error(`[PostToolUse] ${result.name} took ${result.durationMs} ms`)
  console.log(JSON.stringify(result.error ? { context: `The ${result.name} call failed: ${result.error}` } : {}))
})
