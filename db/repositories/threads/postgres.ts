import type { SQL } from 'bun'
import { createPostgresWriteBatch, type PostgresTransaction } from '../../postgres/postgres-write-batch'
import {
  MessageStored,
  RESTART_ERROR,
  threadTitle,
  toThreadMessage,
  userMessageOf,
  type MessageRow,
  type MessageSave,
  type NewTurn,
  type RunOutcome,
  type StartedTurn,
  type ThreadRow,
  type ThreadMessage,
  type ThreadStore,
} from '.'

/*
 * Each multi-row statement below reads its rows from one JSON parameter, `LIMIT`ed to their number: the planner
 * takes a set-returning function for 100 rows whatever it holds, and for 100 rows it joined the threads and runs by
 * scanning the whole table (a hash join), on every commit; told their number (at most a few dozen), it looks each
 * one up by its key. A young database (the bench's, a new deployment's) has small tables, where a scan costs little
 * per row but still grows with every turn stored.
 */

/** How many messages one save statement carries (their contents are its text parameters, a fixed number of them). */
const CONTENT_SLOTS = 8

/** A thread's messages in order, as its history or a reader gets them. */
async function messagesOf(sql: SQL, threadId: string, devMode: boolean): Promise<ThreadMessage[]> {
  const rows: MessageRow[] = await sql`
    SELECT id, sort, role, content, graph_path AS "graphPath", thinking, tool_call AS "toolCall", attachments, status
      FROM chat_messages WHERE thread_id = ${threadId} ORDER BY sort`
  return rows.map((row) => toThreadMessage(row, devMode))
}

/** A turn start as the commit gathers it, with the time of its call. */
interface PendingStart {
  turn: NewTurn
  now: number
}

