import type { SourceKind } from '../samples'
import { month, year, type EvalQuestion } from './types'

// A made-up freight forwarder (`freight-data.ts`): carriers, client companies and shipments with a weight, a freight
// cost, an origin and a destination city, a status, a priority, shipped and delivered dates over 2023 to 2025.
// Names in capitals, so the truth quotes them as each dialect does.

/** A table or column name quoted for the dialect (the names are in capitals). */
const q = (kind: SourceKind, name: string) => (kind === 'mariadb' ? `\`${name}\`` : `"${name}"`)

/** Truth SQL written with `[Name]` for every quoted name. */
const sql =
  (text: string) =>
  (kind: SourceKind): string =>
    text.replace(/\[(\w+)\]/g, (_, name: string) => q(kind, name))
/** Truth SQL with the dialect's year or month of `s.ShippedOn` where `{year}` or `{month}` stands. */
const dated =
  (text: string) =>
  (kind: SourceKind): string =>
    sql(text)(kind)
      .replace(/\{year\}/g, year(kind, `s.${q(kind, 'ShippedOn')}`))
      .replace(/\{month\}/g, month(kind, `s.${q(kind, 'ShippedOn')}`))

const S = 'FROM [Shipments] s'
const SC = 'FROM [Shipments] s JOIN [Carriers] c ON c.[CarrierId] = s.[CarrierId]'
const SL = 'FROM [Shipments] s JOIN [Clients] l ON l.[ClientId] = s.[ClientId]'
const IN = (from: number, to = from) => `s.[ShippedOn] >= '${from}-01-01' AND s.[ShippedOn] < '${to + 1}-01-01'`

