import { fullName, month, year, type EvalQuestion } from './types'

// Northwind: a food wholesaler's orders (1996-07 to 1998-05), order lines with unit price, quantity and a fractional
// discount, products in categories from suppliers, customers (companies), employees who report to a manager,
// shippers. Everyday questions a sales manager asks, with the truth on the source's own tables.

const REVENUE = 'SUM(od.unit_price * od.quantity * (1 - od.discount))'
const LINES = 'FROM order_details od JOIN orders o ON o.order_id = od.order_id'

export const northwind: EvalQuestion[] = [
  { ask: 'What is our total revenue?', sql: `SELECT ${REVENUE} FROM order_details od` },
  {
    ask: 'Revenue by country',
    sql: `SELECT c.country, ${REVENUE} ${LINES} JOIN customers c ON c.customer_id = o.customer_id GROUP BY 1`,
  },
  {
    ask: 'Top 5 customers by sales',
    sql: `SELECT c.company_name, ${REVENUE} ${LINES} JOIN customers c ON c.customer_id = o.customer_id GROUP BY c.customer_id, c.company_name ORDER BY 2 DESC LIMIT 5`,
  },
  {
    ask: 'Which category sells best?',
    sql: `SELECT ca.category_name, ${REVENUE} FROM order_details od JOIN products p ON p.product_id = od.product_id JOIN categories ca ON ca.category_id = p.category_id GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    first: true,
  },
  {
    ask: 'Revenue by category',
    sql: `SELECT ca.category_name, ${REVENUE} FROM order_details od JOIN products p ON p.product_id = od.product_id JOIN categories ca ON ca.category_id = p.category_id GROUP BY 1`,
  },
  {
    ask: 'How many orders were placed in 1997?',
    sql: `SELECT COUNT(*) FROM orders WHERE order_date >= '1997-01-01' AND order_date < '1998-01-01'`,
    cells: ['count'],
  },
  { ask: 'How many orders do we have?', sql: 'SELECT COUNT(*) FROM orders', cells: ['count'] },
  {
    ask: 'Orders per employee',
    sql: (kind) =>
      `SELECT ${fullName(kind, 'e.first_name', 'e.last_name')}, COUNT(*) FROM orders o JOIN employees e ON e.employee_id = o.employee_id GROUP BY e.employee_id, e.first_name, e.last_name`,
    cells: ['text', 'count'],
  },
  {
    // "per X", X a thing with names: a row for each; "on average" / "average per": one mean.
    ask: 'Orders per customer',
    sql: 'SELECT c.company_name, COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id GROUP BY c.customer_id, c.company_name',
    cells: ['text', 'count'],
  },
  {
    ask: 'Average number of orders per employee',
    sql: 'SELECT 1.0 * COUNT(*) / COUNT(DISTINCT employee_id) FROM orders',
    cells: ['num'],
  },
  {
    ask: 'How many orders does a customer place on average?',
    sql: 'SELECT 1.0 * COUNT(*) / COUNT(DISTINCT customer_id) FROM orders',
    cells: ['num'],
  },
  {
    ask: 'Which employee brought in the most revenue?',
    sql: (kind) =>
      `SELECT ${fullName(kind, 'e.first_name', 'e.last_name')}, ${REVENUE} ${LINES} JOIN employees e ON e.employee_id = o.employee_id GROUP BY e.employee_id, e.first_name, e.last_name ORDER BY 2 DESC LIMIT 1`,
    first: true,
  },
  { ask: 'How many customers do we have?', sql: 'SELECT COUNT(*) FROM customers', cells: ['count'] },
  {
    ask: 'How many customers are in Germany?',
    sql: `SELECT COUNT(*) FROM customers WHERE country = 'Germany'`,
    cells: ['count'],
  },
  {
    ask: 'Top 10 products by revenue',
    sql: `SELECT p.product_name, ${REVENUE} FROM order_details od JOIN products p ON p.product_id = od.product_id GROUP BY p.product_id, p.product_name ORDER BY 2 DESC LIMIT 10`,
  },
  {
    ask: 'Units sold by category',
    sql: `SELECT ca.category_name, SUM(od.quantity) FROM order_details od JOIN products p ON p.product_id = od.product_id JOIN categories ca ON ca.category_id = p.category_id GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    ask: 'Revenue by year',
    sql: (kind) => `SELECT ${year(kind, 'o.order_date')}, ${REVENUE} ${LINES} GROUP BY 1`,
  },
  {
    ask: 'Monthly revenue in 1997',
    sql: (kind) =>
      `SELECT ${month(kind, 'o.order_date')}, ${REVENUE} ${LINES} WHERE o.order_date >= '1997-01-01' AND o.order_date < '1998-01-01' GROUP BY 1`,
  },
  {
    ask: 'Which shipper handled the most orders?',
    sql: 'SELECT s.company_name, COUNT(*) FROM orders o JOIN shippers s ON s.shipper_id = o.ship_via GROUP BY 1 ORDER BY 2 DESC LIMIT 1',
    cells: ['text', 'count'],
    first: true,
  },
  { ask: 'What is the average freight per order?', sql: 'SELECT AVG(freight) FROM orders', cells: ['num'] },
  {
    ask: 'Total freight by shipper',
    sql: 'SELECT s.company_name, SUM(o.freight) FROM orders o JOIN shippers s ON s.shipper_id = o.ship_via GROUP BY 1',
  },
  {
    ask: 'How many products are in each category?',
    sql: 'SELECT ca.category_name, COUNT(*) FROM products p JOIN categories ca ON ca.category_id = p.category_id GROUP BY 1',
    cells: ['text', 'count'],
  },
  {
    ask: 'Revenue by supplier country',
    sql: `SELECT s.country, ${REVENUE} FROM order_details od JOIN products p ON p.product_id = od.product_id JOIN suppliers s ON s.supplier_id = p.supplier_id GROUP BY 1`,
  },
  {
    ask: 'How many orders came from customers in France?',
    sql: `SELECT COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.country = 'France'`,
    cells: ['count'],
  },
  {
    ask: 'What is the average unit price of our products?',
    sql: 'SELECT AVG(unit_price) FROM products',
    cells: ['num'],
  },
  {
    ask: 'Number of orders by customer country',
    sql: 'SELECT c.country, COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id GROUP BY 1',
    cells: ['text', 'count'],
  },
  { ask: 'How many employees are there?', sql: 'SELECT COUNT(*) FROM employees', cells: ['count'] },
  {
    ask: 'What is the average order value?',
    sql: `SELECT ${REVENUE} / COUNT(DISTINCT od.order_id) FROM order_details od`,
    cells: ['num'],
  },
  {
    ask: 'How many orders have not been shipped?',
    sql: 'SELECT COUNT(*) FROM orders WHERE shipped_date IS NULL',
    cells: ['count'],
  },
  {
    ask: 'Which customers have never placed an order?',
    sql: 'SELECT company_name FROM customers WHERE customer_id NOT IN (SELECT customer_id FROM orders WHERE customer_id IS NOT NULL)',
    cells: ['text'],
  },
  {
    ask: 'Revenue by product category in 1998',
    sql: `SELECT ca.category_name, ${REVENUE} ${LINES} JOIN products p ON p.product_id = od.product_id JOIN categories ca ON ca.category_id = p.category_id WHERE o.order_date >= '1998-01-01' AND o.order_date < '1999-01-01' GROUP BY 1`,
  },
  {
    ask: 'How many units of Chai did we sell?',
    sql: `SELECT SUM(od.quantity) FROM order_details od JOIN products p ON p.product_id = od.product_id WHERE p.product_name = 'Chai'`,
    cells: ['count'],
  },
]
