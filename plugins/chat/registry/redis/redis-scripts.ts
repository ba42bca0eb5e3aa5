/**
 * The Lua scripts of the Redis run registry. Each one is atomic on the Redis server, so two nodes never both claim a
 * thread, renew a lease the other took, or clean up one dead run twice. Deadlines use the Redis server's clock, so
 * nodes with drifting clocks still agree on which lease has expired.
 *
 * A lease record is the JSON `{ runId, node, key }`; the thread key and the message key hold it while the run lives,
 * and the `runs` sorted set holds it scored by the time its lease ends. The score is the lease: the keys live longer
 * (the hold), so a dead node's thread stays busy until a sweeping node has marked its run interrupted and frees it,
 * and a new turn never starts beside an answer still stored as in progress.
 */

const NOW = "local clock = redis.call('TIME') local now = clock[1] * 1000 + math.floor(clock[2] / 1000)"

/**
 * The run limits of every node together. A run counts against its user and its API key (when a key asked for it) in
 * a sorted set each, `<quota prefix>u:<userId>` and `<quota prefix>k:<keyId>`, scored like the lease: a dead node's
 * runs stop counting when their leases end. `quotas(prefix, record)` names a run's sets and returns its run id;
 * `unquota` takes the run out of them.
 */
const QUOTAS = `
local function quotas(prefix, record)
  if prefix == '' then return {}, nil end
  local lease = cjson.decode(record)
  local sets = { prefix .. 'u:' .. string.format('%d', lease.key.userId) }
  if lease.keyId then sets[2] = prefix .. 'k:' .. string.format('%d', lease.keyId) end
  return sets, lease.runId
end
local function unquota(prefix, record)
  local sets, runId = quotas(prefix, record)
  for _, set in ipairs(sets) do redis.call('ZREM', set, runId) end
end`

/**
 * The run of ARGV[1] (record) counted in the limits of ARGV[5] (quota prefix, '' for none), ARGV[6] and ARGV[7] (most
 * runs per user and per key): `overLimit()` is -1 or -2 when the user or the key already has as many running on every
 * node (else nil), and `count(leaseMs)` counts the run in. A run whose lease has ended (its node died) counts no more,
 * counted out by its score (one command a limit, not a removal and a count); the sweep that interrupts it takes it
 * out of the sets, as a run's release does, and a set left empty is gone. Follows `QUOTAS` and `NOW`.
 */
const LIMITS = `
local sets, runId = quotas(ARGV[5], ARGV[1])
local function overLimit()
  local limits = { tonumber(ARGV[6]), tonumber(ARGV[7]) }
  for index, set in ipairs(sets) do
    if redis.call('ZCOUNT', set, '(' .. now, '+inf') >= limits[index] then return -index end
  end
  return nil
end
local function count(leaseMs)
  for _, set in ipairs(sets) do redis.call('ZADD', set, now + leaseMs, runId) end
end`

/**
 * Claims the thread and message keys for ARGV[1] (record), ARGV[2] (leaseMs), ARGV[3] (holdMs), within the limits
 * (see `LIMITS`). Follows `QUOTAS`.
 */
const CLAIM_WITHIN_LIMITS = `
${NOW}
${LIMITS}
local over = overLimit()
if over then return over end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
count(tonumber(ARGV[2]))
return 1`

/**
 * KEYS runs, then (thread, message) per claim; ARGV leaseMs, holdMs, then (record, run id, client message id '1' or
 * '0', user's set, most runs per user, key's set, most runs per key) per claim, a set '' when it has no limit. The
 * claims of one node gathered into one call, made one after the other as if each were a call of its own: of two
 * claims of one thread the first wins, and each counts the runs of the claims before it. Each claim's outcome, in
 * order: 1 when the thread was free and a client's message not running elsewhere (two nodes given the same new
 * message each open a thread of their own), and both are now this run's; 0 when taken (a busy thread or a run to
 * join, which counts against no limit); -1 or -2 over the user's or the key's limit. Each key is taken by `SET NX`
 * (one command, not a look and a write), and given back when the claim fails after it. The node names the sets and
 * the run id, so no claim decodes its record; a run whose lease has ended (its node died) counts no more, counted
 * out by its score (see `LIMITS`).
 */
