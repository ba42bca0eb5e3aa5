/** A meta result shaped like `serviceMeta`'s, for the demo model (main branch), to test the analyst in isolation. */
const m = (cube: string, name: string, type: string, title?: string, format?: string) => ({
  name: `${cube}.${name}`,
  type,
  title,
  format,
})
const d = (cube: string, name: string, type: string, title?: string, primaryKey = false) => ({
  name: `${cube}.${name}`,
  type,
  title,
  primaryKey,
})

export const demoMeta = {
  cubes: [
    {
      name: 'orders',
      title: 'Orders',
      joins: [
        { name: 'customers', relationship: 'many_to_one' },
        { name: 'line_items', relationship: 'one_to_many' },
      ],
      measures: [
        m('orders', 'count', 'count', 'Number of orders'),
        m('orders', 'total_amount', 'sum', 'Revenue', 'currency'),
        m('orders', 'average_amount', 'avg', 'Average order value', 'currency'),
        m('orders', 'min_amount', 'min', 'Smallest order', 'currency'),
        m('orders', 'max_amount', 'max', 'Largest order', 'currency'),
        m('orders', 'total_discount', 'sum', 'Discounts granted', 'currency'),
        m('orders', 'customer_count', 'count_distinct', 'Ordering customers'),
        m('orders', 'completed_count', 'count', 'Completed orders'),
      ],
      dimensions: [
        d('orders', 'id', 'number', 'Order id', true),
        d('orders', 'status', 'string', 'Status'),
        d('orders', 'created_at', 'time', 'Order date'),
        d('orders', 'amount', 'number', 'Order amount'),
        d('orders', 'discount', 'number', 'Discount'),
        d('orders', 'has_discount', 'boolean', 'Has discount'),
        d('orders', 'customer_id', 'number', 'Customer id'),
      ],
    },
    {
      name: 'line_items',
      title: 'Line items',
      joins: [
        { name: 'orders', relationship: 'many_to_one' },
        { name: 'products', relationship: 'many_to_one' },
      ],
      measures: [
        m('line_items', 'count', 'count', 'Number of line items'),
        m('line_items', 'total_quantity', 'sum', 'Units sold'),
        m('line_items', 'total_revenue', 'sum', 'Product revenue', 'currency'),
        m('line_items', 'average_unit_price', 'avg', 'Average unit price', 'currency'),
      ],
      dimensions: [
        d('line_items', 'id', 'number', 'Id', true),
        d('line_items', 'quantity', 'number', 'Quantity'),
        d('line_items', 'unit_price', 'number', 'Unit price'),
      ],
    },
    {
      name: 'customers',
      title: 'Customers',
      joins: [],
      measures: [
        m('customers', 'count', 'count', 'Number of customers'),
        m('customers', 'vip_count', 'count', 'VIP customers'),
      ],
      dimensions: [
        d('customers', 'id', 'number', 'Customer id', true),
        d('customers', 'name', 'string', 'Name'),
        d('customers', 'region', 'string', 'Region'),
        d('customers', 'city', 'string', 'City'),
        d('customers', 'segment', 'string', 'Segment'),
        d('customers', 'is_vip', 'boolean', 'VIP'),
        d('customers', 'created_at', 'time', 'Signup date'),
      ],
    },
    {
      name: 'products',
      title: 'Products',
      joins: [],
      measures: [
        m('products', 'count', 'count', 'Number of products'),
        m('products', 'average_price', 'avg', 'Average price', 'currency'),
      ],
      dimensions: [
        d('products', 'id', 'number', 'Id', true),
        d('products', 'name', 'string', 'Name'),
        d('products', 'category', 'string', 'Category'),
        d('products', 'price', 'number', 'Price'),
      ],
    },
  ],
}
