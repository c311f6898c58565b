--[[
  API: gives a webhook a new signing secret. The one it replaces keeps
  signing beside it until `graceMs` from now (Standard Webhooks lets a
  request carry several signatures), so receivers can switch without losing
  a delivery; a grace of 0 drops it at once.

  Input:
    KEYS[1] webhook hash
    ARGV[1] JSON: {workspaceId (the caller's), secret (the new one), graceMs}

  Output: {'ok', previousUntilMs} | {'missing'} | {'forbidden'}
    previousUntilMs: until when the previous secret signs too; 0 when it does not.
]]
--- @include "checkOwner"

local p = cjson.decode(ARGV[1])
local refused = checkOwner(KEYS[1], p.workspaceId)
if refused then return {refused} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local old = redis.call('HGET', KEYS[1], 'secret')
redis.call('HSET', KEYS[1], 'secret', p.secret)
if p.graceMs > 0 then
  redis.call('HSET', KEYS[1], 'previousSecret', old, 'previousSecretUntilMs', now + p.graceMs)
  return {'ok', now + p.graceMs}
end
redis.call('HDEL', KEYS[1], 'previousSecret', 'previousSecretUntilMs')
return {'ok', 0}
