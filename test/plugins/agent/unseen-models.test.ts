import { describe, expect, it } from 'bun:test'
import { demoMeta } from './demo-meta'
import { runAnalyst } from './run-analyst'

/**
 * The offline analyst on models as `model generate` writes them from databases no one on the team has seen: a
 * table of rent payments (what is paid named before the money noun), parcels sent between towns.
 */
const member = (cube: string, name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name: `${cube}.${name}`,
  type,
  ...extra,
})
const rentMeta = {
  cubes: [
    {
      name: 'rent_payments',
      title: 'Rent payments',
      joins: [{ name: 'tenants', relationship: 'many_to_one' }],
      measures: [
        member('rent_payments', 'count', 'count', { title: 'Number of rent payments', synonyms: ['transactions'] }),
        member('rent_payments', 'total_amount', 'sum', {
          title: 'Revenue',
          format: 'currency',
          synonyms: ['revenue', 'sales', 'turnover'],
        }),
        member('rent_payments', 'average_amount', 'avg', {
          title: 'Average rent payment value',
          format: 'currency',
        }),
      ],
      dimensions: [
        member('rent_payments', 'id', 'number', { primaryKey: true, title: 'Rent payment ID' }),
        member('rent_payments', 'tenant_id', 'number', { title: 'Tenant ID' }),
        member('rent_payments', 'amount', 'number', { title: 'Rent payment amount' }),
        member('rent_payments', 'paid_on', 'time', { title: 'Paid on' }),
      ],
    },
    {
      name: 'tenants',
      title: 'Tenants',
      label: 'full_name',
      joins: [],
      measures: [member('tenants', 'count', 'count', { title: 'Number of tenants' })],
      dimensions: [
        member('tenants', 'id', 'number', { primaryKey: true, title: 'Tenant ID' }),
        member('tenants', 'full_name', 'string', { title: 'Tenant name' }),
        member('tenants', 'building', 'string', { title: 'Building' }),
      ],
    },
  ],
}

describe('the offline analyst on a table of payments named by what is paid', () => {
  it('reads the words before the money noun as the money, and counts the payments when asked how many', () => {
    for (const question of ['Total rent paid', 'Rent in 2024', 'Rent by building'])
      expect(runAnalyst(rentMeta, question).queries.join('\n')).toContain('MEASURE(rent_payments.total_amount)')
    const many = runAnalyst(rentMeta, 'How many rent payments in 2024?').queries.join('\n')
    expect(many).toContain('MEASURE(rent_payments.count)')
    expect(many).not.toContain('total_amount')
  })

  it("ranks by the money a column named by the table's words holds, never breaks down by each amount", () => {
    const top = runAnalyst(rentMeta, 'Top 3 tenants by rent paid').queries.join('\n')
    expect(top).toContain('tenants.full_name')
    expect(top).toContain('MEASURE(rent_payments.total_amount)')
    expect(top).not.toContain('rent_payments.amount AS')
  })
})

const parcelMeta = {
  cubes: [
    {
      name: 'parcels',
      title: 'Parcels',
      joins: [{ name: 'senders', relationship: 'many_to_one' }],
      measures: [
        member('parcels', 'count', 'count', { title: 'Number of parcels' }),
        member('parcels', 'total_postage', 'sum', { title: 'Total postage', format: 'currency' }),
        member('parcels', 'total_weight_kg', 'sum', { title: 'Total weight kg' }),
        member('parcels', 'distinct_sender', 'count_distinct', { title: 'Number of different senders' }),
        member('parcels', 'average_rating', 'avg', { title: 'Average parcel rating' }),
      ],
      dimensions: [
        member('parcels', 'id', 'number', { primaryKey: true, title: 'Parcel ID' }),
        member('parcels', 'origin_town', 'string', { title: 'Origin town' }),
        member('parcels', 'destination_town', 'string', { title: 'Destination town' }),
        member('parcels', 'posted_on', 'time', { title: 'Posted on' }),
        member('parcels', 'delivered_on', 'time', { title: 'Delivered on' }),
        member('parcels', 'weight_kg', 'number', { title: 'Weight kg' }),
        member('parcels', 'status', 'string', { title: 'Parcel status' }),
        member('parcels', 'insured_value', 'number', { title: 'Insured value' }),
        member('parcels', 'rating', 'number', { title: 'Parcel rating' }),
      ],
    },
    {
      name: 'senders',
      title: 'Senders',
      joins: [],
      measures: [member('senders', 'count', 'count', { title: 'Number of senders' })],
      dimensions: [
        member('senders', 'id', 'number', { primaryKey: true, title: 'Sender ID' }),
        member('senders', 'name', 'string', { title: 'Sender name' }),
        member('senders', 'town', 'string', { title: 'Town' }),
      ],
    },
  ],
}
/** Every town is in all three columns: the search finds "Leeds" in each. */
const leeds = {
  search: {
    ...parcelMeta,
    values: ['senders.town', 'parcels.origin_town', 'parcels.destination_town'].map((name) => ({
      member: name,
      value: 'Leeds',
    })),
    dates: [],
  },
}

