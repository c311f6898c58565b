--[[
  Replaces one source's metadata (an empty object removes it).

  Input:
    KEYS[1] meta hash   KEYS[2] source record
    ARGV[1] JSON: {workspaceId (the caller's), metadata (JSON text, '' for none), now (ISO)}

  Output: {'ok'} | {'missing'} | {'forbidden'} | {'missing_source'}
]]
--- @include "checkOwner"

local p = cjson.decode(ARGV[1])
local meta, record = KEYS[1], KEYS[2]
local refused = checkOwner(meta, p.workspaceId)
if refused then return {refused} end
if redis.call('EXISTS', record) == 0 then return {'missing_source'} end
if p.metadata == '' then
  redis.call('HDEL', record, 'metadata')
else
  redis.call('HSET', record, 'metadata', p.metadata)
end
redis.call('HSET', record, 'updatedAt', p.now)
redis.call('HSET', meta, 'updatedAt', p.now)
redis.call('HINCRBY', meta, 'rev', 1)
return {'ok'}
