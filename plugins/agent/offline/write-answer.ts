import {
  answerTitle,
  describeFilters,
  filterWords,
  labelCells,
  labelColumns,
  percent,
  show,
  signed,
  table,
  type Column,
} from './answer'
import { escapeMarkdown } from './format'
import type { Analysis, Resolved } from './frame'
import type { MetaIndex, MetaMember } from './meta-index'
import { keyOf } from './members'
import type { PlannedQuery, SqlResult } from './plan-query'
import { withKeys } from './question'

export interface Answered {
  query: PlannedQuery
  result: SqlResult
}

type Row = Array<string | null>
const num = (value: string | null | undefined) =>
  value === null || value === undefined || value === '' ? NaN : Number(value)
const ratioMember = (member: MetaMember): MetaMember => ({ ...member, type: 'avg' })
const moneyish = (member: MetaMember): MetaMember =>
  /price|amount|discount|revenue|cost|value|total/.test(member.name)
    ? { ...member, type: 'avg', format: 'currency' }
    : member
const lower = (text: string) => text.charAt(0).toLowerCase() + text.slice(1)

/** Rows of several queries joined on their label columns, in the order they first appear. */
function joinRows(answers: Answered[]): { keys: string[]; labels: Map<string, Row>; values: Array<Map<string, Row>> } {
  const keys: string[] = []
  const labels = new Map<string, Row>()
  const values = answers.map(({ query, result }) => {
    const map = new Map<string, Row>()
    for (const row of result.data ?? []) {
      const key = JSON.stringify(row.slice(0, query.labels))
      if (!labels.has(key)) (labels.set(key, row.slice(0, query.labels)), keys.push(key))
      map.set(key, row.slice(query.labels))
    }
    return map
  })
  return { keys, labels, values }
}

function summaryOfRanking(
  resolved: Resolved,
  labels: string[][],
  values: number[],
  member: MetaMember,
  rowCount = values.length,
): string {
  if (values.length === 0) return ''
  // A row is named by all of its labels ("completed, 2024-12"): by its last one alone, a breakdown by two dimensions
  // named a month whose other rows were nowhere near the value.
  const name = (index: number) => labels[index].filter(Boolean).join(', ')
  if (values.length === 1) return `${name(0) || member.title}: **${show(values[0], member)}**.`
  const order = values.map((_, index) => index).sort((a, b) => values[b] - values[a])
  const [high, low] = [order[0], order.at(-1)!]
  const top = resolved.frame.top
  if (top) {
    const first = top.direction === 'desc' ? high : low
    const extreme = top.direction === 'desc' ? 'highest' : 'lowest'
    // Rows level with the first are a tie, said: "A and B tie for highest".
    const level = values.flatMap((value, index) => (value === values[first] ? [index] : []))
    const said =
      level.length > 1
        ? `${level.map((index) => `**${name(index)}**`).join(' and ')} tie for ${extreme} with **${show(values[first], member)}**.`
        : `**${name(first)}** is ${extreme} with **${show(values[first], member)}**.`
    // A row past the ones asked for is shown only when it ties with the last of them.
    const last = values.length - 1
    return values.length > top.n && level.length <= top.n
      ? `${said} ${name(last)} ties with ${name(last - 1)} (${show(values[last], member)}), so both are shown.`
      : said
  }
  // No highest where every row has the same value ("Toys is highest (15), Beauty lowest (15)").
  if (values[high] === values[low]) {
    // The things themselves listed ("List products"): each row counts one of them.
    const { dimensions } = resolved.frame
    if (member.type === 'count' && values[high] === 1 && dimensions.every((dim) => dim.cube === member.cube))
      return `**${rowCount}** in all, one a row.`
    return `All ${rowCount} have **${show(values[high], member)}**.`
  }
  return `**${name(high)}** is highest (**${show(values[high], member)}**), ${name(low)} lowest (${show(values[low], member)}).`
}

/**
 * The final answer to a resolved frame from its queries' results: a bold line saying what was computed, a short
 * summary, and a table of every number used. Derived numbers (changes, shares, ratios) are computed from the
 * query results and shown beside them.
 */
export function writeAnswer(resolved: Resolved, index: MetaIndex, answers: Answered[]): string {
  return `${answerText(resolved, index, answers)}${cacheNote(answers)}`
}

/**
 * A line saying the numbers came from the cache, with when the oldest of them was computed (UTC): a question asked
 * again within minutes is answered from there, also while the database is down, and the data may have moved since.
 */
