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
