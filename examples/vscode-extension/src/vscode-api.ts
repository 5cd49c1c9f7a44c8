// The part of the VS Code API this example uses, declared with the same names and shapes as
// @types/vscode (a subset of it), so `tsc` checks the example without downloading @types/vscode.
// tsconfig.json maps `import * as vscode from 'vscode'` here for type-checking only: the bundle
// keeps `require('vscode')` external, and the editor's extension host provides the real module.

/** Something to release on deactivation (`vscode.Disposable`). */
export interface Disposable {
  dispose(): unknown
}

/** `vscode.ExtensionContext`: what `activate` is given. */
export interface ExtensionContext {
  /** Disposed by the editor after `deactivate` settles. */
  readonly subscriptions: Disposable[]
  /** This extension; `packageJSON` is its package.json, parsed. */
  readonly extension: { readonly packageJSON: { readonly version?: string } }
}

/** `vscode.OutputChannel`: the "Output" panel's channel for this extension. */
export interface OutputChannel extends Disposable {
  appendLine(value: string): void
}

/** `vscode.StatusBarItem`: one item of the status bar. */
export interface StatusBarItem extends Disposable {
  text: string
  tooltip: string | undefined
  show(): void
  hide(): void
}

/** `vscode.WorkspaceFolder`: one root of a (multi-root) workspace. */
export interface WorkspaceFolder {
  readonly uri: { readonly fsPath: string }
  readonly name: string
  readonly index: number
}

/** `vscode.WorkspaceConfiguration`: the user's and workspace's settings of one section. */
export interface WorkspaceConfiguration {
  get<T>(section: string): T | undefined
  get<T>(section: string, defaultValue: T): T
}

export declare const window: {
  createOutputChannel(name: string): OutputChannel
  createStatusBarItem(): StatusBarItem
  showErrorMessage(message: string): Thenable<string | undefined>
}

export declare const workspace: {
  readonly workspaceFolders: readonly WorkspaceFolder[] | undefined
  getConfiguration(section?: string): WorkspaceConfiguration
}

export declare const commands: {
  registerCommand(command: string, callback: (...args: any[]) => any): Disposable
}

/** VS Code's own promise-like type, which its API returns. */
export interface Thenable<T> extends PromiseLike<T> {}
