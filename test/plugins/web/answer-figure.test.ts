import { describe, expect, it } from 'bun:test'
import { answerFigure, cellNumber } from '../../../plugins/web/client/answer-figure'
import { pointText } from '../../../plugins/web/client/chart'

const comparison = `**Product revenue by Category, 2023 vs 2024**

Product revenue side by side for 2023 and 2024, with the change.

| Category | Product revenue 2023 | Product revenue 2024 | Change | Change % |
|---|---:|---:|---:|---:|
| Electronics | 4,413,169.28 | 5,237,513.22 | +824,343.94 | +18.7% |
| Sports | 2,378,906.12 | 2,775,002.94 | +396,096.82 | +16.7% |
| Books | 301,772.41 | 358,227.43 | +56,455.02 | +18.7% |`

const shares = `**Share of number of orders by Category, all time (Has discount: yes)**

**Beauty** has the highest share matching Has discount: yes: **20.3%**.

| Category | Number of orders (Has discount: yes) | All number of orders | Share |
|---|---:|---:|---:|
| Beauty | 4,817 | 23,717 | 20.3% |
| Electronics | 5,606 | 27,671 | 20.2% |
| Books | 5,618 | 28,492 | 19.7% |`

describe('answerFigure', () => {
  it('draws every period a comparison compares and the change, named as its table names them', () => {
    const { series, table } = answerFigure(comparison)!
    expect(series.kind).toBe('bar')
    expect(series.labels).toEqual(['Electronics', 'Sports', 'Books'])
    expect(series.columns.map((column) => column.name)).toEqual([
      'Product revenue 2023',
      'Product revenue 2024',
      'Change',
    ])
    expect(series.columns[0].values).toEqual([4413169.28, 2378906.12, 301772.41])
    expect(series.columns[2].values).toEqual([824343.94, 396096.82, 56455.02])
    expect(table.headers).toHaveLength(5)
    // The tooltip says the row as the table writes it, the change in percent too.
    expect(pointText(series, 0)).toBe(
      'Electronics\nProduct revenue 2023: 4,413,169.28\nProduct revenue 2024: 5,237,513.22\nChange: +824,343.94\nChange %: +18.7%',
    )
  })

  it('plots the shares of a share answer, so what the text calls highest is the tallest bar', () => {
    const { series } = answerFigure(shares)!
    expect(series.columns).toHaveLength(1)
    expect(series.columns[0].name).toBe('Share')
    expect(series.columns[0].values).toEqual([20.3, 20.2, 19.7])
    const tallest = series.columns[0].values.indexOf(Math.max(...(series.columns[0].values as number[])))
    expect(series.labels[tallest]).toBe('Beauty')
  })

  it('draws the growth in percent when the answer ranks by it, so the one it says grew most is the tallest bar', () => {
    const text = `**Product revenue growth by Category, 2024 to 2025**

**Garden** grew most: +421,769.24 (+21.4%) from 2024 to 2025.

| Category | Product revenue 2024 | Product revenue 2025 | Change | Change % |
|---|---:|---:|---:|---:|
| Garden | 1,970,385.89 | 2,392,155.13 | +421,769.24 | +21.4% |
| Sports | 2,775,002.94 | 3,329,979.61 | +554,976.67 | +20.0% |
| Books | 358,227.43 | 419,650.22 | +61,422.79 | +17.1% |`
    const { series } = answerFigure(text)!
    expect(series.columns.map((column) => column.name)).toEqual(['Change %'])
    expect(series.columns[0].values).toEqual([21.4, 20, 17.1])
    // Ranked by both (the largest change is also the fastest): the periods and the change, as a comparison.
    const both = text.replace('+554,976.67', '+54,976.67').replace('+61,422.79', '+1,422.79')
    const periods = ['Product revenue 2024', 'Product revenue 2025', 'Change']
    // A comparison ("2024 vs 2025") draws its periods whatever order its rows are in.
    const compared = text.replace('growth by Category, 2024 to 2025', 'by Category, 2024 vs 2025')
    expect(answerFigure(compared)!.series.columns.map((column) => column.name)).toEqual(periods)
    expect(answerFigure(both)!.series.columns.map((column) => column.name)).toEqual([
      'Product revenue 2024',
      'Product revenue 2025',
      'Change',
    ])
  })

  it('draws two periods compared as bars beside their change, its percent in the tooltip and the table', () => {
    const text = `**Revenue, 2023 vs 2024**

Revenue went from 12,047,175.72 in 2023 to 14,228,402.13 in 2024 (+2,181,226.41, +18.1%).

| Period | Revenue |
|---|---:|
| 2023 | 12,047,175.72 |
| 2024 | 14,228,402.13 |
| Change | +2,181,226.41 (+18.1%) |`
    const { series, table } = answerFigure(text)!
    expect(series.kind).toBe('bar')
    expect(series.labels).toEqual(['2023', '2024', 'Change'])
    expect(series.columns[0].values).toEqual([12047175.72, 14228402.13, 2181226.41])
    expect(table.rows).toHaveLength(3)
    expect(series.details[2]).toEqual([['Revenue', '+2,181,226.41 (+18.1%)']])
  })

  it('plots the ratio of a ratio answer, not its numerator', () => {
    const text = `**Revenue per customer by Region, all time**

| Region | Revenue | Ordering customers | Revenue per customer |
|---|---:|---:|---:|
| North America | 17,467,700.64 | 2,380 | 7,339.37 |
| Europe | 17,308,839.78 | 2,254 | 7,679.17 |`
    const { series } = answerFigure(text)!
    expect(series.columns.map((column) => column.name)).toEqual(['Revenue per customer'])
    expect(series.columns[0].values).toEqual([7339.37, 7679.17])
  })

  it('draws months as a line and leaves the average row under them out of the series', () => {
    const text = `**Revenue by month, 2024**

| Order date (month) | Revenue |
|---|---:|
| 2024-01 | 391,744.90 |
| 2024-02 | 619,060.00 |
| Average | 505,402.45 |`
    const { series, table } = answerFigure(text)!
    expect(series.kind).toBe('line')
    expect(series.labels).toEqual(['2024-01', '2024-02'])
    expect(series.columns[0].texts).toEqual(['391,744.90', '619,060.00'])
    expect(table.rows).toHaveLength(3)
  })

  it('reads the labels as plain text, escapes undone, and draws no chart for one row or a long list of names', () => {
    const text = `| Product | Revenue |\n|---|---:|\n| Deluxe\\_Kit \\*new\\* | 1,000 |\n| Mug | 2 |`
    expect(answerFigure(text)!.series.labels).toEqual(['Deluxe_Kit *new*', 'Mug'])
    expect(answerFigure(`| Product | Revenue |\n|---|---:|\n| Mug | 2 |`)).toBeUndefined()
    const many = Array.from({ length: 13 }, (_, index) => `| P${index} | ${index} |`).join('\n')
    expect(answerFigure(`| Product | Revenue |\n|---|---:|\n${many}`)).toBeUndefined()
  })
})

describe('answerFigure labels', () => {
  it("puts a row's name before its key, so a shortened bar label still says who it is", () => {
    const text = `| Customer id | Customer | Revenue |\n|---|---|---:|\n| 1867 | Ada Rossi | 37,450.94 |\n| 166 | Rosa Umar | 28,000.00 |`
    const { series } = answerFigure(text)!
    expect(series.labels).toEqual(['Ada Rossi (1867)', 'Rosa Umar (166)'])
    expect(series.labelName).toBe('Customer')
  })
})

describe('cellNumber', () => {
  it('reads numbers as answers write them, and nothing else', () => {
    expect(cellNumber('4,413,169.28')).toBe(4413169.28)
    expect(cellNumber('+18.7%')).toBe(18.7)
    expect(cellNumber('-312')).toBe(-312)
    expect(cellNumber('**20.3%**')).toBe(20.3)
    expect(cellNumber('–')).toBeNull()
    expect(cellNumber('2024 Q1')).toBeNull()
    expect(cellNumber('1,23')).toBeNull()
    expect(cellNumber('+2,181,226.41 (+18.1%)')).toBe(2181226.41)
    expect(cellNumber('(+18.1%)')).toBeNull()
  })
})
