/**
 * A small seeded pseudo-random generator (mulberry32). The demo data must come out identical on every machine and
 * every run, so nothing in the generator may touch `Math.random` or the clock: only 32-bit integer arithmetic,
 * which JavaScript performs the same way everywhere.
 */
export class Prng {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let value = this.state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  /** One element, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]
  }

  /** One element, with the given relative weights. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0
    for (const weight of weights) total += weight
    let target = this.next() * total
    for (let index = 0; index < items.length; index++) {
      target -= weights[index]
      if (target < 0) return items[index]
    }
    return items[items.length - 1]
  }
}
