import type { MetaMember } from './meta-index'
import type { DateRange, RangeSpec, Unit } from './time-range'

export type Granularity = Unit

export interface ValueFilter {
  member: MetaMember
  values: string[]
  negated: boolean
  /** A comparison with the one value, a number ("orders over 1,000": `orders.amount > 1000`). */
  op?: '>' | '>=' | '<' | '<=' | 'none'
  /**
   * It narrows what the question is about, so a share is taken within it, not of it: added by a follow-up ("for
   * Europe only": the status mix of Europe's orders), or named as the whole ("what share of Asia's orders were
   * cancelled": of Asia's orders).
   */
  scope?: boolean
  /** Where the question names it (the index of its first word), to tell a share's part from its whole. */
  at?: number
}

export interface BooleanFilter {
  member: MetaMember
  value: boolean
  /** As a value filter's. */
  scope?: boolean
  at?: number
}

/** What kind of calculation the question asks for, beyond one measure. */
export type Analysis =
  | { kind: 'value' }
  /** Periods (or members of one dimension) side by side. */
  | { kind: 'compare' }
  /** The change between two periods; `rank` orders members by it ("which grew most / fastest / fell most"). */
  | { kind: 'growth'; rank?: { by: 'change' | 'percent'; direction: 'desc' | 'asc' } }
  /** The part matching the filters (or each group) as a share of the whole. */
  | { kind: 'share' }
  /** The measure divided by another ("per customer", "per order"). */
  | { kind: 'ratio'; denominator: MetaMember; per: string }
  /** Single records ranked by an attribute ("the most expensive product", "the largest single order"). */
  | { kind: 'record'; attribute: MetaMember; direction: 'desc' | 'asc'; show: MetaMember[] }
  /** Why a member stands out: the measure next to its drivers (how many, how much each). */
  | { kind: 'why'; drivers: MetaMember[] }

/** A question in terms of the model: what to compute, over what, and how. */
export interface Frame {
  measure: MetaMember
  dimensions: MetaMember[]
  granularity?: Granularity
  /** "Average monthly revenue": the mean over the periods of the granularity. */
  averagePer?: Granularity
  /** "How many cities": the values of the one dimension are counted (the noun as asked), and listed. */
  countsValues?: string
  timeDimension?: MetaMember
  range?: RangeSpec
  /** Two or more periods to compare or to measure growth between, in time order. */
  periods?: RangeSpec[]
  top?: { n: number; direction: 'desc' | 'asc' }
  values: ValueFilter[]
  booleans: BooleanFilter[]
  analysis: Analysis
}

/** A frame with its periods resolved to dates (relative periods need the latest date in the data). */
export interface Resolved {
  frame: Frame
  range?: DateRange
  periods?: DateRange[]
}
