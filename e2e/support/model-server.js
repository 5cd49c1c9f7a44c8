// A scripted OpenAI-compatible model on 127.0.0.1 for the end-to-end tests: it answers
// `POST /v1/chat/completions` (server-sent events when the request asks `stream: true`, plain JSON
// otherwise) with the turns a test scripts (tool calls, then a final text), records every request
// body, and closes itself after a request cap or a time cap so it can never outlive a test.
'use strict'

const http = require('node:http')

const MODEL_ID = 'e2e-model'

// One scripted turn, normalised: { toolCalls: [{ id, name, arguments: string }] } or { text }.
function normaliseTurn(turn, index) {
  if (turn == null) return null
  if (typeof turn !== 'object') throw new TypeError(`model-server: turn ${index} is not an object`)
  const calls = turn.toolCalls ?? (turn.toolCall ? [turn.toolCall] : null)
  if (calls) {
    return {
      toolCalls: calls.map((call, i) => ({
        id: call.id ?? `call_${index}_${i}`,
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
      })),
      text: turn.text ?? '',
    }
  }
  if (typeof turn.text === 'string') return { text: turn.text }
  throw new TypeError(`model-server: turn ${index} has neither toolCall(s) nor text`)
}

function usage() {
  return { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }
}

function jsonCompletion(turn, id) {
  const message = { role: 'assistant', content: turn.text || null }
  if (turn.toolCalls) {
    message.tool_calls = turn.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }))
  }
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: MODEL_ID,
    choices: [{ index: 0, message, finish_reason: turn.toolCalls ? 'tool_calls' : 'stop' }],
    usage: usage(),
  }
}

// The chunks a streaming OpenAI endpoint sends for the turn: role, content, each tool call's name
// then arguments, the finish reason, and a usage chunk (clients that ask for stream_options read it).
function streamChunks(turn, id) {
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: MODEL_ID }
  const chunk = (delta, finish = null, extra = {}) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })
  const chunks = [chunk({ role: 'assistant', content: '' })]
  if (turn.text) chunks.push(chunk({ content: turn.text }))
  if (turn.toolCalls) {
    turn.toolCalls.forEach((call, index) => {
      chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] }))
    })
  }
  chunks.push(chunk({}, turn.toolCalls ? 'tool_calls' : 'stop'))
  chunks.push({ ...base, choices: [], usage: usage() })
  return chunks
}

/**
 * Starts the scripted model.
 * @param {object} [options]
 * @param {Array<object>|function(object, number): object} [options.script] the turns, in order:
 *   `{ toolCall: { name, arguments } }`, `{ toolCalls: [...] }` or `{ text }`; or a function
 *   `(requestBody, index) => turn` or a promise of one (null/undefined: the final text). A turn
 *   that cannot be made is answered with HTTP 500 and its message.
 * @param {string} [options.finalText] the answer once the script is spent.
 * @param {number} [options.maxRequests] completions answered before it closes itself (default 20).
 * @param {number} [options.maxSeconds] lifetime before it closes itself (default 120).
 * @returns {Promise<{url: string, port: number, requests: object[], closedBecause: string|null, closed: Promise<void>, close(): Promise<void>}>}
 *   `url` is the OpenAI base URL (`http://127.0.0.1:PORT/v1`); `requests` holds each completion
 *   request's parsed body, in order.
 */
function startModelServer({ script = [], finalText = 'All done.', maxRequests = 20, maxSeconds = 120 } = {}) {
  const requests = []
  const sockets = new Set()
  let answered = 0
  let resolveClosed
  const closed = new Promise((resolve) => { resolveClosed = resolve })

  const turnFor = async (body, index) => {
    const raw = typeof script === 'function' ? await script(body, index) : script[index]
    return normaliseTurn(raw, index) ?? { text: finalText }
  }

  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', async () => {
      const path = req.url.split('?')[0].replace(/\/+$/, '')
      if (req.method === 'GET' && path.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ object: 'list', data: [{ id: MODEL_ID, object: 'model', owned_by: 'e2e' }] }))
        return
      }
      if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }))
        return
      }
      let body
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch (error) {
        res.writeHead(400, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: `bad JSON: ${error.message}` } }))
        return
      }
      const index = requests.length
      requests.push(body)
      let turn
      try {
        turn = await turnFor(body, index)
      } catch (error) {
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: error.message } }))
        return
      }
      const id = `chatcmpl-e2e-${index}`
      const done = () => {
        answered += 1
        if (answered >= maxRequests) shutdown('maxRequests')
      }
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
        for (const c of streamChunks(turn, id)) res.write(`data: ${JSON.stringify(c)}\n\n`)
        res.end('data: [DONE]\n\n', done)
      } else {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(jsonCompletion(turn, id)), done)
      }
    })
  })

  // Keep-alive sockets must not hold the test process open either.
  server.on('connection', (socket) => {
    socket.unref()
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  const handle = {
    url: null,
    port: null,
    requests,
    closedBecause: null,
    closed,
    close: () => shutdown('closed'),
  }

  let timer = null
  function shutdown(reason) {
    if (handle.closedBecause === null) {
      handle.closedBecause = reason
      if (timer) clearTimeout(timer)
      server.close(() => resolveClosed())
      // Let the response being written finish, then drop idle keep-alive connections.
      setImmediate(() => {
        for (const socket of sockets) socket.destroy()
      })
    }
    return closed
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.unref()
      handle.port = server.address().port
      handle.url = `http://127.0.0.1:${handle.port}/v1`
      timer = setTimeout(() => shutdown('maxSeconds'), maxSeconds * 1000)
      timer.unref()
      resolve(handle)
    })
  })
}

/** The text of every message in a recorded request, joined, to look for what reached the model. */
function requestText(body) {
  const parts = []
  for (const message of body?.messages ?? []) {
    if (typeof message.content === 'string') parts.push(message.content)
    else if (Array.isArray(message.content)) {
      for (const part of message.content) if (typeof part?.text === 'string') parts.push(part.text)
    }
  }
  return parts.join('\n')
}

module.exports = { startModelServer, requestText, MODEL_ID }