function cacheNote(answers: Answered[]): string {
  const times = answers.flatMap(({ result }) => (result.cached ? [Date.parse(result.cached.computedAt)] : []))
  if (times.length === 0) return ''
  const oldest = new Date(Math.min(...times)).toISOString().slice(0, 19).replace('T', ' ')
  return `\n\n_Answered from the cache: computed at ${oldest} UTC._`
}

function answerText(resolved: Resolved, index: MetaIndex, answers: Answered[]): string {
  const { frame, periods } = resolved
  const title = `**${answerTitle(resolved)}**`
  const analysis = frame.analysis
  const measure = frame.measure
  // No rows, or only rows without a value ("revenue in 2020" before the data starts is one row of NULL).
  const noValue = ({ query, result }: Answered) =>
    (result.data ?? []).every((row) => row.slice(query.labels).every((value) => value === null))
  if (answers.every(noValue)) return `${title}\n\nNo data matched this question, so there is nothing to report.`
  const main = answers.find(({ query }) => query.role === 'main' || query.role === 'part') ?? answers[0]
  const grain = !(periods && (analysis.kind === 'compare' || analysis.kind === 'growth'))
  const sheet: Sheet = { resolved, index, answers, main, columns: labelColumns(index, frame, grain), rows: [] }
  const { columns, rows } = sheet
  const summary =
    (analysis.kind === 'compare' || analysis.kind === 'growth') && periods
      ? periodsAnswer(sheet, analysis, periods)
      : analysis.kind === 'share'
        ? shareAnswer(sheet)
        : analysis.kind === 'ratio'
          ? ratioAnswer(sheet, analysis)
          : analysis.kind === 'record'
            ? recordAnswer(sheet, analysis)
            : valueAnswer(sheet)
  const total = main.result.totalRows
  const more =
    !frame.top && total !== undefined && total > (main.result.data ?? []).length
      ? `\n\nShowing ${(main.result.data ?? []).length} of ${total} rows${extraRow(answers, 'high') ? '; the summary covers all of them' : ''}.`
      : ''
  // Numbers over part of the data (an access policy) say so: "our total revenue" is then the caller's part of it.
  const rowAccess = index.cubes.find((cube) => cube.name === measure.cube)?.rowAccess
  const scope = rowAccess ? `\n\nThese figures cover only the data you may see (${rowAccess}).` : ''
  return `${title}\n\n${summary}${scope}\n\n${table(columns, rows)}${more}`
}

/** What an answer writes into: the table's columns and rows, from the results of one frame's queries. */
interface Sheet {
  resolved: Resolved
  index: MetaIndex
  answers: Answered[]
  /** The query whose rows the table shows. */
  main: Answered
  columns: Column[]
  rows: string[][]
}

/** The one row of the query asked for the highest, the lowest or the total on its own. */
const extraRow = (answers: Answered[], role: 'high' | 'low' | 'total') =>
  answers.find(({ query }) => query.role === role)?.result.data?.[0]

