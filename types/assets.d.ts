declare module '*.sql' {
  const text: string
  export default text
}
declare module '*.yaml' {
  const text: string
  export default text
}
declare module '*.md' {
  const text: string
  export default text
}
declare module '*/browser/standalone.js' {
  /** With `with { type: 'file' }`: the path of the file (embedded in the binary by `bun build --compile`). */
  const path: string
  export default path
}
declare module '*.so' {
  /** With `with { type: 'file' }`: the path of the shared library (embedded in the binary by `bun build --compile`). */
  const path: string
  export default path
}
