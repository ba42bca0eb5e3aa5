import { useState } from 'preact/hooks'
import type { ViewerControls } from '../dashboard-controls'
import type { EmbedDashboard } from '../model'

const GRAINS = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const
const OPERATORS: Record<EmbedDashboard['filters'][number]['operator'], string> = {
  equals: 'is',
  notEquals: 'is not',
  contains: 'contains',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  inDateRange: 'between',
  set: 'is set',
  notSet: 'is not set',
}

type Filter = EmbedDashboard['filters'][number]

function FilterControl({
  filter,
  values,
  onChange,
}: {
  filter: Filter
  values: string[]
  onChange(values: string[]): void
}) {
  const id = `filter-${filter.member.replace(/\W/g, '-')}`
  const label = `${filter.title} ${OPERATORS[filter.operator]}`
  if (filter.operator === 'set' || filter.operator === 'notSet')
    return (
      <span class="control control-fixed">
        {filter.title} {OPERATORS[filter.operator]}
      </span>
    )
  if (filter.choices)
    return (
      <label class="control" for={id}>
        <span>{label}</span>
        <select
          id={id}
          value={values[0] ?? ''}
          onChange={(event) => onChange(event.currentTarget.value === '' ? [] : [event.currentTarget.value])}
        >
          <option value="">All</option>
          {/* A value the dashboard set that this viewer cannot see still shows as chosen. */}
          {[...new Set([...values, ...filter.choices])].map((choice) => (
            <option value={choice}>{choice}</option>
          ))}
        </select>
      </label>
    )
  return (
    <TextFilter id={id} label={label} values={values} onChange={onChange} range={filter.operator === 'inDateRange'} />
  )
}

/** Whether `day` is a day of the calendar written `YYYY-MM-DD` (`2024-02-30` is not). */
function isDay(day: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!match) return false
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
  return date.toISOString().slice(0, 10) === day
}

/** What is wrong with a typed date range (two days, the first not after the second), or undefined. */
export function rangeProblem(parts: string[]): string | undefined {
  if (parts.length === 0) return undefined
  if (parts.length !== 2 || !parts.every(isDay)) return 'Write two dates: 2024-01-01 to 2024-12-31'
  if (parts[0] > parts[1]) return 'The first date comes after the second'
  return undefined
}

/** Free values: applied on Enter or when the field is left, not on every key. */
function TextFilter({
  id,
  label,
  values,
  onChange,
  range,
}: {
  id: string
  label: string
  values: string[]
  onChange(values: string[]): void
  range: boolean
}) {
  const [text, setText] = useState(values.join(range ? ' to ' : ', '))
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const apply = () => {
    const parts = text
      .split(range ? /\s+to\s+/ : ',')
      .map((part) => part.trim())
      .filter(Boolean)
    // A range the widgets cannot apply is said here, not sent: they would show figures the field does not describe.
    const wrong = range ? rangeProblem(parts) : undefined
    setProblem(wrong)
    if (wrong) return
    if (parts.join('\u0000') !== values.join('\u0000')) onChange(parts)
  }
  const problemId = `${id}-problem`
  return (
    <label class="control" for={id}>
      <span>{label}</span>
      <input
        id={id}
        class={range ? 'control-range' : undefined}
        value={text}
        placeholder={range ? '2024-01-01 to 2024-12-31' : 'Any'}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={problem ? problemId : undefined}
        onInput={(event) => setText(event.currentTarget.value)}
        onBlur={apply}
        onKeyDown={(event) => {
          if (event.key === 'Enter') apply()
        }}
      />
      {problem && (
        <span id={problemId} class="control-problem" role="alert">
          {problem}
        </span>
      )}
    </label>
  )
}

/**
 * The dashboard's filters and time grains, which the viewer may change (every widget they fit follows), and the
 * values the session fixed (the user's attributes), shown as locked: no control here changes what rows a user sees.
 */
export function DashboardControls({
  dashboard,
  controls,
  onChange,
}: {
  dashboard: EmbedDashboard
  controls: ViewerControls
  onChange(controls: ViewerControls): void
}) {
  if (dashboard.filters.length === 0 && dashboard.timeGrains.length === 0 && dashboard.locked.length === 0) return null
  return (
    <section class="controls" aria-label="Dashboard filters">
      {dashboard.filters.map((filter) => (
        <FilterControl
          key={filter.member}
          filter={filter}
          values={controls.filters?.[filter.member] ?? filter.values}
          onChange={(values) => onChange({ ...controls, filters: { ...controls.filters, [filter.member]: values } })}
        />
      ))}
      {dashboard.timeGrains.map((grain) => {
        const id = `grain-${grain.member.replace(/\W/g, '-')}`
        return (
          <label class="control" for={id} key={grain.member}>
            <span>{grain.title} by</span>
            <select
              id={id}
              value={controls.timeGrains?.[grain.member] ?? grain.granularity}
              onChange={(event) =>
                onChange({
                  ...controls,
                  timeGrains: {
                    ...controls.timeGrains,
                    [grain.member]: event.currentTarget.value as (typeof GRAINS)[number],
                  },
                })
              }
            >
              {GRAINS.map((granularity) => (
                <option value={granularity}>{granularity}</option>
              ))}
            </select>
          </label>
        )
      })}
      {dashboard.locked.map((entry) => (
        <span class="control control-locked" key={entry.name} title="Set by your session: it cannot be changed here">
          <svg viewBox="0 0 20 20" width="14" height="14" aria-hidden="true" focusable="false">
            <path d="M6 9V7a4 4 0 1 1 8 0v2h1v9H5V9zm2 0h4V7a2 2 0 1 0-4 0z" class="icon-fill" />
          </svg>
          <span>
            {entry.title}: <strong>{entry.value}</strong>
          </span>
          <span class="sr-only"> (locked by your session)</span>
        </span>
      ))}
    </section>
  )
}
