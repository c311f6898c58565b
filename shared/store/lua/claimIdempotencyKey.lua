--[[
  API: claims one Idempotency-Key of a workspace for a new request, unless it
  is already recorded or the workspace holds as many live keys as it may.
  The index counts a workspace's records (running and done) so that keys with
  new names cannot grow Redis without bound: each member is scored by its
  record's expiry and dropped here once past it. Time is this Redis's clock
  (TIME), as in completeIdempotencyKey, so every API replica scores alike.

  Input:
    KEYS[1] the key's record (JSON string)
    KEYS[2] the workspace's index (sorted set: key hash scored by expiry, ms)
    ARGV[1] JSON: {keyHash, runningTtlMs (life of the claim), maxKeys (live records of the workspace)}

  Output: {'claimed'} | {'found', record} | {'full', retryInMs}
    record: the JSON recorded for the key.
    retryInMs: until the workspace's first record expires.
]]
local p = cjson.decode(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local found = redis.call('GET', KEYS[1])
if found then return {'found', found} end
-- A record whose index entry went (a partial restore) is counted again below.
redis.call('ZREM', KEYS[2], p.keyHash)
if redis.call('ZCARD', KEYS[2]) >= p.maxKeys then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'full', math.max(1, tonumber(first[2]) - now)}
end
redis.call('SET', KEYS[1], '{"state":"running"}', 'PX', p.runningTtlMs)
redis.call('ZADD', KEYS[2], now + p.runningTtlMs, p.keyHash)
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], last[2])
return {'claimed'}