export const CLAIM = `
local clock = redis.call('TIME')
local now = clock[1] * 1000 + math.floor(clock[2] / 1000)
local leaseEnd = now + tonumber(ARGV[1])
local hold = ARGV[2]
local live = '(' .. now
local function full(set, most)
  return set ~= '' and redis.call('ZCOUNT', set, live, '+inf') >= tonumber(most)
end
local function claim(thread, message, record, runId, client, userSet, mostPerUser, keySet, mostPerKey)
  if client and not redis.call('SET', message, record, 'NX', 'PX', hold) then return 0 end
  if not redis.call('SET', thread, record, 'NX', 'PX', hold) then
    if client then redis.call('DEL', message) end
    return 0
  end
  local over = nil
  if full(userSet, mostPerUser) then over = -1 elseif full(keySet, mostPerKey) then over = -2 end
  if over then
    redis.call('DEL', thread)
    if client then redis.call('DEL', message) end
    return over
  end
  if not client then redis.call('SET', message, record, 'PX', hold) end
  redis.call('ZADD', KEYS[1], leaseEnd, record)
  if userSet ~= '' then redis.call('ZADD', userSet, leaseEnd, runId) end
  if keySet ~= '' then redis.call('ZADD', keySet, leaseEnd, runId) end
  return 1
end
local outcomes = {}
for index = 0, (#KEYS - 1) / 2 - 1 do
  local at = 2 + 7 * index
  outcomes[index + 1] = claim(KEYS[2 + 2 * index], KEYS[3 + 2 * index], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3] == '1',
    ARGV[at + 4], ARGV[at + 5], ARGV[at + 6], ARGV[at + 7])
end
return outcomes`

/**
 * KEYS thread, message, runs; ARGV record, leaseMs, holdMs, client message id ('1' or '0'), quota prefix, most runs per
 * user, most runs per key, then the holder's record ('' for none); outcomes as a claim's (see `CLAIM`), one run's
 * alone (taking over is rare: not gathered with other claims). Takes the thread from a run
 * that storage holds as ended but whose node has not released it yet (its client may have read the last line and
 * sent the next message to another node first), or claims it if that release has landed since. The ended run no
 * longer counts against its limits. The holder's own release then leaves the thread alone: it deletes only its own
 * record.
 */
export const TAKE_OVER = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[8] then return 0 end
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
${QUOTAS}
if holder then unquota(ARGV[5], holder) end
${CLAIM_WITHIN_LIMITS}`

/**
 * Marks the run of `record` as wanted by a reader on another node (at most once: the flag lives holdMs) and tells
 * its node, which from then on sends the run's lines to its stream. A run nobody follows never writes its lines to
 * Redis: most runs are read by their own clients only.
 */
const WANT = `
local function want(record)
  local runId = cjson.decode(record).runId
  if redis.call('SET', ARGV[1] .. runId, '1', 'NX', 'PX', ARGV[2]) then
    redis.call('PUBLISH', ARGV[3], cjson.encode({ type = 'ship', runId = runId }))
  end
