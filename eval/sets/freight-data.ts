import type { SampleTable } from '../samples'

/**
 * A made-up freight forwarder, in words none of the other sets use: carriers (road, sea, air), the client companies
 * that book with them, and shipments with a weight, a freight cost, an origin and a destination city, a status, a
 * priority, shipped and delivered dates over 2023 to 2025 (no delivery date while in transit or lost, no declared
 * value for some), a tracking code. Table and column names in capitals (`Shipments.WeightKg`), so a model must quote
 * them. Deterministic: the same rows at every run, written into each source by `samples.ts`.
 */
export function freightTables(): SampleTable[] {
  let seed = 7_340_021
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]
  const day = (from: number, days: number) => new Date(from + days * 86_400_000).toISOString().slice(0, 10)

  const carriers: SampleTable = {
    name: 'Carriers',
    columns: [
      { name: 'CarrierId', type: 'integer', notNull: true },
      { name: 'CarrierName', type: 'varchar(60)', notNull: true },
      { name: 'Mode', type: 'varchar(10)', notNull: true },
      { name: 'HomeCountry', type: 'varchar(40)', notNull: true },
    ],
    primaryKey: ['CarrierId'],
    foreignKeys: [],
    rows: [
      ['1', 'Northline Freight', 'Road', 'Germany'],
      ['2', 'BlueWave Shipping', 'Sea', 'Netherlands'],
      ['3', 'SkyBridge Air', 'Air', 'Ireland'],
      ['4', 'Kestrel Express', 'Air', 'Belgium'],
      ['5', 'Granite Haulage', 'Road', 'Poland'],
      ['6', 'Tidewater Lines', 'Sea', 'Portugal'],
    ],
  }

  const INDUSTRIES = ['Pharma', 'Retail', 'Automotive', 'Electronics', 'Food']
  const CITIES = ['Rotterdam', 'Hamburg', 'Antwerp', 'Lyon', 'Milan', 'Gdansk', 'Valencia', 'Porto']
  const FIRMS = [
    'Alder',
    'Birchwood',
    'Cobalt',
    'Dunmore',
    'Elmstead',
    'Fenwick',
    'Glenrock',
    'Harlow',
    'Ironbridge',
    'Juniper',
    'Kingsley',
    'Larkspur',
    'Marlowe',
    'Northgate',
    'Oakridge',
    'Pemberton',
    'Quarry',
    'Redfern',
    'Stanmore',
    'Thornbury',
    'Upton',
    'Verity',
    'Westbrook',
    'Yardley',
    'Zephyr',
    'Ashcombe',
    'Bramley',
    'Carrow',
    'Dovecote',
    'Everly',
  ]
  const SUFFIXES = ['Ltd', 'GmbH', 'BV', 'SA', 'AG']
  const clients: SampleTable = {
    name: 'Clients',
    columns: [
      { name: 'ClientId', type: 'integer', notNull: true },
      { name: 'CompanyName', type: 'varchar(80)', notNull: true },
      { name: 'Industry', type: 'varchar(30)', notNull: true },
      { name: 'City', type: 'varchar(40)', notNull: true },
      { name: 'AccountManager', type: 'varchar(40)', notNull: false },
    ],
    primaryKey: ['ClientId'],
    foreignKeys: [],
    rows: FIRMS.map((firm, at) => [
      String(at + 1),
      `${firm} ${pick(SUFFIXES)}`,
      pick(INDUSTRIES),
      pick(CITIES),
      random() < 0.2 ? null : pick(['Ines Duarte', 'Pieter de Vries', 'Ola Nowak', 'Marco Bianchi']),
    ]),
  }

  const shipments: SampleTable = {
    name: 'Shipments',
    columns: [
      { name: 'ShipmentId', type: 'integer', notNull: true },
      { name: 'TrackingCode', type: 'varchar(12)', notNull: true },
      { name: 'ClientId', type: 'integer', notNull: true },
      { name: 'CarrierId', type: 'integer', notNull: true },
      { name: 'OriginCity', type: 'varchar(40)', notNull: true },
      { name: 'DestinationCity', type: 'varchar(40)', notNull: true },
      { name: 'WeightKg', type: 'numeric(10,2)', notNull: true },
      { name: 'Pieces', type: 'integer', notNull: true },
      { name: 'FreightCost', type: 'numeric(10,2)', notNull: true },
      { name: 'DeclaredValue', type: 'numeric(12,2)', notNull: false },
      { name: 'Status', type: 'varchar(12)', notNull: true },
      { name: 'Priority', type: 'varchar(10)', notNull: true },
      { name: 'ShippedOn', type: 'date', notNull: true },
      { name: 'DeliveredOn', type: 'date', notNull: false },
    ],
    primaryKey: ['ShipmentId'],
    foreignKeys: [
      { columns: ['ClientId'], table: 'Clients', references: ['ClientId'] },
      { columns: ['CarrierId'], table: 'Carriers', references: ['CarrierId'] },
    ],
    rows: [],
  }
  const STATUSES = ['Delivered', 'Delivered', 'Delivered', 'Delivered', 'Delivered', 'Delivered', 'Returned', 'Lost']
  const PRIORITIES = ['Standard', 'Standard', 'Standard', 'Express', 'Express', 'Overnight']
  const start = Date.UTC(2023, 0, 1)
  const SPAN = 1_095 // 2023 to 2025
  for (let id = 1; id <= 640; id++) {
    const carrier = 1 + Math.floor(random() * carriers.rows.length)
    const mode = carriers.rows[carrier - 1][2]
    const origin = pick(CITIES)
    let destination = pick(CITIES)
    while (destination === origin) destination = pick(CITIES)
    const shippedDay = Math.floor(random() * SPAN)
    const weight = Math.round((mode === 'Air' ? 5 + random() * 400 : 100 + random() * 9_000) * 100) / 100
    const priority = mode === 'Sea' ? 'Standard' : pick(PRIORITIES)
    const rate = mode === 'Air' ? 4.2 : mode === 'Sea' ? 0.12 : 0.35
    const cost =
      Math.round((40 + weight * rate * (priority === 'Overnight' ? 1.8 : priority === 'Express' ? 1.3 : 1)) * 100) / 100
    // The last weeks' shipments are still on their way.
    const status = shippedDay > SPAN - 20 ? 'In transit' : pick(STATUSES)
    const transit =
      mode === 'Air'
        ? 1 + Math.floor(random() * 3)
        : mode === 'Sea'
          ? 8 + Math.floor(random() * 20)
          : 2 + Math.floor(random() * 6)
    shipments.rows.push([
      String(id),
      `TRK-${String(10_000 + Math.floor(random() * 89_999))}`,
      String(1 + Math.floor(random() * clients.rows.length)),
      String(carrier),
      origin,
      destination,
      weight.toFixed(2),
      String(1 + Math.floor(random() * 24)),
      cost.toFixed(2),
      random() < 0.15 ? null : (Math.round(weight * (20 + random() * 200)) / 1).toFixed(2),
      status,
      priority,
      day(start, shippedDay),
      status === 'Delivered' || status === 'Returned' ? day(start, shippedDay + transit) : null,
    ])
  }
  return [carriers, clients, shipments]
}