export const freight: EvalQuestion[] = [
  { ask: 'What is the total freight cost?', sql: sql(`SELECT SUM(s.[FreightCost]) ${S}`) },
  { ask: 'How many shipments are there?', sql: sql(`SELECT COUNT(*) ${S}`), cells: ['count'] },
  { ask: 'Average freight cost per shipment', sql: sql(`SELECT AVG(s.[FreightCost]) ${S}`) },
  { ask: 'Freight cost by carrier', sql: sql(`SELECT c.[CarrierName], SUM(s.[FreightCost]) ${SC} GROUP BY 1`) },
  {
    ask: 'Number of shipments by carrier',
    sql: sql(`SELECT c.[CarrierName], COUNT(*) ${SC} GROUP BY 1`),
    cells: ['text', 'count'],
  },
  { ask: 'Shipments by status', sql: sql(`SELECT s.[Status], COUNT(*) ${S} GROUP BY 1`), cells: ['text', 'count'] },
  {
    ask: 'How many shipments were lost?',
    sql: sql(`SELECT COUNT(*) ${S} WHERE s.[Status] = 'Lost'`),
    cells: ['count'],
  },
  { ask: 'Total freight cost in 2024', sql: sql(`SELECT SUM(s.[FreightCost]) ${S} WHERE ${IN(2024)}`) },
  {
    ask: 'Number of shipments per month in 2025',
    sql: dated(`SELECT {month}, COUNT(*) ${S} WHERE ${IN(2025)} GROUP BY 1`),
    cells: ['text', 'count'],
  },
  {
    ask: 'Top 5 clients by freight cost',
    sql: sql(
      `SELECT l.[CompanyName], SUM(s.[FreightCost]) ${SL} GROUP BY l.[ClientId], l.[CompanyName] ORDER BY 2 DESC LIMIT 5`,
    ),
  },
  {
    ask: 'Which carrier handled the most shipments?',
    sql: sql(`SELECT c.[CarrierName], COUNT(*) ${SC} GROUP BY 1 ORDER BY 2 DESC LIMIT 1`),
    cells: ['text', 'count'],
    first: true,
  },
  { ask: 'What is the average weight of a shipment?', sql: sql(`SELECT AVG(s.[WeightKg]) ${S}`), cells: ['num'] },
  { ask: 'Total weight shipped', sql: sql(`SELECT SUM(s.[WeightKg]) ${S}`), cells: ['num'] },
  {
    ask: 'Average weight by carrier mode',
    sql: sql(`SELECT c.[Mode], AVG(s.[WeightKg]) ${SC} GROUP BY 1`),
    cells: ['text', 'num'],
  },
  { ask: 'Freight cost by origin city', sql: sql(`SELECT s.[OriginCity], SUM(s.[FreightCost]) ${S} GROUP BY 1`) },
  {
    ask: 'Shipments by destination city',
    sql: sql(`SELECT s.[DestinationCity], COUNT(*) ${S} GROUP BY 1`),
    cells: ['text', 'count'],
  },
  {
    ask: 'How many different clients shipped in 2024?',
    sql: sql(`SELECT COUNT(DISTINCT s.[ClientId]) ${S} WHERE ${IN(2024)}`),
    cells: ['count'],
  },
  { ask: 'How many clients do we have?', sql: sql(`SELECT COUNT(*) FROM [Clients]`), cells: ['count'] },
  {
    ask: 'Clients by industry',
    sql: sql(`SELECT [Industry], COUNT(*) FROM [Clients] GROUP BY 1`),
    cells: ['text', 'count'],
  },
  { ask: 'Freight cost by industry', sql: sql(`SELECT l.[Industry], SUM(s.[FreightCost]) ${SL} GROUP BY 1`) },
  {
    ask: 'How many express shipments?',
    sql: sql(`SELECT COUNT(*) ${S} WHERE s.[Priority] = 'Express'`),
    cells: ['count'],
  },
  {
    ask: 'Freight cost of overnight shipments',
    sql: sql(`SELECT SUM(s.[FreightCost]) ${S} WHERE s.[Priority] = 'Overnight'`),
  },
  {
    ask: 'Freight cost 2023 vs 2024',
    sql: dated(`SELECT {year}, SUM(s.[FreightCost]) ${S} WHERE ${IN(2023, 2024)} GROUP BY 1`),
  },
  {
    // A city is an origin, a destination and a client's city: "left from" says which, as a person reads it.
    ask: 'How many shipments left from Rotterdam?',
    sql: sql(`SELECT COUNT(*) ${S} WHERE s.[OriginCity] = 'Rotterdam'`),
    cells: ['count'],
  },
  {
    ask: 'Freight cost of shipments to Hamburg',
    sql: sql(`SELECT SUM(s.[FreightCost]) ${S} WHERE s.[DestinationCity] = 'Hamburg'`),
  },
  {
    ask: 'Number of shipments for clients in Lyon',
    sql: sql(`SELECT COUNT(*) ${SL} WHERE l.[City] = 'Lyon'`),
    cells: ['count'],
  },
  // No word says which of the shipments' two cities: asked back, never one picked.
  { ask: 'Freight cost for Antwerp' },
  { ask: 'What was the heaviest shipment weight?', sql: sql(`SELECT MAX(s.[WeightKg]) ${S}`), cells: ['num'] },
  { ask: 'Total pieces shipped', sql: sql(`SELECT SUM(s.[Pieces]) ${S}`), cells: ['count'] },
  {
    ask: 'Which industry ships the most weight?',
    sql: sql(`SELECT l.[Industry], SUM(s.[WeightKg]) ${SL} GROUP BY 1 ORDER BY 2 DESC LIMIT 1`),
    cells: ['text', 'num'],
    first: true,
  },
  { ask: 'Average pieces per shipment', sql: sql(`SELECT AVG(s.[Pieces]) ${S}`), cells: ['num'] },
  // Some shipments declare no value: the average is of those that do.
  { ask: 'Average declared value', sql: sql(`SELECT AVG(s.[DeclaredValue]) ${S}`), cells: ['num'] },
  { ask: 'freigth cost by carier', sql: sql(`SELECT c.[CarrierName], SUM(s.[FreightCost]) ${SC} GROUP BY 1`) },
  {
    ask: 'how many shipmnets in march 2024',
    sql: sql(`SELECT COUNT(*) ${S} WHERE s.[ShippedOn] >= '2024-03-01' AND s.[ShippedOn] < '2024-04-01'`),
    cells: ['count'],
  },
  { ask: 'Freight cost by priority', sql: sql(`SELECT s.[Priority], SUM(s.[FreightCost]) ${S} GROUP BY 1`) },
  { ask: 'Average freight cost by carrier', sql: sql(`SELECT c.[CarrierName], AVG(s.[FreightCost]) ${SC} GROUP BY 1`) },
  {
    ask: 'Top 3 destination cities by number of shipments',
    sql: sql(`SELECT s.[DestinationCity], COUNT(*) ${S} GROUP BY 1 ORDER BY 2 DESC LIMIT 3`),
    cells: ['text', 'count'],
  },
  {
    ask: 'Which client paid the most freight?',
    sql: sql(
      `SELECT l.[CompanyName], SUM(s.[FreightCost]) ${SL} GROUP BY l.[ClientId], l.[CompanyName] ORDER BY 2 DESC LIMIT 1`,
    ),
    first: true,
  },
  {
    ask: 'Number of shipments by Kestrel Express',
    sql: sql(`SELECT COUNT(*) ${SC} WHERE c.[CarrierName] = 'Kestrel Express'`),
    cells: ['count'],
  },
  {
    ask: 'Freight cost for Alder AG',
    sql: sql(`SELECT SUM(s.[FreightCost]) ${SL} WHERE l.[CompanyName] = 'Alder AG'`),
  },
  {
    ask: 'Number of delivered shipments',
    sql: sql(`SELECT COUNT(*) ${S} WHERE s.[Status] = 'Delivered'`),
    cells: ['count'],
  },
  {
    ask: 'How many shipments were delivered in 2024?',
    sql: sql(`SELECT COUNT(*) ${S} WHERE s.[DeliveredOn] >= '2024-01-01' AND s.[DeliveredOn] < '2025-01-01'`),
    cells: ['count'],
  },
  { ask: 'Freight cost by year', sql: dated(`SELECT {year}, SUM(s.[FreightCost]) ${S} GROUP BY 1`) },
  {
    ask: 'Shipments by carrier in 2023',
    sql: sql(`SELECT c.[CarrierName], COUNT(*) ${SC} WHERE ${IN(2023)} GROUP BY 1`),
    cells: ['text', 'count'],
  },
  {
    ask: 'Freight cost per client industry in 2025',
    sql: sql(`SELECT l.[Industry], SUM(s.[FreightCost]) ${SL} WHERE ${IN(2025)} GROUP BY 1`),
  },
  {
    ask: 'How many air carriers are there?',
    sql: sql(`SELECT COUNT(*) FROM [Carriers] WHERE [Mode] = 'Air'`),
    cells: ['count'],
  },
  {
    ask: 'Shipments by priority for BlueWave Shipping',
    sql: sql(`SELECT s.[Priority], COUNT(*) ${SC} WHERE c.[CarrierName] = 'BlueWave Shipping' GROUP BY 1`),
    cells: ['text', 'count'],
  },
  { ask: 'What is the average delivery time in days?' },
  { ask: 'What is our profit margin?' },
  { ask: 'How many drivers do we employ?' },
  { ask: 'Fuel consumption by truck' },
  { ask: 'What is the customer satisfaction score?' },
  { ask: 'Number of warehouses per country' },
]
