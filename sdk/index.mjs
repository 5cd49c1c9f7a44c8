// `@cline/hooks/sdk` for ES modules: the CommonJS module, re-exported.
import sdk from './index.js'

export const { createFileHooks } = sdk
export default sdk
