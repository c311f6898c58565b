--[[
  API: deletes a webhook and its delivery history. Deliveries still queued
  find the hash gone and stop.

  Input:
    KEYS[1] webhook hash   KEYS[2] delivery list
    ARGV[1] workspace id of the caller

  Output: {'ok'} | {'missing'} | {'forbidden'}
]]
--- @include "checkOwner"

local refused = checkOwner(KEYS[1], ARGV[1])
if refused then return {refused} end
redis.call('DEL', KEYS[1], KEYS[2])
return {'ok'}
