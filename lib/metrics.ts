import type { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { version } from '../package.json'

export type { Counter, Gauge, Histogram } from 'prom-client'

// prom-client's index also loads its cluster aggregator, push gateway and default metrics: 55 to 110 ms of every
// start measured. The server needs these four classes at start, and the default metrics at the first scrape.
const RegistryClass = require('prom-client/lib/registry') as typeof Registry
const CounterClass = require('prom-client/lib/counter') as typeof Counter
const GaugeClass = require('prom-client/lib/gauge') as typeof Gauge
const HistogramClass = require('prom-client/lib/histogram') as typeof Histogram

/** Seconds; from a cached answer (about a millisecond) to a query near its time limit. */
const QUERY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
/** Seconds; a model call streams for seconds to minutes. */
const LLM_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120]

let processRegistry: Registry | undefined

/** One process's series as prom-client's `getMetricsAsJSON` gives them (plain data, sent between processes). */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>
type Aggregator = 'sum' | 'first' | 'min' | 'max' | 'average' | 'omit'

/**
 * The process metrics of the Prometheus client conventions (`process_cpu_seconds_total`,
 * `process_resident_memory_bytes`, event-loop lag, heap): one registry per process, because they describe the
 * process, however many apps it holds (tests build hundreds; each would otherwise start its own lag monitor).
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new RegistryClass()
    const collectDefaultMetrics =
      require('prom-client/lib/defaultMetrics') as typeof import('prom-client').collectDefaultMetrics
    // prom-client counts CPU from the moment its counters exist; what the process spent before (its start, the
    // requests before the first scrape) is added once, so the counters count from the start of the process.
    const before = process.cpuUsage()
    collectDefaultMetrics({ register: processRegistry })
    const spent: Array<[string, number]> = [
      ['process_cpu_user_seconds_total', before.user],
      ['process_cpu_system_seconds_total', before.system],
      ['process_cpu_seconds_total', before.user + before.system],
    ]
    for (const [name, micros] of spent)
      (processRegistry.getSingleMetric(name) as { inc(value: number): void } | undefined)?.inc(micros / 1e6)
    // Bun's event-loop delay histogram records nothing, so these read as NaN and 2^63 ns; the lag itself
    // (`nodejs_eventloop_lag_seconds`, measured with a timer at each scrape) is kept.
    for (const statistic of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'])
      if (typeof Bun !== 'undefined') processRegistry.removeSingleMetric(`nodejs_eventloop_lag_${statistic}_seconds`)
  }
  return processRegistry
}

export interface MetricsOptions {
  /** Prefix of the service's own metric names; the process metrics keep their conventional names. */
  prefix?: string
}

/**
 * The metrics of one app, on a prom-client registry. The series every area shares are created here, so the
 * areas that record them (chat admission, the semantic layer, the model calls) and the tests name one object;
 * an area with series of its own registers them with `counter`, `gauge` and `histogram`, under the same prefix.
 */
export class Metrics {
  readonly registry: Registry = new RegistryClass()
  readonly prefix: string

  /** Semantic queries by how the cache answered them (`hit`, `miss`, `shared` with a running query) and `outcome`. */
  readonly semanticQueries: Counter<'cache' | 'outcome'>
  readonly semanticQueryDuration: Histogram<'cache'>
  /** Language-model calls (one per agent step) by `outcome` (`ok`, `error`). */
  readonly llmCalls: Counter<'outcome'>
  readonly llmCallDuration: Histogram<'outcome'>
  /** Tokens the model reported, by `kind` (`input`, `output`). */
  readonly llmTokens: Counter<'kind'>
  readonly llmErrors: Counter
  /** Chat runs waiting for an admission slot right now (inc when one starts waiting, dec when it leaves the queue). */
  readonly admissionQueued: Gauge
  /** Chat runs refused with 429, by the `limit` they hit (`user`, `key`, `queue`, ...). */
  readonly admissionRefused: Counter<'limit'>
  /** Requests refused by the request rate limit, by `scope` (`api_key`, `embed_session`). */
  readonly rateLimited: Counter<'scope'>