/** Periods side by side, or the change between them (ranked for "which grew most"); returns the summary. */
function periodsAnswer(
  sheet: Sheet,
  analysis: Extract<Analysis, { kind: 'compare' | 'growth' }>,
  periods: NonNullable<Resolved['periods']>,
): string {
  const { answers, index, columns, rows } = sheet
  const { frame } = sheet.resolved
  const measure = frame.measure
  let summary = ''
  const joined = joinRows(answers)
  const [first, last] = [0, periods.length - 1]
  const change = (key: string) => num(joined.values[last].get(key)?.[0]) - num(joined.values[first].get(key)?.[0])
  const pct = (key: string) => (100 * change(key)) / num(joined.values[first].get(key)?.[0])
  const keys = [...joined.keys]
  if (analysis.kind === 'growth' && analysis.rank) {
    const by = analysis.rank.by === 'percent' ? pct : change
    keys.sort((a, b) => (analysis.rank!.direction === 'desc' ? by(b) - by(a) : by(a) - by(b)))
  }
  const word = (key: string) => labelCells(joined.labels.get(key)!, joined.labels.get(key)!.length, frame, index, false)
  if (columns.length === 0 && analysis.kind === 'compare') {
    columns.push({ header: 'Period', numeric: false }, { header: measure.title, numeric: true })
    periods.forEach((period, number) =>
      rows.push([period.row, show(joined.values[number].get(keys[0])?.[0] ?? null, measure)]),
    )
    // The change the summary states, in the table too: every number the text uses is in it.
    rows.push(['Change', `${signed(change(keys[0]), measure)} (${percent(pct(keys[0]), true)})`])
    summary = `${measure.title} went from ${show(num(joined.values[first].get(keys[0])?.[0]), measure)} in ${periods[first].row} to ${show(num(joined.values[last].get(keys[0])?.[0]), measure)} in ${periods[last].row} (${signed(change(keys[0]), measure)}, ${percent(pct(keys[0]), true)}).`
  } else {
    columns.push(
      ...periods.map((period) => ({ header: `${measure.title} ${period.row}`, numeric: true })),
      { header: 'Change', numeric: true },
      { header: 'Change %', numeric: true },
    )
    for (const key of keys)
      rows.push([
        ...word(key),
        ...periods.map((_, number) => show(joined.values[number].get(key)?.[0] ?? null, measure)),
        signed(change(key), measure),
        percent(pct(key), true),
      ])
    const lead = keys[0]
    summary =
      columns.length > 4
        ? analysis.kind === 'growth' && analysis.rank
          ? `**${word(lead).at(-1)}** ${analysis.rank.direction === 'desc' ? 'grew most' : 'fell most (or grew least)'}: ${signed(change(lead), measure)} (${percent(pct(lead), true)}) from ${periods[first].row} to ${periods[last].row}.`
          : `${measure.title} side by side for ${periods.map((period) => period.row).join(' and ')}, with the change.`
        : `${measure.title} changed by **${signed(change(lead), measure)}** (**${percent(pct(lead), true)}**) from ${periods[first].row} to ${periods[last].row}.`
  }
  return summary
}

/** The part matching the filters as a share of the whole: once, per group, or of each row; returns the summary. */
function shareAnswer(sheet: Sheet): string {
  const { answers, index, columns, rows, main } = sheet
  const { frame } = sheet.resolved
  const measure = frame.measure
  let summary = ''
  const whole = num(answers.find(({ query }) => query.role === 'whole')?.result.data?.[0]?.[0])
  const data = main.result.data ?? []
  const conditions = describeFilters(frame)
  if (columns.length === 0) {
    const part = num(data[0]?.[0])
    // What the share is of: every row, or those the question named as the whole ("of Asia's orders").
    const of = describeFilters(frame, true, 'whole')
    const within = of.length ? ` (${of.join('; ')})` : ''
    columns.push(
      { header: 'Matching', numeric: false },
      { header: measure.title, numeric: true },
      { header: `All ${lower(measure.title)}${within}`, numeric: true },
      { header: 'Share', numeric: true },
    )
    const label = [
      ...frame.values
        .filter((filter) => !filter.scope)
        .map((filter) =>
          filter.op
            ? filterWords(filter)
            : `${filter.negated ? 'not ' : ''}${filter.values.map(escapeMarkdown).join(', ')}`,
        ),
      ...frame.booleans
        .filter((flag) => !flag.scope)
        .map((flag) => `${flag.member.title}: ${flag.value ? 'yes' : 'no'}`),
    ].join('; ')
    rows.push([label, show(part, measure), show(whole, measure), percent((100 * part) / whole)])
    summary = `${describeFilters(frame, true, 'part').join(', ')} accounts for **${percent((100 * part) / whole)}** of ${lower(measure.title)}${of.length ? ` where ${of.join(', ')}` : ''} (${show(part, measure)} of ${show(whole, measure)}).`
  } else if (answers.find(({ query }) => query.role === 'whole')!.query.labels > 0) {
    // The share of the rows matching the filters within each group.
    const joined = joinRows(answers)
    columns.push(
      { header: `${measure.title} (${conditions.join(', ')})`, numeric: true },
      { header: `All ${lower(measure.title)}`, numeric: true },
      { header: 'Share', numeric: true },
    )
    const share = (key: string) =>
      (100 * num(joined.values[0].get(key)?.[0] ?? '0')) / num(joined.values[1].get(key)?.[0])
    const keys = joined.keys
      .filter((key) => joined.values[0].has(key))
      .sort((a, b) => (frame.top?.direction === 'asc' ? share(a) - share(b) : share(b) - share(a)))
    for (const key of keys)
      rows.push([
        ...labelCells(joined.labels.get(key)!, main.query.labels, frame, index),
        show(joined.values[0].get(key)?.[0] ?? null, measure),
        show(joined.values[1].get(key)?.[0] ?? null, measure),
        percent(share(key)),
      ])
    summary = rows.length
      ? `**${rows[0].slice(0, main.query.labels).at(-1)}** has the ${frame.top?.direction === 'asc' ? 'lowest' : 'highest'} share matching ${conditions.join(', ')}: **${rows[0].at(-1)}**.`
      : ''
  } else {
    columns.push({ header: measure.title, numeric: true }, { header: 'Share', numeric: true })
    for (const row of data)
      rows.push([
        ...labelCells(row, main.query.labels, frame, index),
        show(row[main.query.labels], measure),
        percent((100 * num(row[main.query.labels])) / whole),
      ])
    summary = `Shares of ${lower(measure.title)} (total ${show(whole, measure)}); ${rows[0]?.slice(0, main.query.labels).at(-1)} has the largest share, ${rows[0]?.at(-1)}.`
  }
  return summary
}

