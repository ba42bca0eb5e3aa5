import { fullName, month, type EvalQuestion } from './types'

// Pagila (Sakila): a DVD rental chain's films (with categories and actors through bridge tables), copies in two
// stores, rentals (2005-05 to 2006-02) and payments (2006-11 to 2007-10), customers in cities and countries, staff.
// Everyday questions a store manager asks, with the truth on the source's own tables.

const RENTED_FILMS =
  'FROM rental r JOIN inventory i ON i.inventory_id = r.inventory_id JOIN film f ON f.film_id = i.film_id'
const CUSTOMER_COUNTRY =
  'JOIN customer c ON c.customer_id = p.customer_id JOIN address a ON a.address_id = c.address_id JOIN city ci ON ci.city_id = a.city_id JOIN country co ON co.country_id = ci.country_id'

export const pagila: EvalQuestion[] = [
  { ask: 'What is our total revenue?', sql: 'SELECT SUM(amount) FROM payment' },
  {
    ask: 'Revenue by month',
    sql: (kind) => `SELECT ${month(kind, 'payment_date')}, SUM(amount) FROM payment GROUP BY 1`,
  },
  {
    ask: 'Top 5 customers by total payments',
    sql: (kind) =>
      `SELECT ${fullName(kind, 'c.first_name', 'c.last_name')}, SUM(p.amount) FROM payment p JOIN customer c ON c.customer_id = p.customer_id GROUP BY c.customer_id, c.first_name, c.last_name ORDER BY 2 DESC LIMIT 5`,
  },
  {
    ask: 'Revenue by staff member',
    sql: (kind) =>
      `SELECT ${fullName(kind, 's.first_name', 's.last_name')}, SUM(p.amount) FROM payment p JOIN staff s ON s.staff_id = p.staff_id GROUP BY s.staff_id, s.first_name, s.last_name`,
  },
  {
    // More customers than an answer lists (599): it says it shows the first 100 of them.
    ask: 'Rentals per customer',
    sql: (kind) =>
      `SELECT ${fullName(kind, 'c.first_name', 'c.last_name')}, COUNT(*) FROM rental r JOIN customer c ON c.customer_id = r.customer_id GROUP BY c.customer_id, c.first_name, c.last_name`,
    cells: ['text', 'count'],
  },
  {
    ask: 'Average payment per customer',
    sql: 'SELECT SUM(amount) / COUNT(DISTINCT customer_id) FROM payment',
  },
  {
    ask: 'How many rentals per month?',
    sql: (kind) => `SELECT ${month(kind, 'rental_date')}, COUNT(*) FROM rental GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    ask: 'Which film was rented the most?',
    sql: `SELECT f.title, COUNT(*) ${RENTED_FILMS} GROUP BY f.film_id, f.title ORDER BY 2 DESC, 1 LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    ask: 'Top 10 films by number of rentals',
    sql: `SELECT f.title, COUNT(*) ${RENTED_FILMS} GROUP BY f.film_id, f.title ORDER BY 2 DESC, 1 LIMIT 10`,
    cells: ['text', 'count'],
  },
  {
    ask: 'Rentals by film category',
    sql: `SELECT ca.name, COUNT(*) ${RENTED_FILMS} JOIN film_category fc ON fc.film_id = f.film_id JOIN category ca ON ca.category_id = fc.category_id GROUP BY 1`,
    cells: ['text', 'count'],
  },
  { ask: 'How many films do we have?', sql: 'SELECT COUNT(*) FROM film', cells: ['count'] },
  {
    ask: 'How many films per rating?',
    sql: 'SELECT rating, COUNT(*) FROM film GROUP BY 1',
    cells: ['text', 'count'],
  },
  { ask: 'What is the average film length?', sql: 'SELECT AVG(length) FROM film', cells: ['num'] },
  { ask: 'What is the average rental rate?', sql: 'SELECT AVG(rental_rate) FROM film', cells: ['num'] },
  {
    ask: 'Number of customers by country',
    sql: 'SELECT co.country, COUNT(*) FROM customer c JOIN address a ON a.address_id = c.address_id JOIN city ci ON ci.city_id = a.city_id JOIN country co ON co.country_id = ci.country_id GROUP BY 1',
    cells: ['text', 'count'],
  },
  {
    ask: 'Top 5 countries by revenue',
    sql: `SELECT co.country, SUM(p.amount) FROM payment p ${CUSTOMER_COUNTRY} GROUP BY 1 ORDER BY 2 DESC LIMIT 5`,
  },
  { ask: 'How many actors are there?', sql: 'SELECT COUNT(*) FROM actor', cells: ['count'] },
  {
    ask: 'How many films are in each category?',
    sql: 'SELECT ca.name, COUNT(*) FROM film_category fc JOIN category ca ON ca.category_id = fc.category_id GROUP BY 1',
    cells: ['text', 'count'],
  },
  {
    ask: 'Which actor appears in the most films?',
    sql: (kind) =>
      `SELECT ${fullName(kind, 'a.first_name', 'a.last_name')}, COUNT(*) FROM film_actor fa JOIN actor a ON a.actor_id = fa.actor_id GROUP BY a.actor_id, a.first_name, a.last_name ORDER BY 2 DESC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  { ask: 'What is the average payment amount?', sql: 'SELECT AVG(amount) FROM payment', cells: ['num'] },
  {
    ask: 'How many films are longer than 3 hours?',
    sql: 'SELECT COUNT(*) FROM film WHERE length > 180',
    cells: ['count'],
  },
  {
    ask: 'Number of rentals by store',
    sql: `SELECT i.store_id, COUNT(*) FROM rental r JOIN inventory i ON i.inventory_id = r.inventory_id GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    ask: 'How many customers does each store have?',
    sql: 'SELECT store_id, COUNT(*) FROM customer GROUP BY 1',
    cells: ['text', 'count'],
  },
  {
    ask: 'How many rentals were never returned?',
    sql: 'SELECT COUNT(*) FROM rental WHERE return_date IS NULL',
    cells: ['count'],
  },
  {
    ask: 'Revenue by film category',
    sql: `SELECT ca.name, SUM(p.amount) FROM payment p JOIN rental r ON r.rental_id = p.rental_id JOIN inventory i ON i.inventory_id = r.inventory_id JOIN film_category fc ON fc.film_id = i.film_id JOIN category ca ON ca.category_id = fc.category_id GROUP BY 1`,
  },
  {
    ask: 'How many payments were made in March 2007?',
    sql: `SELECT COUNT(*) FROM payment WHERE payment_date >= '2007-03-01' AND payment_date < '2007-04-01'`,
    cells: ['count'],
  },
  {
    ask: 'Revenue in April 2007',
    sql: `SELECT SUM(amount) FROM payment WHERE payment_date >= '2007-04-01' AND payment_date < '2007-05-01'`,
  },
  {
    ask: 'How many customers are in Canada?',
    sql: `SELECT COUNT(*) FROM customer c JOIN address a ON a.address_id = c.address_id JOIN city ci ON ci.city_id = a.city_id JOIN country co ON co.country_id = ci.country_id WHERE co.country = 'Canada'`,
    cells: ['count'],
  },
]