describe('the offline analyst on a value several columns hold', () => {
  it('filters the column the words around the value name: to, from, its title, the table named before it', () => {
    const where = (question: string) => runAnalyst(parcelMeta, question, leeds).queries.join('\n')
    expect(where('Postage of parcels to Leeds')).toContain("parcels.destination_town = 'Leeds'")
    expect(where('Parcels from Leeds')).toContain("parcels.origin_town = 'Leeds'")
    expect(where('Number of parcels with destination town Leeds')).toContain("parcels.destination_town = 'Leeds'")
    expect(where('Number of parcels for senders in Leeds')).toContain("senders.town = 'Leeds'")
  })

  it('asks which column is meant where two columns of one table hold it and no word tells them apart', () => {
    const { text, queries } = runAnalyst(parcelMeta, 'Total postage for Leeds', leeds)
    expect(queries).toEqual([])
    expect(text).toContain('"Leeds" is a value of Origin town and Destination town; say which one you mean')
    expect(text).not.toContain('|')
  })
})

describe('the offline analyst on the verb of a date', () => {
  it("reads the verb of the rows' own date as their event, and another date's verb as the date a period is of", () => {
    const asked = (question: string) => runAnalyst(parcelMeta, question)
    expect(asked('Total weight posted').queries).toEqual([
      'SELECT MEASURE(parcels.total_weight_kg) AS total_weight_kg FROM parcels',
    ])
    expect(asked('Number of parcels delivered in 2024').queries.join('\n')).toContain(
      "parcels.delivered_on >= '2024-01-01'",
    )
    // Without a period, another date's verb may mean only the rows that have one: not read as all of them.
    const delivered = asked('Total weight delivered')
    expect(delivered.queries).toEqual([])
    expect(delivered.text).toContain('I could not map "delivered"')
  })

  it('reads the verb in its other forms ("posts", "posting") as "posted"', () => {
    const query = runAnalyst(parcelMeta, 'Which origin town posts the most weight?').queries.join('\n')
    expect(query).toContain('parcels.origin_town AS')
    expect(query).toContain('MEASURE(parcels.total_weight_kg)')
  })

  it('counts the different things that rows dated by the verb name, as "how many customers ordered" does', () => {
    const senders = runAnalyst(parcelMeta, 'How many senders posted in 2024?').queries.join('\n')
    expect(senders).toContain('MEASURE(parcels.distinct_sender)')
    expect(senders).toContain("parcels.posted_on >= '2024-01-01'")
  })
})

describe('the offline analyst on a table named by two words', () => {
  const inspections = {
    cubes: [
      {
        name: 'inspection_reports',
        title: 'Inspection reports',
        joins: [],
        measures: [
          member('inspection_reports', 'count', 'count', { title: 'Number of inspection reports' }),
          member('inspection_reports', 'average_score', 'avg', { title: 'Average inspection report score' }),
        ],
        dimensions: [
          member('inspection_reports', 'id', 'number', { primaryKey: true, title: 'Inspection report ID' }),
          member('inspection_reports', 'score', 'number', { title: 'Inspection report score' }),
          member('inspection_reports', 'inspected_on', 'time', { title: 'Inspected on' }),
        ],
      },
    ],
  }

  it('counts its rows by the word before its noun ("number of inspections")', () => {
    expect(runAnalyst(inspections, 'Number of inspections per year').queries.join('\n')).toContain(
      'MEASURE(inspection_reports.count)',
    )
  })
})

describe('the offline analyst on things a value qualifies, broken down', () => {
  it("counts the things the value qualifies by the breakdown, never the breakdown's own things", () => {
    const lost = { search: { ...parcelMeta, values: [{ member: 'parcels.status', value: 'Lost' }], dates: [] } }
    const query = runAnalyst(parcelMeta, 'Lost parcels by sender', lost).queries.join('\n')
    expect(query).toContain('MEASURE(parcels.count)')
    expect(query).toContain('senders.name')
    expect(query).toContain("parcels.status = 'Lost'")
  })
})