/** The measure divided by another, per row; returns the summary. */
function ratioAnswer(sheet: Sheet, analysis: Extract<Analysis, { kind: 'ratio' }>): string {
  const { answers, index, columns, rows } = sheet
  const { frame } = sheet.resolved
  const measure = frame.measure
  let summary = ''
  const denominator = analysis.denominator
  const joined = joinRows(answers)
  const split = answers.length > 1
  columns.push(
    { header: measure.title, numeric: true },
    { header: denominator.title, numeric: true },
    { header: `${measure.title} per ${analysis.per.replace(/s$/, '')}`, numeric: true },
  )
  for (const key of frame.top ? joined.keys.slice(0, frame.top.n) : joined.keys) {
    const a = num(joined.values[0].get(key)?.[0])
    const b = num(split ? joined.values[1].get(key)?.[0] : joined.values[0].get(key)?.[1])
    rows.push([
      ...labelCells(joined.labels.get(key)!, joined.labels.get(key)!.length, frame, index),
      show(a, measure),
      show(b, denominator),
      show(a / b, ratioMember(measure)),
    ])
  }
  summary =
    rows.length === 1
      ? `${measure.title} per ${analysis.per.replace(/s$/, '')}: **${rows[0].at(-1)}** (${rows[0].at(-3)} over ${rows[0].at(-2)} ${lower(denominator.title)}).`
      : `${measure.title} divided by ${lower(denominator.title)} for each row.`
  return summary
}

/** Single records ranked by an attribute, with ties past the ones asked for; returns the summary. */
function recordAnswer(sheet: Sheet, analysis: Extract<Analysis, { kind: 'record' }>): string {
  const { index, columns, rows, main } = sheet
  const { frame } = sheet.resolved
  let summary = ''
  const shown = analysis.show.filter((member) => member !== analysis.attribute)
  columns.push(...shown.map((member) => ({ header: member.title, numeric: false })), {
    header: analysis.attribute.title,
    numeric: true,
  })
  // One row more than asked for came back: kept only when it ties with the last one asked for.
  const asked = frame.top?.n ?? 1
  const records = (main.result.data ?? []).filter(
    (row, position, all) => position < asked || row[shown.length] === all[asked - 1]?.[shown.length],
  )
  for (const row of records)
    rows.push([
      ...row.slice(0, shown.length).map((value) => (value === null ? '–' : escapeMarkdown(value))),
      show(row[shown.length], moneyish(analysis.attribute)),
    ])
  const cubeTitle = index.cubes.find((cube) => cube.name === analysis.attribute.cube)?.title
  const thing = (cubeTitle ?? analysis.attribute.cube.replace(/_/g, ' ')).toLowerCase().replace(/s$/, '')
  const extreme = `${analysis.direction === 'desc' ? 'highest' : 'lowest'} ${lower(analysis.attribute.title)}`
  const first = `**${rows[0]
    .slice(0, -1)
    .filter((entry) => entry !== '–')
    .join(', ')}**, ${rows[0].at(-1)}`
  summary =
    rows.length > 1
      ? `The ${rows.length} ${thing}s with the ${extreme}, first ${first}.`
      : `The single ${thing} with the ${extreme}: ${first}.`
  if (rows.length > asked)
    summary += ` ${rows.length - asked === 1 ? 'One more ties' : `${rows.length - asked} more tie`} with the last of the ${asked} asked for, so ${rows.length} are shown.`
  return summary
}

