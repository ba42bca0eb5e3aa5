/** A promise a test opens when it wants a scripted agent to go on. */
export function gate() {
  let open!: () => void
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

/** Waits until `condition` holds, checking each millisecond, for at most `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<void> {
  const started = Date.now()
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time')
    await Bun.sleep(1)
  }
}
