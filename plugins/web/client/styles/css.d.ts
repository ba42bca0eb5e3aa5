// The stylesheet is imported for its side effect: Bun's bundler emits it as the pages' CSS file.
declare module '*.css'
