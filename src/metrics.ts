/**
 * A small Prometheus text-format registry: counters, gauges and histograms with labels. Feature areas register
 * their own series through the shared `Metrics` passed in by `createApp`.
 */
type Labels = Record<string, string | number>

interface Series {
  render(): string
}

const NEEDS_ESCAPE = /[\\"\n]/

/** The series key of a label set (sorted names, escaped values). Runs several times per request: kept cheap. */
function labelKey(labels: Labels): string {
  const keys = Object.keys(labels)
  if (keys.length === 0) return ''
  if (keys.length > 1) keys.sort()
  let key = ''
  for (const name of keys) {
    let value = String(labels[name])
    if (NEEDS_ESCAPE.test(value)) value = value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
    key += `${key === '' ? '' : ','}${name}="${value}"`
  }
  return key
}

function header(name: string, help: string, type: string): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`
}

export class Counter implements Series {
  private readonly values = new Map<string, number>()
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, amount = 1): void {
    const key = labelKey(labels)
    this.values.set(key, (this.values.get(key) ?? 0) + amount)
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels)) ?? 0
  }

  render(): string {
    let out = header(this.name, this.help, 'counter')
    if (this.values.size === 0) out += `${this.name} 0\n`
    for (const [key, value] of this.values) out += `${this.name}${key ? `{${key}}` : ''} ${value}\n`
    return out
  }
}

export class Gauge implements Series {
  private readonly values = new Map<string, number>()
  private collector: (() => number) | undefined
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  set(value: number, labels: Labels = {}): void {
    this.values.set(labelKey(labels), value)
  }

  inc(labels: Labels = {}, amount = 1): void {
    const key = labelKey(labels)
    this.values.set(key, (this.values.get(key) ?? 0) + amount)
  }

  dec(labels: Labels = {}, amount = 1): void {
    this.inc(labels, -amount)
  }

  get(labels: Labels = {}): number {
    if (this.collector && Object.keys(labels).length === 0) return this.collector()
    return this.values.get(labelKey(labels)) ?? 0
  }

  /** Reads the value from `collect` at scrape time instead of keeping it. */
  collect(collect: () => number): this {
    this.collector = collect
    return this
  }

  render(): string {
    let out = header(this.name, this.help, 'gauge')
    if (this.collector) return `${out}${this.name} ${this.collector()}\n`
    if (this.values.size === 0) out += `${this.name} 0\n`
    for (const [key, value] of this.values) out += `${this.name}${key ? `{${key}}` : ''} ${value}\n`
    return out
  }
}

export class Histogram implements Series {
  private readonly series = new Map<string, { buckets: number[]; sum: number; count: number }>()
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  ) {}

  observe(value: number, labels: Labels = {}): void {
    const key = labelKey(labels)
    let entry = this.series.get(key)
    if (!entry) {
      entry = { buckets: new Array(this.bounds.length).fill(0), sum: 0, count: 0 }
      this.series.set(key, entry)
    }
    for (let index = 0; index < this.bounds.length; index++) if (value <= this.bounds[index]) entry.buckets[index]++
    entry.sum += value
    entry.count++
  }

  render(): string {
    let out = header(this.name, this.help, 'histogram')
    for (const [key, entry] of this.series) {
      const prefix = key ? `${key},` : ''
      this.bounds.forEach((bound, index) => {
        out += `${this.name}_bucket{${prefix}le="${bound}"} ${entry.buckets[index]}\n`
      })
      out += `${this.name}_bucket{${prefix}le="+Inf"} ${entry.count}\n`
      out += `${this.name}_sum${key ? `{${key}}` : ''} ${entry.sum}\n`
      out += `${this.name}_count${key ? `{${key}}` : ''} ${entry.count}\n`
    }
    return out
  }
}

/** The registry shared by every feature area of one app. */
export class Metrics {
  private readonly all = new Map<string, Series>()

  counter(name: string, help: string): Counter {
    return this.register(name, () => new Counter(name, help))
  }

  gauge(name: string, help: string): Gauge {
    return this.register(name, () => new Gauge(name, help))
  }

  histogram(name: string, help: string, bounds?: readonly number[]): Histogram {
    return this.register(name, () => new Histogram(name, help, bounds))
  }

  render(): string {
    let out = ''
    for (const series of this.all.values()) out += series.render()
    return out
  }

  private register<T extends Series>(name: string, create: () => T): T {
    const existing = this.all.get(name)
    if (existing) return existing as T
    const created = create()
    this.all.set(name, created)
    return created
  }
}
