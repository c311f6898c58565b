--[[
  API: changes a webhook's URL, events, description and whether it is on, in
  one step. A new URL starts its endpoint's health afresh (failures, back-off);
  `enabled` true clears a disable as POST .../enable does, false disables it
  with `reason`. Fields not given are left as they are.

  Input:
    KEYS[1] webhook hash
    ARGV[1] JSON: {workspaceId (the caller's), url?, events? (JSON array, as stored),
                   description? ('' clears it), enabled?, nowMs, reason (of a disable)}

  Output: {'ok'} | {'missing'} | {'forbidden'}
]]
--- @include "checkOwner"

local p = cjson.decode(ARGV[1])
local refused = checkOwner(KEYS[1], p.workspaceId)
if refused then return {refused} end

if type(p.url) == 'string' and p.url ~= redis.call('HGET', KEYS[1], 'url') then
  redis.call('HSET', KEYS[1], 'url', p.url)
  redis.call('HDEL', KEYS[1], 'failures', 'failingSinceMs', 'backoffUntilMs')
end
if type(p.events) == 'string' then redis.call('HSET', KEYS[1], 'events', p.events) end
if type(p.description) == 'string' then
  if p.description == '' then
    redis.call('HDEL', KEYS[1], 'description')
  else
    redis.call('HSET', KEYS[1], 'description', p.description)
  end
end
if p.enabled == true then
  redis.call('HDEL', KEYS[1], 'disabledAtMs', 'disabledReason', 'failures', 'failingSinceMs', 'backoffUntilMs')
elseif p.enabled == false and redis.call('HEXISTS', KEYS[1], 'disabledAtMs') == 0 then
  redis.call('HSET', KEYS[1], 'disabledAtMs', p.nowMs, 'disabledReason', p.reason)
end
return {'ok'}
