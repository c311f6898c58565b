--[[
  Worker: takes a fetch slot of one host for a lease, if the host has a free
  slot. Time is this Redis's clock (TIME), so every worker replica measures
  leases alike. Expired leases (a worker that died holding one) are dropped
  first, so a slot is never held longer than its lease. The spacing of
  starts is startHostFetch's, taken right before the request.

  Input:
    KEYS[1] the host's leases (sorted set: token scored by expiry, ms)
    ARGV[1] JSON: {token (of the lease), leaseMs (its length), maxPerHost (most leases at once)}

  Output: {'ok'} | {'busy', retryInMs}
    retryInMs: until the first lease expires.
]]
local p = cjson.decode(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], p.token) then return {'ok'} end
if redis.call('ZCARD', KEYS[1]) >= p.maxPerHost then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {'busy', math.max(1, tonumber(first[2]) - now)}
end
redis.call('ZADD', KEYS[1], now + p.leaseMs, p.token)
-- The set lives exactly as long as its longest lease (replicas may be configured apart).
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return {'ok'}
