/**
 * The one error model of the service. Domain modules throw these; the global
 * error handler in `plugins/core` turns them into `{ error, code }` with the error's status.
 */
export class AppError extends Error {
  /** Sent as `Retry-After` (seconds) with a 429 or 503, when the caller can tell when to try again. */
  retryAfterSeconds?: number

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = new.target.name
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, code = 'BAD_REQUEST') {
    super(400, code, message)
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Missing or invalid credentials', code = 'UNAUTHORIZED') {
    super(401, code, message)
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Forbidden', code = 'FORBIDDEN') {
    super(403, code, message)
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found', code = 'NOT_FOUND') {
    super(404, code, message)
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code = 'CONFLICT') {
    super(409, code, message)
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limitBytes} bytes`)
  }
}

export class RateLimitedError extends AppError {
  constructor(message = 'Too many requests', retryAfterSeconds?: number) {
    super(429, 'RATE_LIMITED', message)
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/**
 * 503 while the database holding the service's state does not answer (a Postgres server stopped or out of reach):
 * nothing is wrong with the request, and the node takes requests again by itself once the database is back.
 */
export class StorageUnavailableError extends AppError {
  constructor(
    /** What the driver said, for the log; never sent to the client (it can name the host). */
    readonly reason: string,
  ) {
    super(503, 'STORAGE_UNAVAILABLE', 'The database does not answer; please retry shortly')
    this.retryAfterSeconds = 5
  }
}

/**
 * 503 from a node that is shutting down (SIGTERM): nothing is wrong with the request, and another node, or this one
 * once restarted, takes it.
 */
export class ShuttingDownError extends AppError {
  constructor() {
    super(503, 'SHUTTING_DOWN', 'The server is shutting down; please retry')
    this.retryAfterSeconds = 1
  }
}

/** The wire shape of every non-2xx JSON response. */
export interface ErrorBody {
  error: string
  code: string
}

export function errorBody(error: AppError): ErrorBody {
  return { error: error.message, code: error.code }
}