describe('the offline analyst on a thing named like an analysis', () => {
  it('reads "which driver" as a thing the model lacks, and "the key drivers of" as the analysis of why', () => {
    const driver = runAnalyst(parcelMeta, 'Which driver delivered the most parcels?')
    expect(driver.queries).toEqual([])
    expect(driver.text).toContain('I could not map "driver')
    expect(runAnalyst(parcelMeta, 'What are the key drivers of postage?').text).toContain('what drives it')
  })
})

describe('the offline analyst on a number some rows leave empty', () => {
  it('reads "no insured value" as empty or zero, never as zero alone', () => {
    const query = runAnalyst(parcelMeta, 'How many parcels have no insured value?').queries.join('\n')
    expect(query).toContain('(parcels.insured_value IS NULL OR parcels.insured_value <= 0)')
  })
})

describe('the offline analyst on the extreme of a measure the model only totals', () => {
  it('declines "the largest postage" rather than answer the total, and ranks it where a breakdown is named', () => {
    const largest = runAnalyst(parcelMeta, 'What was the largest postage?')
    expect(largest.queries).toEqual([])
    expect(largest.text).toContain('the model has no largest single value of total postage')
    expect(runAnalyst(parcelMeta, 'Which origin town has the highest postage?').queries.join('\n')).toContain(
      'parcels.origin_town AS',
    )
    // A follow-up ranks what the thread broke down.
    const lowest = runAnalyst(parcelMeta, ['Which origin town has the highest postage?', 'and the lowest?'])
    expect(lowest.queries.join('\n')).toContain('parcels.origin_town AS')
  })
})

describe('the offline analyst on the extreme of a number column the model only measures over many rows', () => {
  it('declines "the largest discount" rather than rank its yes-or-no flag by revenue, and still ranks a named breakdown', () => {
    for (const question of ['What is the largest discount?', 'What was the highest discount in 2024?']) {
      const largest = runAnalyst(demoMeta, question)
      expect(largest.queries).toEqual([])
      expect(largest.text).toMatch(/the model has no (largest|highest) single value of discount/)
      expect(largest.text).toContain('"Discounts granted by month, highest first"')
    }
    expect(runAnalyst(demoMeta, 'Which region has the largest revenue?').queries.join('\n')).toContain(
      'customers.region AS',
    )
  })
})

describe('the offline analyst on an average "per" a thing', () => {
  it('gives the average for each sender, never the average divided by the number of senders', () => {
    const query = runAnalyst(parcelMeta, 'Average rating per sender').queries.join('\n')
    expect(query).toContain('senders.name AS')
    expect(query).toContain('MEASURE(parcels.average_rating)')
    expect(query).not.toContain('MEASURE(senders.count)')
  })
})

describe('the offline analyst on who did it, named by a value', () => {
  it('reads "paid by senders in Leeds" as a filter on the senders, not a list of them', () => {
    const town = { search: { ...parcelMeta, values: [{ member: 'senders.town', value: 'Leeds' }], dates: [] } }
    const query = runAnalyst(parcelMeta, 'Postage paid by senders in Leeds', town).queries.join('\n')
    expect(query).toContain("senders.town = 'Leeds'")
    expect(query).not.toContain('senders.name AS')
  })
})

describe('the offline analyst on "per" a thing\'s column', () => {
  it('breaks down by the column the word after the thing names, as "by sender town" does', () => {
    const query = runAnalyst(parcelMeta, 'Postage per sender town').queries.join('\n')
    expect(query).toContain('senders.town AS')
    expect(query).not.toContain('senders.name AS')
  })
})

describe('the offline analyst on a model whose rows are drivers', () => {
  const driversMeta = {
    cubes: [
      {
        name: 'drivers',
        title: 'Drivers',
        label: 'full_name',
        joins: [],
        measures: [member('drivers', 'count', 'count', { title: 'Number of drivers' })],
        dimensions: [
          member('drivers', 'id', 'number', { primaryKey: true, title: 'Driver ID' }),
          member('drivers', 'full_name', 'string', { title: 'Driver name' }),
          member('drivers', 'depot', 'string', { title: 'Depot' }),
        ],
      },
    ],
  }
  it('reads "drivers of each depot" as the drivers the model holds, never as the reasons for a figure', () => {
    const answer = runAnalyst(driversMeta, 'How many drivers of each depot?', { data: [['North', '4']] })
    expect(answer.queries.join('\n')).toContain('SELECT drivers.depot AS depot, MEASURE(drivers.count)')
    expect(answer.text).not.toContain('what drives it')
    expect(answer.text).not.toContain('cannot say why')
  })
})