/**
 * A measure's values, by the rows asked for (a change per period for growth along a grain): the ranking summed up,
 * with how many values there are, namesakes, the mean per period and what "why" can say; returns the summary.
 */
function valueAnswer(sheet: Sheet): string {
  const { answers, index, columns, rows, main, resolved } = sheet
  const { frame } = resolved
  const { analysis, measure } = frame
  const extra = (role: 'high' | 'low' | 'total') => extraRow(answers, role)
  let summary = ''
  const measures = main.query.measures
  const labels = main.query.labels
  columns.push(...measures.map((member) => ({ header: member.title, numeric: true })))
  const growth = analysis.kind === 'growth' && frame.granularity
  if (growth) columns.push({ header: 'Change', numeric: true }, { header: 'Change %', numeric: true })
  // A top N was asked with one row more: kept only when it ties with the last one asked for.
  const top = frame.top
  const data = (main.result.data ?? []).filter(
    (row, position, all) => !top || position < top.n || (labels > 0 && row[labels] === all[top.n - 1]?.[labels]),
  )
  data.forEach((row, position) => {
    const cells = [
      ...labelCells(row, labels, frame, index),
      ...measures.map((member, offset) => show(row[labels + offset], member)),
    ]
    if (growth) {
      const before = position > 0 ? num(data[position - 1][labels]) : NaN
      const now = num(row[labels])
      cells.push(
        position > 0 ? signed(now - before, measure) : '–',
        position > 0 ? percent((100 * (now - before)) / before, true) : '–',
      )
    }
    rows.push(cells)
  })
  // More rows than were returned: the extremes were asked for on their own (see `queriesBeyondRows`).
  const [high, low] = [extra('high'), extra('low')]
  const ranked = high && low ? [high, low] : data
  summary = summaryOfRanking(
    resolved,
    // Named by their labels: a key beside a name ("44, India") is for the table, where namesakes differ.
    ranked.map((row) => {
      const dims = withKeys(index, frame.dimensions)
      return labelCells(row, labels, frame, index).filter(
        (_, position) => !(dims[position]?.primaryKey && dims[position + 1]?.cube === dims[position].cube),
      )
    }),
    ranked.map((row) => num(row[labels])),
    measure,
    high && low ? (main.result.totalRows ?? data.length) : data.length,
  )
  // "How many cities": the number of values first, then what the listing says of them.
  if (frame.countsValues && frame.dimensions.length === 1 && !frame.granularity)
    summary = `There are **${(main.result.totalRows ?? data.length).toLocaleString('en-US')}** ${frame.countsValues}. ${summary}`
  // Several things of the one name asked for ("How much did Ada Rossi spend?"): said, each on its own row.
  const named = frame.values.find(
    (filter) => filter.values.length === 1 && frame.dimensions.includes(filter.member) && keyOf(index, filter.member),
  )
  const matching = main.result.totalRows ?? data.length
  // Rows are things only when nothing else splits them ("Deluxe Headphones by year" is one product, five rows).
  if (named && matching > 1 && frame.dimensions.length === 1 && !frame.granularity) {
    const things = (
      index.cubes.find((cube) => cube.name === named.member.cube)?.title ?? named.member.cube
    ).toLowerCase()
    summary = `${matching} ${things} are named ${escapeMarkdown(named.values[0])}, each on its own row. ${summary}`
  }
  if (frame.averagePer && labels === 1 && data.length) {
    // Over every period: the total over their number when more came than were returned.
    const total = extra('total')
    const periods = total ? (main.result.totalRows ?? data.length) : data.length
    const mean = total ? num(total[0]) / periods : data.reduce((sum, row) => sum + num(row[labels]), 0) / data.length
    const average = show(mean, ratioMember(measure))
    // Without a total to divide (a distinct count does not add up), the mean is of the rows shown, and says so.
    const shown = !total && (main.result.totalRows ?? data.length) > data.length ? ' shown' : ''
    rows.push(['Average', average])
    summary = `${measure.title} averaged **${average}** per ${frame.averagePer} over ${periods} ${frame.averagePer}s${shown}. ${summary}`
  }
  if (analysis.kind === 'why')
    summary = `The data cannot say why, but it shows what makes up ${lower(measure.title)}${analysis.drivers.length ? `: ${analysis.drivers.map((driver) => lower(driver.title)).join(' and ')}` : ''} for each row. ${summary}`
  return summary
}
