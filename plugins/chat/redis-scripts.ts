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

/** KEYS thread, message, runs; ARGV record, leaseMs, holdMs. 1 when the thread was free and is now this run's. */
export const CLAIM = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[3]) then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
${NOW}
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
return 1`

/** KEYS message; ARGV thread key prefix. The record of the live run holding this message key, or nil. */
export const FIND_BY_MESSAGE = `
local record = redis.call('GET', KEYS[1])
if not record then return false end
if redis.call('GET', ARGV[1] .. cjson.decode(record).key.chatId) == record then return record end
return false`

/**
 * KEYS runs, then (thread, message, log) per run; ARGV leaseMs, logMs, holdMs, then the record per run. Extends the
 * leases still held (not yet ended: an ended one is a sweeping node's to take); returns the (1-based) positions of
 * the runs whose lease was lost.
 */
export const RENEW = `
${NOW}
local lost = {}
local count = (#KEYS - 1) / 3
for index = 0, count - 1 do
  local record = ARGV[4 + index]
  local thread, message, log = KEYS[2 + 3 * index], KEYS[3 + 3 * index], KEYS[4 + 3 * index]
  local ends = redis.call('ZSCORE', KEYS[1], record)
  if ends and tonumber(ends) > now and redis.call('GET', thread) == record then
    redis.call('PEXPIRE', thread, ARGV[3])
    if redis.call('GET', message) == record then redis.call('PEXPIRE', message, ARGV[3]) end
    redis.call('PEXPIRE', log, ARGV[2])
    redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), record)
  else
    lost[#lost + 1] = index + 1
  end
end
return lost`

/**
 * KEYS thread, message, runs, log; ARGV record, retainMs, last lines. Ends the run's log with its last lines and
 * frees the thread (if the lease is still this run's) and the message key; the log stays readable for retainMs.
 */
export const RELEASE = `
redis.call('XADD', KEYS[4], '*', 'l', ARGV[3], 'e', '1')
redis.call('PEXPIRE', KEYS[4], ARGV[2])
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
redis.call('ZREM', KEYS[3], ARGV[1])
return 1`

/**
 * KEYS runs; ARGV limit. Takes the runs whose lease has ended out of the set and returns them: each is returned to
 * exactly one node, which then marks it interrupted and frees its thread.
 */
export const CLAIM_EXPIRED = `
${NOW}
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
for _, record in ipairs(expired) do redis.call('ZREM', KEYS[1], record) end
return expired`

/**
 * KEYS log, message, thread; ARGV last lines, record, retainMs. Ends the log of a run whose node is gone and frees
 * its thread (both still this run's: a thread whose hold ran out meanwhile may belong to a new run already).
 */
export const END_ORPHAN = `
redis.call('XADD', KEYS[1], '*', 'l', ARGV[1], 'e', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
if redis.call('GET', KEYS[3]) == ARGV[2] then redis.call('DEL', KEYS[3]) end
return 1`
