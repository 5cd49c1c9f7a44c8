// Jest configuration for the end-to-end tests (e2e/**/*.e2e.test.js): each test drives the real
// Cline CLI (a ~440 MB install in .ci-cache/cline, see scripts/install-cline.sh) or its SDK against a
// scripted local model. Run: `bash scripts/install-cline.sh && npx jest --config e2e/jest.config.js`.
'use strict'

const path = require('node:path')

module.exports = {
  rootDir: path.resolve(__dirname, '..'),
  testEnvironment: 'node',
  testMatch: ['<rootDir>/e2e/**/*.e2e.test.js'],
  // A CLI run takes a few seconds here, more on a busy 2-core CI machine; runs time out on their own
  // (runCline / runSdkTask timeoutMs) well before this.
  testTimeout: 180000,
  // One at a time: each CLI is a large process, and the SDK host changes the process environment.
  maxWorkers: 1,
  modulePathIgnorePatterns: [
    '<rootDir>/.ci-cache/',
    '<rootDir>/target/',
    '<rootDir>/crates/',
    '<rootDir>/npm/',
    '<rootDir>/artifacts/',
  ],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/.ci-cache/'],
}