  constructor(options: MetricsOptions = {}) {
    this.prefix = options.prefix ?? 'acs'
    this.gauge('build_info', 'Always 1; the labels say which build runs', {
      labelNames: ['version', 'runtime'],
      // One build however many processes report it: gathered from workers, it stays 1.
      aggregator: 'first',
    }).set({ version, runtime: `bun ${typeof Bun === 'undefined' ? 'unknown' : Bun.version}` }, 1)
    this.semanticQueries = this.counter('semantic_queries_total', 'Semantic SQL queries by cache use and outcome', [
      'cache',
      'outcome',
    ])
    this.semanticQueryDuration = this.histogram(
      'semantic_query_duration_seconds',
      'Semantic SQL query time, cache included',
      ['cache'],
      QUERY_BUCKETS,
    )
    this.llmCalls = this.counter('llm_calls_total', 'Language-model calls by outcome', ['outcome'])
    this.llmCallDuration = this.histogram(
      'llm_call_duration_seconds',
      'Language-model call time, until its stream ends',
      ['outcome'],
      LLM_BUCKETS,
    )
    this.llmTokens = this.counter('llm_tokens_total', 'Tokens reported by the language model', ['kind'])
    this.llmErrors = this.counter('llm_errors_total', 'Language-model calls that failed')
    this.admissionQueued = this.gauge('chat_admission_queued', 'Chat runs waiting for an admission slot')
    this.admissionRefused = this.counter(
      'chat_admission_refused_total',
      'Chat runs refused with 429 by the limit they hit',
      ['limit'],
    )
    this.rateLimited = this.counter('rate_limited_total', 'Requests refused by the request rate limit', ['scope'])
  }

  /** A counter named `<prefix>_<name>`; asking twice for one name returns the same counter. */
  counter<L extends string = string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return (
      this.existing(name) ?? new CounterClass({ name: this.full(name), help, labelNames, registers: [this.registry] })
    )
  }

  /** A gauge named `<prefix>_<name>`; with `collect`, its value is read at scrape time instead of kept. */
  gauge<L extends string = string>(
    name: string,
    help: string,
    options: { labelNames?: readonly L[]; collect?: () => number; aggregator?: Aggregator } = {},
  ): Gauge<L> {
    const existing = this.existing<Gauge<L>>(name)
    if (existing) return existing
    const read = options.collect
    return new GaugeClass({
      name: this.full(name),
      help,
      labelNames: options.labelNames ?? [],
      registers: [this.registry],
      ...(options.aggregator && { aggregator: options.aggregator }),
      ...(read && {
        collect(this: Gauge<L>) {
          this.set(read())
        },
      }),
    })
  }

  histogram<L extends string = string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets?: number[],
  ): Histogram<L> {
    return (
      this.existing(name) ??
      new HistogramClass({
        name: this.full(name),
        help,
        labelNames,
        registers: [this.registry],
        ...(buckets && { buckets }),
      })
    )
  }

  /**
   * The Prometheus text of the process metrics and this app's; with `gatherFrom`, of every process that reports
   * them, added up as prom-client's cluster aggregation does (counters and histograms summed, the build once), or of
   * this process alone when they do not answer.
   */
  async render(): Promise<string> {
    const everyProcess = await this.peers?.().catch(() => undefined)
    if (everyProcess?.length) {
      const AggregatorRegistry = require('prom-client/lib/cluster') as typeof import('prom-client').AggregatorRegistry
      return AggregatorRegistry.aggregate(everyProcess).metrics()
    }
    return `${await processMetrics().metrics()}\n${await this.registry.metrics()}`
  }

  /** The process metrics and this app's as prom-client's JSON, for another process to add up with its own. */
  async json(): Promise<MetricsJson> {
    return [...(await processMetrics().getMetricsAsJSON()), ...(await this.registry.getMetricsAsJSON())]
  }

  /**
   * Makes `render` answer for a group of processes that share one port (the workers of one machine), whichever of
   * them is scraped: `gather` resolves with the `json()` of each (this one's included), or undefined.
   */
  gatherFrom(gather: () => Promise<MetricsJson[] | undefined>): void {
    this.peers = gather
  }

  private peers?: () => Promise<MetricsJson[] | undefined>

  readonly contentType = this.registry.contentType

  private full(name: string): string {
    return `${this.prefix}_${name}`
  }

  private existing<T>(name: string): T | undefined {
    return this.registry.getSingleMetric(this.full(name)) as T | undefined
  }
}
