--[[
  API: records the outcome of a claimed Idempotency-Key for replays and moves
  its index entry to the outcome's expiry, so the workspace's count of live
  keys stays exact.

  Input:
    KEYS[1] the key's record (JSON string)
    KEYS[2] the workspace's index (sorted set: key hash scored by expiry, ms)
    ARGV[1] JSON: {keyHash, record (JSON of the outcome), ttlMs}

  Output: {'ok'}
]]
local p = cjson.decode(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

redis.call('SET', KEYS[1], p.record, 'PX', p.ttlMs)
redis.call('ZADD', KEYS[2], now + p.ttlMs, p.keyHash)
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], last[2])
return {'ok'}
