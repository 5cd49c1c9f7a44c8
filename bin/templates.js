'use strict'

// The hook templates `init` writes, one per language (bash, python, node, powershell): a comment
// that lists the hook's input fields and the verdict fields, code that reads the input and
// lets the operation go ahead, and a blocking example between two marker lines, commented out
// (remove the leading comment marker of the lines between them to turn it on). Pure functions.

const { COMMON_FIELDS, OUTPUT_FIELDS, HOOKS, inputKey } = require('./hook-fields')

const EXAMPLE_START = '--- Example: block the operation'
const EXAMPLE_END = '--- End of example ---'

/** The comment lines (without marker) that document `hook`'s input and output. */
function docLines(hook, { lang, file }) {
  const spec = HOOKS[hook]
  const key = inputKey(hook)
  const rows = [
    ...spec.members.map(([name, meaning]) => [`${key}.${name}`, meaning]),
    ...COMMON_FIELDS,
  ]
  const width = Math.max(...rows.map((r) => r[0].length), ...OUTPUT_FIELDS.map((r) => r[0].length))
  const lines = [
    `${hook} hook for Cline: runs ${spec.when}.`,
    `Written by \`cline-hooks init ${hook} --lang ${lang}\` as ${file}. As written it lets`,
    'everything go ahead; edit it to decide.',
    '',
    'INPUT: one JSON object on stdin, then end of file:',
    ...rows.map(([name, meaning]) => `  ${name.padEnd(width)}  ${meaning}`),
  ]
  if (spec.invented) lines.push(`  (Cline's documentation gives no shape for ${key} yet: check what your Cline sends.)`)
  lines.push(
    '',
    'OUTPUT: print one JSON object on stdout, last; print logs to stderr:',
    ...OUTPUT_FIELDS.map(([name, meaning]) => `  ${name.padEnd(width)}  ${meaning}`),
    'A hook that fails (exits non-zero, prints bad JSON, runs past 30 s) never blocks: only',
    '"cancel": true does. CLINE_HOOK_PATH holds this file\'s path; a workspace hook runs in its root.',
  )
  return lines
}

const comment = (marker) => (lines) => lines.map((l) => (l ? `${marker} ${l}` : marker)).join('\n')
const sq = (s) => `'${String(s).replace(/'/g, "'\\''")}'`
const psq = (s) => `'${String(s).replace(/'/g, "''")}'`

function bash(hook, meta) {
  const [member, value, message] = HOOKS[hook].check
  const field = `.${inputKey(hook)}.${member}`
  return `${meta.shebang ? '#!/usr/bin/env bash\n' : ''}${comment('#')(docLines(hook, meta))}

set -euo pipefail
input=$(cat)
echo "${hook}: received \${#input} bytes of input" >&2

# ${EXAMPLE_START} when ${field} contains ${JSON.stringify(String(value))}
# (needs jq; remove the leading "# " of the lines up to the end marker) ---
# value=$(jq -r ${sq(`${field} // empty`)} <<<"$input")
# if [[ "$value" == *${sq(value)}* ]]; then
#   jq -cn --arg msg ${sq(message)} '{cancel: true, errorMessage: $msg}'
#   exit 0
# fi
# ${EXAMPLE_END}

echo '{"cancel": false, "contextModification": "", "errorMessage": ""}'
`
}

function python(hook, meta) {
  const [member, value, message] = HOOKS[hook].check
  const key = inputKey(hook)
  return `${meta.shebang ? '#!/usr/bin/env python3\n' : ''}${comment('#')(docLines(hook, meta))}

import json
import sys

sys.stdin.reconfigure(encoding="utf-8")
sys.stdout.reconfigure(encoding="utf-8")
text = sys.stdin.read()
event = json.loads(text) if text.strip() else {}
data = event.get(${JSON.stringify(key)}) or {}
print(f"${hook}: received {len(text)} characters of input", file=sys.stderr)

# ${EXAMPLE_START} when ${key}.${member} contains ${JSON.stringify(String(value))}
# (remove the leading "# " of the lines up to the end marker) ---
# value = data.get(${JSON.stringify(member)})
# if ${JSON.stringify(String(value))} in str(value):
#     print(json.dumps({"cancel": True, "errorMessage": ${JSON.stringify(message)}}))
#     sys.exit(0)
# ${EXAMPLE_END}

print(json.dumps({"cancel": False, "contextModification": "", "errorMessage": ""}))
`
}

function node(hook, meta) {
  const [member, value, message] = HOOKS[hook].check
  const key = inputKey(hook)
  const js = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
  return `${meta.shebang ? '#!/usr/bin/env node\n' : ''}${comment('//')(docLines(hook, meta))}

'use strict'

let text = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  text += chunk
})
process.stdin.on('end', () => {
  const event = text.trim() ? JSON.parse(text) : {}
  const data = event[${js(key)}] || {}
  console.error(\`${hook}: received \${text.length} characters of input\`)

  // ${EXAMPLE_START} when ${key}.${member} contains ${JSON.stringify(String(value))}
  // (remove the leading "// " of the lines up to the end marker) ---
  // const value = data[${js(member)}]
  // if (String(value).includes(${js(value)})) {
  //   console.log(JSON.stringify({ cancel: true, errorMessage: ${js(message)} }))
  //   return
  // }
  // ${EXAMPLE_END}

  console.log(JSON.stringify({ cancel: false, contextModification: '', errorMessage: '' }))
})
`
}

function powershell(hook, meta) {
  const [member, value, message] = HOOKS[hook].check
  const key = inputKey(hook)
  return `${meta.shebang ? '#!/usr/bin/env pwsh\n' : ''}${comment('#')(docLines(hook, meta))}

$ErrorActionPreference = 'Stop'
# UTF-8 in and out (Windows PowerShell 5.1 uses the console code page otherwise).
$utf8 = New-Object System.Text.UTF8Encoding $false
[Console]::InputEncoding = $utf8
[Console]::OutputEncoding = $utf8
$OutputEncoding = $utf8
$text = [Console]::In.ReadToEnd()
$hookInput = if ($text.Trim()) { $text | ConvertFrom-Json } else { $null }
$data = if ($hookInput) { $hookInput.${key} } else { $null }
[Console]::Error.WriteLine("${hook}: received $($text.Length) characters of input")

# ${EXAMPLE_START} when ${key}.${member} contains ${JSON.stringify(String(value))}
# (remove the leading "# " of the lines up to the end marker) ---
# $value = if ($data) { $data.${member} } else { $null }
# if ("$value".Contains(${psq(value)})) {
#   [Console]::Out.Write((@{ cancel = $true; errorMessage = ${psq(message)} } | ConvertTo-Json -Compress))
#   exit 0
# }
# ${EXAMPLE_END}

[Console]::Out.Write((@{ cancel = $false; contextModification = ''; errorMessage = '' } | ConvertTo-Json -Compress))
`
}

const TEMPLATES = { bash, python, node, powershell }

/**
 * The text of `hook`'s template in `lang`. `file` is the name it is written as (for its comment);
 * `shebang`: start with a `#!` line (files started directly on macOS/Linux).
 */
function template(hook, lang, { file, shebang }) {
  return TEMPLATES[lang](hook, { lang, file, shebang })
}

module.exports = { template, EXAMPLE_START, EXAMPLE_END }
