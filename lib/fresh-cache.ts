/**
 * Read-mostly rows kept in memory: a value is loaded once, answered from memory while it is younger than `maxAgeMs`,
 * and dropped at once by `forget` (called when a change is announced, by this node or over the cluster bus). The
 * age bound holds even when an announcement is lost on its way: a value is never older than `maxAgeMs`.
 *
 * A load that was under way when its key was forgotten answers the callers that joined it but is not kept: the next
 * caller reads again, so a change announced during a read is never hidden behind the value read before it.
 */
export function createFreshCache<K, V>(load: (key: K) => Promise<V>, options: { maxAgeMs: number; now: () => number }) {
  interface Entry {
    value: Promise<V>
    loadedAt: number
  }
  const entries = new Map<K, Entry>()

  function get(key: K): Promise<V> {
    const now = options.now()
    const known = entries.get(key)
    if (known && now - known.loadedAt < options.maxAgeMs) return known.value
    const value = load(key)
    const entry: Entry = { value, loadedAt: now }
    entries.set(key, entry)
    // A failed read is not remembered: the next caller asks again.
    value.catch(() => {
      if (entries.get(key) === entry) entries.delete(key)
    })
    return value
  }

  return {
    get,
    /** Drops `key` (every key when none is given): the next `get` reads it again. */
    forget(key?: K): void {
      if (key === undefined) entries.clear()
      else entries.delete(key)
    },
    get size(): number {
      return entries.size
    },
  }
}

export type FreshCache<K, V> = ReturnType<typeof createFreshCache<K, V>>
