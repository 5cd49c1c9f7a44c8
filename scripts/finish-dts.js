'use strict'
// Run by `npm run build` after `napi build`: finishes the index.d.ts it wrote.
//
// - Removes the `__napiBindingTarget` declaration (and its doc comment) that napi-rs adds for
//   the loader it generates (binding.js). The package's loader is index.js, which does not
//   export that name, so the types must not promise it. napi-rs has no option to leave it out
//   while still writing binding.js.
// - Lets the options objects' optional fields take `undefined` written out.
// - Checks that the hand-written header (src/node/contract.d.ts, `napi.dtsHeaderFile` in
//   package.json) is in the file: napi-rs only warns when it cannot read it, and the
//   generated declarations refer to its types (`HookName`, `HookInputFor`, ...).
//
// Usage: node scripts/finish-dts.js [path/to/index.d.ts]

const fs = require('fs')
const path = require('path')

const file = path.resolve(process.argv[2] || path.join(__dirname, '..', 'index.d.ts'))
const before = fs.readFileSync(file, 'utf8')

// `/** ... */` (optional) then `export declare const __napiBindingTarget: ...` up to the end of
// its statement (one line, as napi-rs writes it), and the blank line after it.
const declaration = /(?:\/\*\*(?:(?!\*\/)[\s\S])*\*\/[ \t]*\r?\n)?export declare const __napiBindingTarget\b[^\r\n]*\r?\n(?:[ \t]*\r?\n)?/g
const after = before.replace(declaration, '')

// The options objects' optional fields also take `undefined` written out (`{ timeoutMs:
// undefined }` means the default at run time), so a caller compiling with
// `exactOptionalPropertyTypes` can pass a value that may be undefined.
const OPTION_TYPES = ['DiscoveryOptions', 'RunHookOptions', 'RunOptions', 'LoggerOptions', 'OnFailurePolicy']
const widened = after.replace(new RegExp(`^export interface (?:${OPTION_TYPES.join('|')}) \\{[\\s\\S]*?^\\}`, 'gm'), (block) =>
  block.replace(/^(  \w+\?: )(.+)$/gm, (line, head, type) => (/\bundefined\b/.test(type) ? line : `${head}${type} | undefined`)),
)

const problems = []
if (/\b__napiBindingTarget\b/.test(widened)) problems.push('it still mentions __napiBindingTarget (a form this script does not know)')
for (const name of ['HookName', 'CliEventName', 'HookInputFor', 'HookError']) {
  if (!new RegExp(`^export (?:declare )?(?:type|interface|class) ${name}\\b`, 'm').test(widened)) {
    problems.push(`it does not declare ${name}: is napi.dtsHeaderFile (src/node/contract.d.ts) in package.json and readable?`)
  }
}
if (problems.length) {
  console.error(`scripts/finish-dts.js: ${path.relative(process.cwd(), file)}: ${problems.join('; ')}`)
  process.exit(1)
}
if (widened !== before) fs.writeFileSync(file, widened)
