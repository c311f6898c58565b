--[[
  Worker: records one delivery attempt at the head of the webhook's history
  and trims it, gives back the attempt's endpoint slot, and keeps the
  endpoint's health: a success clears it; a failure counts one more in a row,
  backs the endpoint off once `backoffAfter` failures are in a row (the wait
  doubles with each further failure, up to `backoffMaxMs`), and disables the
  webhook when every attempt has failed for `disableAfterMs`. Nothing is
  written when the webhook was deleted meanwhile (its history must not come
  back).

  Input:
    KEYS[1] webhook hash   KEYS[2] delivery list   KEYS[3] the endpoint's leases
    ARGV[1] JSON: {attempt (the attempt, as JSON), kept (attempts kept), token (the lease),
                   ok (the attempt succeeded), backoffAfter, backoffBaseMs, backoffMaxMs,
                   disableAfterMs, reason (of a disable)}

  Output: {'ok', state} | {'gone'}
    state: active | backoff | disabled
]]
local p = cjson.decode(ARGV[1])
redis.call('ZREM', KEYS[3], p.token)
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
redis.call('LPUSH', KEYS[2], p.attempt)
redis.call('LTRIM', KEYS[2], 0, p.kept - 1)

if p.ok then
  redis.call('HDEL', KEYS[1], 'failures', 'failingSinceMs', 'backoffUntilMs')
  return {'ok', 'active'}
end
if redis.call('HEXISTS', KEYS[1], 'disabledAtMs') == 1 then return {'ok', 'disabled'} end

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
local since = tonumber(redis.call('HGET', KEYS[1], 'failingSinceMs') or '')
if not since then
  since = now
  redis.call('HSET', KEYS[1], 'failingSinceMs', now)
end
if now - since >= p.disableAfterMs then
  redis.call('HSET', KEYS[1], 'disabledAtMs', now, 'disabledReason', p.reason)
  redis.call('HDEL', KEYS[1], 'backoffUntilMs')
  return {'ok', 'disabled'}
end
if failures < p.backoffAfter then return {'ok', 'active'} end
local wait = math.min(p.backoffMaxMs, p.backoffBaseMs * 2 ^ math.min(failures - p.backoffAfter, 30))
redis.call('HSET', KEYS[1], 'backoffUntilMs', now + wait)
return {'ok', 'backoff'}
