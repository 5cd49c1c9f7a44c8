'use strict'

// The documentation's links: README.md is a product page of at most 400 lines, read on npm,
// where only the files listed in package.json `files` ship; docs/*.md are the pages it links
// to. Every relative link and #anchor in README.md, docs/*.md and CHANGELOG.md must lead to a
// file and a heading that exist, and so must every https://github.com/cline/hooks/blob/main/...
// URL (the form README uses for everything npm does not ship). Anchors follow GitHub's heading
// slugs. Each failure names the file, the line and the link.

const fs = require('fs')
const path = require('path')

const ROOT = path.join(__dirname, '..')
const REPO_URL = 'https://github.com/cline/hooks/'
const README_MAX_LINES = 400

const rel = (file) => path.relative(ROOT, file).split(path.sep).join('/')
const read = (file) => fs.readFileSync(file, 'utf8')

function docsPages() {
  const dir = path.join(ROOT, 'docs')
  if (!fs.existsSync(dir)) return []
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => path.join(dir, name))
}

/** The lines of a Markdown file with fenced code blocks blanked (their links are not links). */
function proseLines(text) {
  let fence = null
  return text.split('\n').map((line) => {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line)
    if (fence) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length && /^\s*(`+|~+)\s*$/.test(line)) fence = null
      return ''
    }
    if (open) {
      fence = open[1]
      return ''
    }
    return line
  })
}

/** A heading's text as GitHub renders it: inline code, emphasis, links and HTML reduced to text. */
function headingText(raw) {
  const text = raw
    .replace(/\s+#+\s*$/, '') // closing hashes
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
  // Code spans are text as they are; emphasis and HTML only outside them (`_` inside a word is no emphasis).
  return text
    .split(/(`+[^`]*`+)/)
    .map((part, i) =>
      i % 2
        ? part.replace(/^`+|`+$/g, '')
        : part
            .replace(/<[^>]+>/g, '')
            .replace(/\*\*(.+?)\*\*/g, '$1')
            .replace(/\*(\S(?:.*?\S)?)\*/g, '$1')
            .replace(/(^|[^\p{L}\p{N}])__?(\S(?:.*?\S)?)__?(?=[^\p{L}\p{N}]|$)/gu, '$1$2'),
    )
    .join('')
    .trim()
}

/** GitHub's slug of a heading's text: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function slug(text) {
  return headingText(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-')
}

/** Every anchor a Markdown file's headings make, duplicates numbered `-1`, `-2`, as GitHub does. */
function anchorsOf(text) {
  const seen = new Map()
  const anchors = new Set()
  for (const line of proseLines(text)) {
    const m = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line)
    if (!m) continue
    const base = slug(m[1])
    const n = seen.get(base) || 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  return anchors
}

const anchorCache = new Map()
function anchorsOfFile(file) {
  if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(read(file)))
  return anchorCache.get(file)
}

