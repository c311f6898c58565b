--[[
  Records the bytes one knowledge base's change feed holds in its workspace's
  tally and gives the workspace's total. The feeds of deleted knowledge bases
  whose retention has ended leave the tally here (a bounded number per call).

  Input:
    KEYS[1] the workspace's feed tally (hash: kbId to bytes, and `:total`)
    KEYS[2] the workspace's retained feeds (sorted set: kbId to when its feed expires, ms)
    ARGV[1] JSON: {kbId, bytes, nowMs}

  Output: {'ok', total}
]]

local p = cjson.decode(ARGV[1])
local tally, retained = KEYS[1], KEYS[2]
local delta = 0
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', retained, '-inf', p.nowMs, 'LIMIT', 0, 20)) do
  if gone ~= p.kbId then
    delta = delta - tonumber(redis.call('HGET', tally, gone) or '0')
    redis.call('HDEL', tally, gone)
  end
  redis.call('ZREM', retained, gone)
end
delta = delta + p.bytes - tonumber(redis.call('HGET', tally, p.kbId) or '0')
redis.call('HSET', tally, p.kbId, p.bytes)
local total = redis.call('HINCRBY', tally, ':total', delta)
if total < 0 then
  redis.call('HSET', tally, ':total', 0)
  total = 0
end
return {'ok', total}