// Every turn start of the commit in one statement (its new threads, its user messages, its threads' raised epochs
// and its runs; one JSON parameter, one statement text prepared once), after the histories of its threads that
// already had messages: sent together, without waiting for each other's answers (one connection runs them in
// order), so each history is read before its turn's user message is inserted. The start raises the thread's lease
// epoch: the writes of any run before it are refused from now on. A turn whose thread is gone, or whose message
// the thread already holds, fails alone and writes nothing (its thread's epoch stays as it was); so does a new
// thread's turn asked to check its message (`checkMessage`) that the user has in another thread already, which is
// told that thread (looked up by the message's id in the partial index on user messages, one lookup per turn:
// joined instead, the planner of a young database, whose statistics say the table is empty, read the whole index).
async function startWrites(tx: PostgresTransaction, starts: PendingStart[]): Promise<Array<StartedTurn | Error>> {
  const rows = starts.map(({ turn, now }) => ({
    thread_id: turn.thread.id,
    is_new: turn.isNewThread,
    account_id: turn.thread.accountId,
    deployment_id: turn.thread.deploymentId,
    agent_id: turn.thread.agentId,
    user_id: turn.thread.userId,
    title: turn.isNewThread ? threadTitle(turn.input) : null,
    run_id: turn.runId,
    message_id: turn.messageId,
    branch: turn.branch,
    input: turn.input,
    attachments: turn.images?.length ? JSON.stringify(turn.images) : null,
    now,
    check_message: turn.checkMessage === true,
  }))
  // The histories first: sent before the statement that inserts the user messages.
  const histories = starts.map(({ turn }) =>
    turn.isNewThread ? Promise.resolve<ThreadMessage[]>([]) : messagesOf(tx, turn.thread.id, turn.devMode),
  )
  const [started, ...read] = await Promise.all([
    tx`
      WITH v AS (
        SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::text::json) AS v(thread_id text, is_new boolean,
          account_id integer, deployment_id integer, agent_id integer, user_id integer, title text, run_id text,
          message_id text, branch text, input text, attachments text, now bigint, check_message boolean)
         LIMIT ${rows.length}::int
      ), stored AS (
        SELECT v.thread_id, found.thread_id AS stored_in
          FROM v CROSS JOIN LATERAL (
            SELECT m.thread_id FROM chat_messages m
             WHERE m.id = v.message_id AND m.role = 'user'
               AND (SELECT t.user_id = v.user_id AND t.agent_id = v.agent_id FROM chat_threads t WHERE t.id = m.thread_id)
             LIMIT 1) found
         WHERE v.check_message
      ), created AS (
        INSERT INTO chat_threads (id, account_id, deployment_id, agent_id, user_id, title, created_at, updated_at,
                                  lease_epoch)
        SELECT thread_id, account_id, deployment_id, agent_id, user_id, title, now, now, 1 FROM v
         WHERE is_new AND thread_id NOT IN (SELECT thread_id FROM stored)
        RETURNING id, lease_epoch
      ), messages AS (
        INSERT INTO chat_messages (thread_id, id, sort, role, content, attachments, status, run_id, created_at,
                                   updated_at)
        SELECT v.thread_id, v.message_id,
               coalesce((SELECT max(m.sort) FROM chat_messages m WHERE m.thread_id = v.thread_id), 0) + 1, 'user',
               v.input, v.attachments, 'complete', v.run_id, v.now, v.now
          FROM v
         WHERE v.thread_id IN (SELECT id FROM created)
            OR (NOT v.is_new AND EXISTS (SELECT 1 FROM chat_threads t WHERE t.id = v.thread_id))
        ON CONFLICT (thread_id, id) DO NOTHING
        RETURNING thread_id, sort
      ), touched AS (
        UPDATE chat_threads t SET updated_at = v.now, lease_epoch = t.lease_epoch + 1
          FROM v JOIN messages ON messages.thread_id = v.thread_id
         WHERE NOT v.is_new AND t.id = v.thread_id
        RETURNING t.id, t.lease_epoch
      ), held AS (
        SELECT id, lease_epoch FROM created UNION ALL SELECT id, lease_epoch FROM touched
      ), runs AS (
        INSERT INTO chat_runs (id, thread_id, message_id, branch, status, started_at)
        SELECT v.run_id, v.thread_id, v.message_id, v.branch, 'running', v.now
          FROM v JOIN messages ON messages.thread_id = v.thread_id
      )
      SELECT held.id AS "threadId", held.lease_epoch AS epoch, messages.sort, NULL AS "storedIn"
        FROM held JOIN messages ON messages.thread_id = held.id
      UNION ALL
      SELECT thread_id, 0, 0, stored_in FROM stored` as Promise<
      Array<{ threadId: string; epoch: number; sort: number; storedIn: string | null }>
    >,
    ...histories,
  ])
  const byThread = new Map(started.map((row) => [row.threadId, row]))
  return starts.map(({ turn }, index) => {
    const row = byThread.get(turn.thread.id)
    if (row?.storedIn) return new MessageStored(row.storedIn)
    if (!row) return new Error(`the turn could not start in thread ${turn.thread.id}: gone, or holding its message`)
    return {
      history: read[index],
      userMessage: userMessageOf(turn, row.sort),
      nextSort: row.sort + 1,
      epoch: row.epoch,
    }
  })
}

/** A run's end as the commit gathers it. */
interface PendingEnd {
  runId: string
  epoch: number
  status: RunOutcome
  error: string | null
  now: number
}

// Every run end of the commit in one statement, fenced as the saves are: a run's status is written only while its
// thread's lease epoch is still the run's, the thread's row locked FOR SHARE until the commit.
async function endWrites(tx: PostgresTransaction, ends: PendingEnd[]): Promise<boolean[]> {
  const rows = ends.map((end) => ({
    run_id: end.runId,
    epoch: end.epoch,
    status: end.status,
    error: end.error,
    ended_at: end.now,
  }))
  const ended: Array<{ id: string }> = await tx`
    WITH v AS (
      SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::text::json) AS v(run_id text, epoch integer,
        status text, error text, ended_at bigint) LIMIT ${rows.length}::int
    ), held AS (
      SELECT r.id FROM v JOIN chat_runs r ON r.id = v.run_id JOIN chat_threads t ON t.id = r.thread_id
       WHERE t.lease_epoch = v.epoch FOR SHARE OF t
    )
    UPDATE chat_runs r SET status = v.status, error = v.error, ended_at = v.ended_at
      FROM v WHERE r.id = v.run_id AND r.id IN (SELECT id FROM held)
    RETURNING r.id`
  const done = new Set(ended.map((row) => row.id))
  return ends.map((end) => done.has(end.runId))
}