end`

/**
 * KEYS message; ARGV wanted key prefix, holdMs, events channel, thread key prefix. The record of the live run
 * holding this message key (marked wanted), or nil.
 */
export const FIND_BY_MESSAGE = `
${WANT}
local record = redis.call('GET', KEYS[1])
if not record then return false end
if redis.call('GET', ARGV[4] .. cjson.decode(record).key.chatId) ~= record then return false end
want(record)
return record`

/** KEYS thread; ARGV wanted key prefix, holdMs, events channel. The thread's live run's record (marked wanted), or nil. */
export const FIND_BY_THREAD = `
${WANT}
local record = redis.call('GET', KEYS[1])
if not record then return false end
want(record)
return record`

/**
 * KEYS runs, then (thread, message, log, wanted) per run; ARGV leaseMs, logMs, holdMs, quota prefix, then the record
 * per run. Extends the leases still held (not yet ended: an ended one is a sweeping node's to take), and with them the
 * runs' places in their limits. A lease Redis no longer has at all (restarted without its data: no lease, no holder,
 * and no log ended by a sweeping node; the node may have written its log again already) is this node's run still,
 * and is taken again. Returns the (1-based) positions
 * of the runs whose lease was lost, of those wanted by readers elsewhere (in case the news was lost), and of those
 * taken again (their logs went with Redis's data).
 */
export const RENEW = `
${NOW}
${QUOTAS}
local lost = {}
local wanted = {}
local restored = {}
local count = (#KEYS - 1) / 4
-- Whether a log was ended (a sweeping node ended it in its node's place), not just written again by its own node.
local function ended(log)
  local last = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)
  if #last == 0 then return false end
  local fields = last[1][2]
  for field = 1, #fields, 2 do
    if fields[field] == 'e' then return true end
  end
  return false
end
for index = 0, count - 1 do
  local record = ARGV[5 + index]
  local thread, message, log = KEYS[2 + 4 * index], KEYS[3 + 4 * index], KEYS[4 + 4 * index]
  if redis.call('EXISTS', KEYS[5 + 4 * index]) == 1 then wanted[#wanted + 1] = index + 1 end
  local ends = redis.call('ZSCORE', KEYS[1], record)
  local holder = redis.call('GET', thread)
  if not ends and not holder and redis.call('EXISTS', message) == 0 and not ended(log) then
    redis.call('SET', thread, record, 'PX', ARGV[3])
    redis.call('SET', message, record, 'PX', ARGV[3])
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), record)
    local sets, runId = quotas(ARGV[4], record)
    for _, set in ipairs(sets) do
      redis.call('ZADD', set, now + tonumber(ARGV[1]), runId)
      redis.call('PEXPIRE', set, ARGV[3])
    end
    restored[#restored + 1] = index + 1
  elseif ends and tonumber(ends) > now and holder == record then
    redis.call('PEXPIRE', thread, ARGV[3])
    if redis.call('GET', message) == record then redis.call('PEXPIRE', message, ARGV[3]) end
    redis.call('PEXPIRE', log, ARGV[2])
    redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), record)
    local sets, runId = quotas(ARGV[4], record)
    for _, set in ipairs(sets) do
      redis.call('ZADD', set, 'XX', now + tonumber(ARGV[1]), runId)
      redis.call('PEXPIRE', set, ARGV[3])
    end
  else
    lost[#lost + 1] = index + 1
  end
end
return { lost, wanted, restored }`

/**
 * KEYS thread, message, runs, log; ARGV record, retainMs, last lines, quota prefix, index of the first of those
 * lines. Ends the run's log with its last lines and frees the thread (if the lease is still this run's), the message
 * key and its places in the limits; the log stays readable for retainMs.
 */
export const RELEASE = `
${QUOTAS}
unquota(ARGV[4], ARGV[1])
redis.call('XADD', KEYS[4], '*', 'i', ARGV[5], 'l', ARGV[3], 'e', '1')
redis.call('PEXPIRE', KEYS[4], ARGV[2])
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
redis.call('ZREM', KEYS[3], ARGV[1])
return 1`

/**
 * KEYS runs, then (thread, message, wanted) per run; ARGV holdMs, then (record, run id, user's set, key's set) per
 * run, a set '' when the run counts in none. The releases of one node's runs whose lines never went to Redis, gathered into one
 * call: each frees the thread, the message key and the places in the limits of its run, unless a reader elsewhere
 * wants its lines (0: the caller sends every line, then RELEASE); 1 when released. Atomic with the lookups that mark
 * a run wanted: a reader either finds the run and gets its whole log, or finds it ended. A key is taken with
 * `GETDEL` and set again, for its hold, in the rare case it was another run's (one that took the thread over from
 * this ended run, or claimed it after this run's hold ran out): one command where a look and a delete were two.
 */
export const RELEASE_UNREAD = `
local function free(key, record, hold)
  local holder = redis.call('GETDEL', key)
  if holder and holder ~= record then redis.call('SET', key, holder, 'PX', hold) end
end
local outcomes = {}
for index = 0, (#KEYS - 1) / 3 - 1 do
  local at = 4 * index
  if redis.call('EXISTS', KEYS[4 + 3 * index]) == 1 then
    outcomes[index + 1] = 0
  else
    local record, runId, userSet, keySet = ARGV[at + 2], ARGV[at + 3], ARGV[at + 4], ARGV[at + 5]
    if userSet ~= '' then redis.call('ZREM', userSet, runId) end
    if keySet ~= '' then redis.call('ZREM', keySet, runId) end
    free(KEYS[2 + 3 * index], record, ARGV[1])
    free(KEYS[3 + 3 * index], record, ARGV[1])
    redis.call('ZREM', KEYS[1], record)
    outcomes[index + 1] = 1
  end
end
return outcomes`

/**
 * KEYS runs; ARGV limit, quota prefix. Takes the runs whose lease has ended out of the set, and out of their limits,
 * and returns them: each is returned to exactly one node, which then marks it interrupted and frees its thread.
 */
export const CLAIM_EXPIRED = `
${NOW}
${QUOTAS}
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
for _, record in ipairs(expired) do
  redis.call('ZREM', KEYS[1], record)
  unquota(ARGV[2], record)
end
return expired`

/**
 * KEYS log, message, thread; ARGV last lines, record, retainMs, replay. Ends the log of a run whose node is gone and
 * frees its thread (both still this run's: a thread whose hold ran out meanwhile may belong to a new run already). A
 * log its node never started (nobody elsewhere read the run before it died) first gets the replay: the run's lines
 * as storage holds them, so a reader that joins it now still gets what its own clients got.
 */
export const END_ORPHAN = `
if ARGV[4] ~= '' and redis.call('EXISTS', KEYS[1]) == 0 then redis.call('XADD', KEYS[1], '*', 'i', '0', 'l', ARGV[4]) end
redis.call('XADD', KEYS[1], '*', 'l', ARGV[1], 'e', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
if redis.call('GET', KEYS[3]) == ARGV[2] then redis.call('DEL', KEYS[3]) end
return 1`

/**
 * KEYS runs; ARGV record, quota prefix. Takes one run out of the leases (and its limits) whatever its lease says, for
 * the node that stops it in its node's place (an abort its node did not answer): 1 when taken, 0 when another node
 * or the run's own end got there first.
 */
export const CLAIM_ONE = `
${QUOTAS}
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
unquota(ARGV[2], ARGV[1])
return 1`