/** A table of visits as `model generate` writes it, with a "Feed date" (and, in `vetMeta(true)`, a fee). */
const vetMeta = (withFee: boolean) => ({
  cubes: [
    {
      name: 'visits',
      title: 'Visits',
      joins: [],
      measures: [
        member('visits', 'count', 'count', { title: 'Number of visits' }),
        ...(withFee
          ? [
              member('visits', 'total_fee', 'sum', { title: 'Total fee', format: 'currency' }),
              member('visits', 'average_fee', 'avg', { title: 'Average fee', format: 'currency' }),
            ]
          : []),
        member('visits', 'total_weight_kg', 'sum', { title: 'Total weight kg' }),
        member('visits', 'average_weight_kg', 'avg', { title: 'Average weight kg' }),
        member('visits', 'largest_weight_kg', 'max', { title: 'Largest weight kg' }),
      ],
      dimensions: [
        member('visits', 'id', 'number', { primaryKey: true, title: 'Visit ID' }),
        member('visits', 'feed_date', 'time', { title: 'Feed date' }),
        ...(withFee ? [member('visits', 'fee', 'number', { title: 'Fee' })] : []),
        member('visits', 'weight_kg', 'number', { title: 'Weight kg' }),
        member('visits', 'animal', 'string', { title: 'Animal' }),
      ],
    },
  ],
})

describe('the offline analyst on a table of visits with a "Feed date"', () => {
  it('hears "fee" of a model without one as a word it cannot map, never as the feed date\'s event', () => {
    for (const question of ['How many visits had a fee?', 'How many visits had fees in 2024?']) {
      const { text, queries } = runAnalyst(vetMeta(false), question)
      expect([question, queries]).toEqual([question, []])
      expect(text).toContain('fee')
    }
  })
})

describe('the offline analyst on a fee and a weight of a few letters', () => {
  it('reads "no fee" as a fee that is empty or zero, and "with a fee" keeps the fee a total asks for', () => {
    const none = runAnalyst(vetMeta(true), 'How many visits had no fee?').queries.join('\n')
    expect(none).toContain('MEASURE(visits.count)')
    expect(none).toContain('(visits.fee IS NULL OR visits.fee <= 0)')
    const total = runAnalyst(vetMeta(true), 'Total fee of visits with a fee').queries.join('\n')
    expect(total).toContain('MEASURE(visits.total_fee)')
    expect(total).toContain('visits.fee > 0')
  })

  it('reads "heaviest" as the largest of a weight, and of nothing else', () => {
    for (const question of ['heaviest weight kg', 'What is the heaviest weight kg?'])
      expect([question, runAnalyst(vetMeta(true), question).queries]).toEqual([
        question,
        ['SELECT MEASURE(visits.largest_weight_kg) AS largest_weight_kg FROM visits'],
      ])
    // ("The largest visit" is its largest fee, the cube's first maximum: "the heaviest visit" is never that.)
    const withLargestFee = vetMeta(true)
    withLargestFee.cubes[0].measures.unshift(
      member('visits', 'largest_fee', 'max', { title: 'Largest fee', format: 'currency' }),
    )
    expect(runAnalyst(withLargestFee, 'What was the heaviest visit?').queries).toEqual([
      'SELECT MEASURE(visits.largest_weight_kg) AS largest_weight_kg FROM visits',
    ])
    // No largest fee, and no smallest weight: declined, never the total or the largest weight.
    for (const question of ['What was the heaviest fee?', 'lightest weight kg'])
      expect([question, runAnalyst(vetMeta(true), question).queries]).toEqual([question, []])
  })
})

describe("the offline analyst on a table's description", () => {
  it('never passes over a state the description names: "cancelled visits" are not all of them', () => {
    const described = vetMeta(true)
    Object.assign(described.cubes[0], { description: 'Visits to the clinic, including cancelled ones' })
    expect(runAnalyst(described, 'How many cancelled visits?').queries).toEqual([])
    expect(runAnalyst(described, 'How many cancelled visits?').text).toContain('cancelled')
    // Its other words still describe the rows.
    expect(runAnalyst(described, 'How many visits to the clinic?').queries).toEqual([
      'SELECT MEASURE(visits.count) AS count FROM visits',
    ])
  })
})
