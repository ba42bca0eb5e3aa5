import type { PlannedColumn } from './query/query-plan'
import { titleOf } from './semantic-model/semantic-model'

/**
 * The heading a person reads for a result column: the model's title of the member it shows (`Revenue`, not
 * `total_amount`), with the time grain of a truncated date (`Order date (month)`); for expressions that name no
 * member (`COUNT(*)`, a literal), the column's name made readable.
 */
export function columnTitleOf(column: PlannedColumn): string {
  const expression = column.expression
  switch (expression.kind) {
    case 'dimension':
    case 'measure':
      return expression.member.title
    case 'truncate':
      return `${expression.member.title} (${expression.granularity})`
    default:
      return titleOf(column.name.includes('.') ? column.name.slice(column.name.lastIndexOf('.') + 1) : column.name)
  }
}
