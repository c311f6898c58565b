--[[
  API: turns a webhook back on: clears its disable, its back-off and its
  count of failures, so the next delivery is tried at once.

  Input:
    KEYS[1] webhook hash
    ARGV[1] JSON: {workspaceId (the caller's)}

  Output: {'ok'} | {'missing'} | {'forbidden'}
]]
--- @include "checkOwner"

local refused = checkOwner(KEYS[1], cjson.decode(ARGV[1]).workspaceId)
if refused then return {refused} end
redis.call('HDEL', KEYS[1], 'disabledAtMs', 'disabledReason', 'failures', 'failingSinceMs', 'backoffUntilMs')
return {'ok'}
