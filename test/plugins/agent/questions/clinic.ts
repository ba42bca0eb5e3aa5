import type { Question } from './types'

/**
 * Questions on the clinic model (`test/fixtures/clinic`), a schema the analyst was not grown on: its words come
 * from that model's titles and descriptions, its values from that data, and "revenue" is whatever money the model
 * sums (here the fees billed). SQL on the clinic tables.
 */
const VISITS = 'FROM appointments a JOIN doctors d ON d.id = a.doctor_id JOIN patients p ON p.id = a.patient_id'
const year = (value: number) => `a.starts_at >= '${value}-01-01' AND a.starts_at < '${value + 1}-01-01'`

export const clinic: Question[] = [
  {
    kind: 'total',
    ask: 'How many appointments were there in 2024?',
    sql: `SELECT COUNT(*) FROM appointments a WHERE ${year(2024)}`,
    cells: ['count'],
  },
  {
    kind: 'breakdown',
    ask: 'Revenue by specialty in 2024',
    sql: `SELECT d.specialty, SUM(a.fee) ${VISITS} WHERE ${year(2024)} GROUP BY 1`,
  },
  {
    kind: 'top',
    ask: 'Which doctor had the most appointments?',
    sql: `SELECT d.name, COUNT(*) ${VISITS} GROUP BY d.id ORDER BY 2 DESC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    // Two patients share the name Maria Garcia: each is a row of her own.
    kind: 'top',
    ask: 'Which 3 patients had the most appointments?',
    sql: `SELECT p.first_name || ' ' || p.last_name, COUNT(*) ${VISITS} GROUP BY p.id ORDER BY 2 DESC LIMIT 3`,
    cells: ['text', 'count'],
  },
  {
    kind: 'top',
    ask: 'Top 3 patients by fees billed',
    sql: `SELECT p.first_name || ' ' || p.last_name, SUM(a.fee) ${VISITS} GROUP BY p.id ORDER BY 2 DESC LIMIT 3`,
  },
  {
    // The services themselves, not the rows of the bridge table that gives them at appointments.
    kind: 'breakdown',
    ask: 'How many services are there in each category?',
    sql: 'SELECT category, COUNT(*) FROM services GROUP BY 1',
    cells: ['text', 'count'],
  },
  {
    kind: 'breakdown',
    ask: 'Average appointment duration by doctor',
    sql: `SELECT d.name, AVG(a.duration_minutes) ${VISITS} GROUP BY d.id`,
    cells: ['text', 'money'],
  },
  {
    kind: 'period',
    ask: 'Fees billed by month in 2024',
    sql: `SELECT strftime('%Y-%m', a.starts_at), SUM(a.fee) FROM appointments a WHERE ${year(2024)} GROUP BY 1`,
  },
  {
    kind: 'filter',
    ask: 'How many cancelled appointments did each doctor have?',
    sql: `SELECT d.name, COUNT(*) ${VISITS} WHERE a.status = 'cancelled' GROUP BY d.id`,
    cells: ['text', 'count'],
  },
  {
    kind: 'filter',
    ask: 'How many patients from Springfield?',
    sql: "SELECT COUNT(*) FROM patients WHERE city = 'Springfield'",
    cells: ['count'],
  },
  {
    kind: 'share',
    ask: 'Share of appointments by status',
    sql: 'SELECT status, COUNT(*), 100.0 * COUNT(*) / (SELECT COUNT(*) FROM appointments) FROM appointments GROUP BY 1',
    cells: ['text', 'count', 'pct'],
  },
  {
    // A dimension named `title` is the doctors' job title, not their name.
    kind: 'breakdown',
    ask: 'Number of doctors by title',
    sql: 'SELECT title, COUNT(*) FROM doctors GROUP BY 1',
    cells: ['text', 'count'],
  },
  {
    kind: 'total',
    ask: 'Average fee in 2023',
    sql: `SELECT AVG(a.fee) FROM appointments a WHERE ${year(2023)}`,
  },
  {
    kind: 'misspelling',
    ask: 'whats the total revnue in 2023',
    sql: `SELECT SUM(a.fee) FROM appointments a WHERE ${year(2023)}`,
  },
  {
    kind: 'top',
    ask: 'Which specialty had the highest revenue?',
    sql: `SELECT d.specialty, SUM(a.fee) ${VISITS} GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    first: true,
  },
  {
    kind: 'filter',
    ask: 'Revenue from cardiology in 2024',
    sql: `SELECT SUM(a.fee) ${VISITS} WHERE d.specialty = 'Cardiology' AND ${year(2024)}`,
  },
  {
    kind: 'filter',
    ask: 'Number of no-show appointments in 2023',
    sql: `SELECT COUNT(*) FROM appointments a WHERE a.status = 'no-show' AND ${year(2023)}`,
    cells: ['count'],
  },
  {
    kind: 'breakdown',
    ask: 'Patients by city',
    sql: 'SELECT city, COUNT(*) FROM patients GROUP BY 1',
    cells: ['text', 'count'],
  },
  {
    kind: 'growth',
    ask: 'How did the number of appointments change from 2023 to 2024?',
    sql: `SELECT (SELECT COUNT(*) FROM appointments a WHERE ${year(2023)}), (SELECT COUNT(*) FROM appointments a WHERE ${year(2024)})`,
    cells: ['count', 'count'],
  },
  {
    // The services given, counted on the bridge table's rows, shown by the service's name.
    kind: 'top',
    ask: 'What was the most popular service in 2024?',
    sql: `SELECT s.name, COUNT(*) FROM appointment_services x JOIN services s ON s.id = x.service_id JOIN appointments a ON a.id = x.appointment_id WHERE ${year(2024)} GROUP BY s.id ORDER BY 2 DESC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    kind: 'total',
    ask: 'How many services do we have?',
    sql: 'SELECT COUNT(*) FROM services',
    cells: ['count'],
  },
  {
    kind: 'top',
    ask: 'Who was the busiest doctor in 2024?',
    sql: `SELECT d.name, COUNT(*) ${VISITS} WHERE ${year(2024)} GROUP BY d.id ORDER BY 2 DESC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    kind: 'top',
    ask: 'Which doctor earned the most?',
    sql: `SELECT d.name, SUM(a.fee) ${VISITS} GROUP BY d.id ORDER BY 2 DESC LIMIT 1`,
    first: true,
  },
  {
    kind: 'filter',
    ask: 'Average price of diagnostics services',
    sql: "SELECT AVG(price) FROM services WHERE category = 'Diagnostics'",
  },
  {
    kind: 'breakdown',
    ask: 'Patients seen by each doctor in 2024',
    sql: `SELECT d.name, COUNT(DISTINCT a.patient_id) ${VISITS} WHERE ${year(2024)} GROUP BY d.id`,
    cells: ['text', 'count'],
  },
  {
    kind: 'filter',
    ask: 'How many patients registered in 2023?',
    sql: "SELECT COUNT(*) FROM patients WHERE registered_at >= '2023-01-01' AND registered_at < '2024-01-01'",
    cells: ['count'],
  },
  {
    // Synonyms the model gives: visits are its appointments, physicians its doctors.
    kind: 'breakdown',
    ask: 'How many visits did each specialty have in 2023?',
    sql: `SELECT d.specialty, COUNT(*) ${VISITS} WHERE ${year(2023)} GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    kind: 'breakdown',
    ask: 'Number of physicians by specialty',
    sql: 'SELECT specialty, COUNT(*) FROM doctors GROUP BY 1',
    cells: ['text', 'count'],
  },
  {
    kind: 'top',
    ask: 'Which physician had the fewest visits in 2024?',
    sql: `SELECT d.name, COUNT(*) ${VISITS} WHERE ${year(2024)} GROUP BY d.id ORDER BY 2 ASC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  { kind: 'decline', ask: 'What is the average salary of our doctors?' },
  { kind: 'decline', ask: 'Appointments by insurance provider' },
  { kind: 'decline', ask: 'How many beds are free today?' },
  { kind: 'decline', ask: 'Revenue from dentistry in 2024' },
]
