--[[
  Worker: takes a delivery slot of a webhook's endpoint for a lease, unless
  the webhook is gone or disabled, its endpoint is backed off after repeated
  failures, or all its slots are held. Time is this Redis's clock (TIME), so
  every worker replica measures leases and back-off alike; expired leases (a
  worker that died holding one) are dropped first.

  Input:
    KEYS[1] webhook hash   KEYS[2] the endpoint's leases (sorted set: token scored by expiry, ms)
    ARGV[1] JSON: {token (of the lease), leaseMs (its length), maxPerEndpoint (most leases at once)}

  Output: {'ok'} | {'gone'} | {'disabled'} | {'backoff', retryInMs} | {'busy', retryInMs}
    retryInMs: until the back-off ends, or until the first lease expires.
]]
local p = cjson.decode(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
local state = redis.call('HMGET', KEYS[1], 'disabledAtMs', 'backoffUntilMs')
if state[1] then return {'disabled'} end
local backoffUntil = tonumber(state[2] or '0') or 0
if backoffUntil > now then return {'backoff', backoffUntil - now} end

redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZSCORE', KEYS[2], p.token) then return {'ok'} end
if redis.call('ZCARD', KEYS[2]) >= p.maxPerEndpoint then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'busy', math.max(1, tonumber(first[2]) - now)}
end
redis.call('ZADD', KEYS[2], now + p.leaseMs, p.token)
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], last[2])
return {'ok'}
