--[[
  Worker: takes a fetch slot of one host for a lease, if the host has a free
  slot and its last fetch started long enough ago. Time is this Redis's clock
  (TIME), so every worker replica measures leases and spacing alike. Expired
  leases (a worker that died holding one) are dropped first, so a slot is
  never held longer than its lease.

  Input:
    KEYS[1] the host's leases (sorted set: token scored by expiry, ms)
    KEYS[2] the host's next allowed start (ms; expires with the spacing)
    ARGV[1] lease token   ARGV[2] lease length (ms)   ARGV[3] most leases at once
    ARGV[4] least time between two starts (ms)

  Output: {'ok'} | {'busy', ms until the first lease expires} | {'spacing', ms until the next start is allowed}
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leaseMs = tonumber(ARGV[2])
local spacingMs = tonumber(ARGV[4])

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {'ok'} end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {'busy', math.max(1, tonumber(first[2]) - now)}
end
local nextStart = tonumber(redis.call('GET', KEYS[2]) or '0')
if nextStart > now then return {'spacing', nextStart - now} end

redis.call('ZADD', KEYS[1], now + leaseMs, ARGV[1])
-- The set lives exactly as long as its longest lease (replicas may be configured apart).
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
if spacingMs > 0 then redis.call('SET', KEYS[2], now + spacingMs, 'PX', spacingMs) end
return {'ok'}