// A save with nothing to append (an answer's end: its status) keeps the stored content as it is: an answer past
// 2 KB is compressed out of line (TOAST), and appending '' still decompressed, compressed and wrote all of it again.
// Every message of the commit in one statement (one round trip however many runs are streaming; pipelined
// statements of `CONTENT_SLOTS` messages each past that), its small fields as one JSON parameter and its contents
// as text parameters of their own (one statement text, prepared once, whatever the number of rows): Postgres reads
// a JSON text character by character, twice (the cast checks it, the function reads it), which for an answer of
// 20 KB cost five times what taking it as a plain parameter does. Fencing: a thread's rows are written only while
// its lease epoch is still the one the run started with, and the threads checked are locked FOR SHARE until the
// commit, so a node interrupting a run in its owner's place (it raises the epoch first) either waits for this
// commit or makes it refuse the rows; the statement returns the threads refused.
async function saveWrites(tx: PostgresTransaction, saves: MessageSave[]): Promise<ReadonlySet<string>> {
  const statements: Array<Promise<Array<{ threadId: string }>>> = []
  for (let first = 0; first < saves.length; first += CONTENT_SLOTS)
    statements.push(saveSome(tx, saves.slice(first, first + CONTENT_SLOTS)))
  const refused = await Promise.all(statements)
  return new Set(refused.flat().map((row) => row.threadId))
}

/** At most `CONTENT_SLOTS` saves in one statement; resolves with the threads whose rows it refused. */
function saveSome(tx: PostgresTransaction, saves: MessageSave[]): Promise<Array<{ threadId: string }>> {
  const rows = saves.map((message, index) => ({
    thread_id: message.threadId,
    id: message.id,
    sort: message.sort,
    slot: index + 1,
    thinking: message.thinking,
    graph_path: message.graphPath,
    tool_call: message.toolCall,
    status: message.status,
    run_id: message.runId,
    created_at: message.createdAt,
    updated_at: message.updatedAt,
    epoch: message.epoch,
  }))
  const c = saves.map((message) => message.content)
  while (c.length < CONTENT_SLOTS) c.push('')
  return tx`
    WITH v AS (
      SELECT v.thread_id, v.id, v.sort, v.thinking, v.graph_path, v.tool_call, v.status, v.run_id, v.created_at,
             v.updated_at, v.epoch,
             (ARRAY[${c[0]}::text, ${c[1]}::text, ${c[2]}::text, ${c[3]}::text, ${c[4]}::text, ${c[5]}::text,
                    ${c[6]}::text, ${c[7]}::text])[v.slot] AS content
        FROM json_to_recordset(${JSON.stringify(rows)}::text::json) AS v(thread_id text, id text, sort integer,
          slot integer, thinking text, graph_path text, tool_call text, status text, run_id text, created_at bigint,
          updated_at bigint, epoch integer)
       LIMIT ${rows.length}::int
    ), held AS (
      SELECT t.id FROM chat_threads t WHERE (t.id, t.lease_epoch) IN (SELECT thread_id, epoch FROM v) FOR SHARE
    ), saved AS (
      INSERT INTO chat_messages (thread_id, id, sort, role, content, thinking, graph_path, tool_call, status, run_id,
                                 created_at, updated_at)
      SELECT thread_id, id, sort, 'assistant', content, thinking, graph_path, tool_call, status, run_id, created_at,
             updated_at
        FROM v WHERE thread_id IN (SELECT id FROM held)
      ON CONFLICT (thread_id, id) DO UPDATE SET
        content = CASE WHEN excluded.content = '' THEN chat_messages.content
                       ELSE chat_messages.content || excluded.content END,
        thinking = excluded.thinking,
        graph_path = excluded.graph_path, tool_call = excluded.tool_call, status = excluded.status,
        updated_at = excluded.updated_at
    )
    SELECT DISTINCT thread_id AS "threadId" FROM v WHERE thread_id NOT IN (SELECT id FROM held)`
}

