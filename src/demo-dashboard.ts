import type { Db, Tables } from '../db/client'
import { dashboardChecksum } from '../plugins/management/dashboards/dashboards'
import type { DashboardWidget } from '../plugins/management/model'

/** The demo dashboard's fixed public id, so the README and the front door can link to it. */
export const DEMO_DASHBOARD_PUBLIC_ID = 'pd_demo_sales_overview'

const DEMO_WIDGETS: DashboardWidget[] = [
  { id: 'revenue', kind: 'number', title: 'Revenue', query: 'SELECT MEASURE(orders.total_amount) FROM orders' },
  { id: 'orders', kind: 'number', title: 'Orders', query: 'SELECT MEASURE(orders.count) FROM orders' },
  {
    id: 'status',
    kind: 'bar',
    title: 'Revenue by status',
    query: 'SELECT orders.status, MEASURE(orders.total_amount) FROM orders GROUP BY 1 ORDER BY 2 DESC',
  },
  {
    id: 'monthly',
    kind: 'line',
    title: 'Revenue by month',
    query:
      "SELECT DATE_TRUNC('month', orders.created_at), MEASURE(orders.total_amount) FROM orders GROUP BY 1 ORDER BY 1",
  },
  {
    id: 'regions',
    kind: 'table',
    title: 'Orders by region',
    query:
      'SELECT customers.region, MEASURE(orders.count), MEASURE(orders.total_amount) FROM orders GROUP BY 1 ORDER BY 3 DESC',
  },
]

/**
 * Seeds the demo deployment with a published "Sales overview" dashboard, so a new user has something to open in
 * the embed preview right away. Applied with the demo bootstrap, in its transaction, into an empty database only.
 */
export async function seedDemoDashboard(tx: Db, tables: Tables, deploymentId: number, now: number): Promise<void> {
  const { dashboards, workbooks } = tables
  const [workbook] = await tx
    .insert(workbooks)
    .values({
      deploymentId,
      name: 'Sales overview',
      slug: 'sales-overview',
      shared: true,
      createdAt: now,
      updatedAt: now,
    })
    .returning({ id: workbooks.id })
  const content = {
    name: 'Sales overview',
    published: true,
    widgets: DEMO_WIDGETS,
    filters: [],
    timeGrains: [],
    aiWidgetThreads: [],
    restrictDataDownload: false,
    useBoardDashboards: false,
  }
  await tx.insert(dashboards).values({
    deploymentId,
    workbookId: workbook.id,
    ...content,
    publicId: DEMO_DASHBOARD_PUBLIC_ID,
    checksum: dashboardChecksum(content),
    createdAt: now,
    updatedAt: now,
  })
}
