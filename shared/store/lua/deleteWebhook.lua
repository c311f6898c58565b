--[[
  API: deletes a webhook and its delivery history. Deliveries still queued
  find the hash gone and stop.

  Input:
    KEYS[1] webhook hash   KEYS[2] delivery list
    ARGV[1] JSON: {workspaceId (the caller's)}

  Output: {'ok'} | {'missing'} | {'forbidden'}
]]
--- @include "checkOwner"

local refused = checkOwner(KEYS[1], cjson.decode(ARGV[1]).workspaceId)
if refused then return {refused} end
redis.call('DEL', KEYS[1], KEYS[2])
return {'ok'}
