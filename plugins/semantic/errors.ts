import { AppError, BadRequestError } from '../../lib/errors'

/** One problem in a model file: `models/orders.yml:12: orders.total_amount: type: expected one of ...`. */
export interface ModelProblem {
  file: string
  line: number
  /** `orders`, `orders.total_amount`, `orders join customers`, or empty for file-level problems. */
  member: string
  message: string
}

export function describeProblem(problem: ModelProblem): string {
  return `${problem.file}:${problem.line}: ${problem.member ? `${problem.member}: ` : ''}${problem.message}`
}

/**
 * A model that cannot be loaded. At start-up it stops the server (every problem listed); a model first loaded
 * later answers 409: the deployment is in a state its operator must fix, not a bad request and not a bug.
 */
export class ModelError extends AppError {
  constructor(
    readonly label: string,
    readonly problems: ModelProblem[],
  ) {
    super(
      409,
      'MODEL_INVALID',
      `Invalid semantic model ${label}:\n${problems.map((problem) => `  - ${describeProblem(problem)}`).join('\n')}`,
    )
  }
}

/**
 * `error` as a caller over HTTP sees it: each file named from the model's folder (`orders.yml`,
 * `branches/dev/orders.yml`) and the model by its folder's last name, so an API key's holder learns what to fix and
 * nothing of the server's folders. The operator's log keeps the whole paths.
 */
export function modelErrorForCaller(error: ModelError, folder: string): ModelError {
  const prefix = `${folder.replace(/\/+$/, '')}/`
  const name = folder.replace(/\/+$/, '').split('/').at(-1) || folder
  const shown = (path: string) => (path.startsWith(prefix) ? path.slice(prefix.length) : path === folder ? name : path)
  return new ModelError(
    error.label.startsWith(folder) ? `${name}${error.label.slice(folder.length)}` : name,
    error.problems.map((problem) => ({ ...problem, file: shown(problem.file) })),
  )
}

/** A query the semantic layer refuses: unknown or hidden members, anything but one SELECT over cubes, ... */
export class InvalidQueryError extends BadRequestError {
  constructor(message: string) {
    super(message, 'INVALID_QUERY')
  }
}

/**
 * A query past its time limit. `slow`: the database ran it and stopped it at the limit (or its process was stopped),
 * so narrowing the query helps. `no answer`: the database did not answer at all (no reply to the statement, or to
 * the connection's handshake), so no query would help: the database is hung or out of reach.
 */
export class QueryTimeoutError extends AppError {
  constructor(
    limitMs: number,
    readonly kind: 'slow' | 'no answer' = 'slow',
    deploymentId?: number,
  ) {
    super(
      504,
      'QUERY_TIMEOUT',
      kind === 'slow'
        ? `Query stopped after the ${limitMs} ms time limit: narrow it down (filters, fewer dimensions, a LIMIT)`
        : `The database${deploymentId === undefined ? '' : ` of deployment ${deploymentId}`} did not answer within ${limitMs} ms: it is not responding, so the query is not the problem; try again later`,
    )
  }
}

/** The kinds of data-source failure `/readyz` tells apart, without naming anything of the source. */
export type SourceFailure =
  | 'unreachable'
  | 'authentication failed'
  | 'database not found'
  | 'schema not found'
  | 'not accepting connections'
  | 'database file not found'
  | 'not a database file'
  | 'invalid configuration'
  | 'no answer'

/**
 * The deployment's database cannot be reached right now. The message names the deployment and never the
 * source's address or credentials; the source is retried at the next query.
 */
export class DataSourceUnavailableError extends AppError {
  constructor(
    deploymentId: number | undefined,
    /** Why, for the server's log only (it may name hosts, users, databases or files). */
    readonly reason?: string,
    /** What kind of failure, naming nothing of the source: what `/readyz`, which anyone may read, shows. */
    readonly category: SourceFailure = 'unreachable',
    retryAfterSeconds?: number,
  ) {
    const of = deploymentId === undefined ? '' : ` of deployment ${deploymentId}`
    super(
      503,
      'DATA_SOURCE_UNAVAILABLE',
      category === 'no answer'
        ? `The database${of} did not answer the connection: it is not responding, so the query is not the problem; try again later`
        : `The data source${of} is unavailable right now; try again shortly`,
    )
    this.retryAfterSeconds = retryAfterSeconds
  }
}
