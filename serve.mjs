// `@cline/hooks/serve` for ES modules: the CommonJS module, re-exported.
import serve from './serve.js'

export const { serveHook } = serve
export default serve
