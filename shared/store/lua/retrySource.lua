--[[
  Puts a failed source back to pending under a new run.

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set   KEYS[3] source record   KEYS[4] blob
    ARGV[1] JSON: {workspaceId (the caller's), documentId, now (ISO), nowMs}

  record: the source's record after the move, as HGETALL gives it (field, value, ...),
  so the caller answers and enqueues without reading it again.

  Output: {'ok', run, ...record} | {'missing'} | {'forbidden'} | {'missing_source'} | {'not_failed'} | {'no_bytes'}
]]
--- @include "checkOwner"
--- @include "lifecycle"
--- @include "newRun"

local p = cjson.decode(ARGV[1])
local meta, active, record = KEYS[1], KEYS[2], KEYS[3]
local refused = checkOwner(meta, p.workspaceId)
if refused then return {refused} end
local st = redis.call('HGET', record, 'status')
if not st then return {'missing_source'} end
if st ~= 'failed' then return {'not_failed'} end
if redis.call('HGET', record, 'type') == 'file' and redis.call('EXISTS', KEYS[4]) == 0 then return {'no_bytes'} end
moveStatus(meta, record, st, 'pending')
local run = newRun(active, record, p.documentId, p.now, p.nowMs)
touchKb(meta, p.now)
return {'ok', run, unpack(redis.call('HGETALL', record))}
