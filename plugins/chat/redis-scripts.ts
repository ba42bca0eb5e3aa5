/**
 * The Lua scripts of the Redis run registry. Each one is atomic on the Redis server, so two nodes never both claim a
 * thread, renew a lease the other took, or clean up one dead run twice. Deadlines use the Redis server's clock, so
 * nodes with drifting clocks still agree on which lease has expired.
 *
 * A lease record is the JSON `{ runId, node, key }`; the thread key and the message key hold it while the run lives,
 * and the `runs` sorted set holds it scored by the time its lease ends.
 */

const NOW = "local clock = redis.call('TIME') local now = clock[1] * 1000 + math.floor(clock[2] / 1000)"

/** KEYS thread, message, runs; ARGV record, leaseMs. 1 when the thread was free and is now this run's. */
export const CLAIM = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
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
 * KEYS runs, then (thread, message, log) per run; ARGV leaseMs, logMs, then the record per run. Extends the leases
 * still held; returns the (1-based) positions of the runs whose lease was lost.
 */
export const RENEW = `
${NOW}
local lost = {}
local count = (#KEYS - 1) / 3
for index = 0, count - 1 do
  local record = ARGV[3 + index]
  local thread, message, log = KEYS[2 + 3 * index], KEYS[3 + 3 * index], KEYS[4 + 3 * index]
  if redis.call('GET', thread) == record then
    redis.call('PEXPIRE', thread, ARGV[1])
    if redis.call('GET', message) == record then redis.call('PEXPIRE', message, ARGV[1]) end
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
 * KEYS runs; ARGV thread key prefix, limit. Takes the runs whose lease has ended out of the set and returns them:
 * each is returned to exactly one node, which then marks it interrupted.
 */
export const CLAIM_EXPIRED = `
${NOW}
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local claimed = {}
for _, record in ipairs(expired) do
  if redis.call('GET', ARGV[1] .. cjson.decode(record).key.chatId) ~= record then
    redis.call('ZREM', KEYS[1], record)
    claimed[#claimed + 1] = record
  end
end
return claimed`

/** KEYS log, message; ARGV last lines, record, retainMs. Ends the log of a run whose node is gone. */
export const END_ORPHAN = `
redis.call('XADD', KEYS[1], '*', 'l', ARGV[1], 'e', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return 1`