/**
 * The thread store on Postgres, through Bun's SQL client (tagged statements: prepared once per connection and
 * reused, without drizzle's per-call query building on the hot path). Reads go to the pool; writes go through the
 * Postgres group commit, so concurrent turns share one transaction's round trips.
 */
export function createPostgresThreadStore(client: SQL, clock: () => number): ThreadStore {
  const batch = createPostgresWriteBatch(client)
  const startTurn = batch.gather(startWrites)
  const endRun = batch.gather(endWrites)
  return {
    startChecksMessage: true,
    async thread(id) {
      const rows: ThreadRow[] = await client`
        SELECT id, account_id AS "accountId", deployment_id AS "deploymentId", agent_id AS "agentId", user_id AS "userId"
          FROM chat_threads WHERE id = ${id}`
      return rows[0]
    },
    messages: (threadId, devMode) => messagesOf(client, threadId, devMode),
    async threadOfUserMessage(userId, agentId, messageId) {
      // From the message id (index chat_messages_id) to its thread, not from the user's threads.
      const rows: Array<{ threadId: string }> = await client`
        SELECT m.thread_id AS "threadId" FROM chat_messages m JOIN chat_threads t ON t.id = m.thread_id
         WHERE m.id = ${messageId} AND m.role = 'user' AND t.user_id = ${userId} AND t.agent_id = ${agentId}
         LIMIT 1`
      return rows[0]?.threadId
    },
    createThread(thread) {
      const now = clock()
      return batch.run(async (tx) => {
        await tx`
          INSERT INTO chat_threads (id, account_id, deployment_id, agent_id, user_id, title, created_at, updated_at,
                                    lease_epoch)
          VALUES (${thread.id}, ${thread.accountId}, ${thread.deploymentId}, ${thread.agentId}, ${thread.userId}, NULL,
                  ${now}, ${now}, 1)`
      })
    },
    startTurn: (turn) => startTurn({ turn, now: clock() }),
    endRun: (runId, epoch, status, error) => endRun({ runId, epoch, status, error: error ?? null, now: clock() }),
    saveMessages(take) {
      let saves: MessageSave[] | undefined
      return batch.run((tx) => saveWrites(tx, (saves ??= take())))
    },
    flushWrites: () => batch.flush(),
    recoverInterruptedRuns: () => recoverInterruptedRuns(client, clock()),
  }
}

/**
 * At a start: every run storage holds as running, and its unfinished answer, marked interrupted; the threads' lease
 * epochs raised first, so a writer still alive is refused from then on. Resolves with the number of runs marked.
 */
function recoverInterruptedRuns(client: SQL, now: number): Promise<number> {
  return client.begin(async (tx) => {
    // First, so a writer still alive is refused from here on (its writes lock the thread rows they check).
    await tx`UPDATE chat_threads SET lease_epoch = lease_epoch + 1
              WHERE id IN (SELECT thread_id FROM chat_runs WHERE status = 'running')`
    await tx`UPDATE chat_messages SET status = 'interrupted', updated_at = ${now} WHERE status = 'in_process'`
    // Each running run's last answer, through the (thread_id, sort) index.
    await tx`
      UPDATE chat_messages SET status = 'interrupted', updated_at = ${now}
       WHERE (thread_id, sort) IN (
         SELECT r.thread_id, (SELECT max(m.sort) FROM chat_messages m
                               WHERE m.thread_id = r.thread_id AND m.run_id = r.id AND m.role = 'assistant')
           FROM chat_runs r WHERE r.status = 'running')`
    const ended = await tx`
      UPDATE chat_runs SET status = 'interrupted', ended_at = ${now}, error = ${RESTART_ERROR}
       WHERE status = 'running'`
    return ended.count as number
  })
}