/** The links of a Markdown file: `{ line, target }`, inline links, images and reference definitions. */
function linksOf(text) {
  const links = []
  proseLines(text).forEach((line, i) => {
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(line)
    if (def) links.push({ line: i + 1, target: def[1] })
    // Inline code spans hold no links: blank them, keeping the columns.
    const prose = line.replace(/(`+)(.+?)\1/g, (m) => ' '.repeat(m.length))
    const inline = /!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g
    let m
    while ((m = inline.exec(prose))) links.push({ line: i + 1, target: m[1] })
  })
  return links
}

/** The repository path and anchor a https://github.com/cline/hooks/{blob,tree}/main/ URL names, else null. */
function repoUrl(target) {
  const m = /^https:\/\/github\.com\/cline\/hooks\/(?:blob|tree)\/main\/([^#?]*)(?:#(.*))?$/.exec(target)
  return m ? { path: decodeURIComponent(m[1]).replace(/\/$/, ''), anchor: m[2] } : null
}

/** What is wrong with a link that leads to `file` (absolute) with `anchor`, or null. */
function problemWith(file, anchor) {
  if (!fs.existsSync(file)) return `${rel(file) || '.'} does not exist`
  if (anchor === undefined || anchor === '') return null
  if (!file.endsWith('.md')) return null // an anchor into a non-Markdown file is a line or a fragment: not checked
  if (!anchorsOfFile(file).has(decodeURIComponent(anchor))) return `${rel(file)} has no heading #${anchor}`
  return null
}

const pages = () => [path.join(ROOT, 'README.md'), path.join(ROOT, 'CHANGELOG.md'), ...docsPages()].filter((f) => fs.existsSync(f))

/** Whether a repository path (relative, forward slashes) is in the npm package. */
function shipped(repoPath) {
  const { files } = JSON.parse(read(path.join(ROOT, 'package.json')))
  const always = ['package.json', 'README.md', 'LICENSE', 'LICENSE.md', 'CHANGELOG.md']
  if (always.includes(repoPath)) return true
  return files.some((entry) => {
    const e = entry.replace(/^\.\//, '')
    return e.endsWith('/') ? repoPath.startsWith(e) || repoPath === e.slice(0, -1) : repoPath === e || repoPath.startsWith(`${e}/`)
  })
}

// The repository's documents: a copy of the package (the Windows lane's, the packed package's)
// holds no docs/, and these rules are the same on every platform; the repo's CI runs them.
const describeInRepo = fs.existsSync(path.join(ROOT, 'docs')) ? describe : describe.skip

describeInRepo('documentation', () => {
  test('the slug rules are GitHub\'s', () => {
    expect(slug('`cline-hooks doctor`')).toBe('cline-hooks-doctor')
    expect(slug('Live events: `onEvent`')).toBe('live-events-onevent')
    expect(slug("Differences from the SDK's runner")).toBe('differences-from-the-sdks-runner')
    expect(slug('`serveHook(handler, options?)` from `@cline/hooks/serve`')).toBe('servehookhandler-options-from-clinehooksserve')
    expect(slug('For CLI integrators: the `cli` profile')).toBe('for-cli-integrators-the-cli-profile')
    expect(slug('Instant discovery and `refresh()`')).toBe('instant-discovery-and-refresh')
    expect(slug('[0.1.0] - 2026-11-24')).toBe('010---2026-11-24')
    expect(slug('Errors: `ERR_HOOK_POLICY_FILE`')).toBe('errors-err_hook_policy_file')
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n### A\n')]).toEqual(['a', 'a-1', 'a-2'])
  })

  test(`README.md has at most ${README_MAX_LINES} lines`, () => {
    const lines = read(path.join(ROOT, 'README.md')).replace(/\n$/, '').split('\n').length
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES)
  })

  test('every relative link and anchor in README.md, CHANGELOG.md and docs/*.md resolves', () => {
    const problems = []
    for (const page of pages()) {
      for (const { line, target } of linksOf(read(page))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // a URL: the next test
        const [p, anchor] = target.split('#')
        const file = p === '' ? page : path.resolve(path.dirname(page), decodeURIComponent(p))
        const problem = problemWith(file, anchor)
        if (problem) problems.push(`${rel(page)}:${line}: (${target}): ${problem}`)
      }
    }
    expect(problems).toEqual([])
  })

  test('every https://github.com/cline/hooks/blob/main/ URL names a path (and heading) of this repository', () => {
    const problems = []
    for (const page of pages()) {
      for (const { line, target } of linksOf(read(page))) {
        if (!target.startsWith(REPO_URL)) continue
        const url = repoUrl(target)
        if (!url) {
          if (/^https:\/\/github\.com\/cline\/hooks\/(blob|tree)\//.test(target)) problems.push(`${rel(page)}:${line}: (${target}): not on the main branch`)
          continue
        }
        const problem = problemWith(path.join(ROOT, url.path), url.anchor)
        if (problem) problems.push(`${rel(page)}:${line}: (${target}): ${problem}`)
      }
    }
    expect(problems).toEqual([])
  })

  test('README.md links relatively only to what the npm package ships (docs/ and the rest by GitHub URL)', () => {
    const readme = path.join(ROOT, 'README.md')
    const problems = []
    for (const { line, target } of linksOf(read(readme))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue
      const repoPath = rel(path.resolve(ROOT, decodeURIComponent(target.split('#')[0])))
      if (!shipped(repoPath)) {
        problems.push(`README.md:${line}: (${target}): ${repoPath} is not in package.json "files", so npm shows a broken link: use ${REPO_URL}blob/main/${repoPath}`)
      }
    }
    expect(problems).toEqual([])
  })

  test('every docs/*.md page is linked from README.md', () => {
    const readme = path.join(ROOT, 'README.md')
    const linked = new Set()
    for (const { target } of linksOf(read(readme))) {
      const url = repoUrl(target)
      const p = url ? url.path : /^[a-z][a-z0-9+.-]*:/i.test(target) ? null : rel(path.resolve(ROOT, target.split('#')[0]))
      if (p) linked.add(p)
    }
    const missing = docsPages()
      .map(rel)
      .filter((page) => !linked.has(page))
      .map((page) => `README.md does not link to ${page} (add it to the map of docs/)`)
    expect(missing).toEqual([])
  })
})
