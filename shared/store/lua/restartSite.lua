--[[
  Starts a site's discovery again (a refresh): the site goes back to
  discovering under a new run. Refused while a discovery runs.

  Input:
    KEYS[1] meta hash   KEYS[2] site record
    ARGV[1] JSON: {workspaceId (the caller's), now (ISO)}

  Output: {'ok', run, ...record} | {'missing'} | {'forbidden'} | {'missing_site'} | {'busy', ...record}

  record: the site's record (after the move for 'ok'), as HGETALL gives it, so the
  caller enqueues and answers without reading it again.
]]
--- @include "checkOwner"
--- @include "lifecycle"

local p = cjson.decode(ARGV[1])
local meta, site = KEYS[1], KEYS[2]
local refused = checkOwner(meta, p.workspaceId)
if refused then return {refused} end
local state = siteState(site)
if state == '' then return {'missing_site'} end
if state == 'discovering' then return {'busy', unpack(redis.call('HGETALL', site))} end
moveSite(meta, site, state, 'discovering')
local run = redis.call('HINCRBY', site, 'run', 1)
redis.call('HSET', site, 'updatedAt', p.now)
redis.call('HDEL', site, 'error')
touchKb(meta, p.now)
return {'ok', run, unpack(redis.call('HGETALL', site))}
