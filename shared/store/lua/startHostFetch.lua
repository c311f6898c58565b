--[[
  Worker: records the start of a request to one host, if the last one
  started at least the spacing ago (by this Redis's clock, shared by every
  replica). Called by a lease holder right before its first request, so the
  spacing holds where the host sees it.

  Input:
    KEYS[1] the host's next allowed start (ms; expires with the spacing)
    ARGV[1] JSON: {spacingMs (least time between two starts)}

  Output: {'ok'} | {'spacing', retryInMs}
    retryInMs: until the next start is allowed.
]]
local spacingMs = cjson.decode(ARGV[1]).spacingMs
if spacingMs <= 0 then return {'ok'} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nextStart = tonumber(redis.call('GET', KEYS[1]) or '0')
if nextStart > now then return {'spacing', nextStart - now} end
redis.call('SET', KEYS[1], now + spacingMs, 'PX', spacingMs)
return {'ok'}
