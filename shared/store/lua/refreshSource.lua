--[[
  Puts a ready or failed URL source back to pending under a new run, to be
  fetched again. Its text, Markdown and chunks stay until the new run ends,
  so content found unchanged needs no new extraction.

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set   KEYS[3] source record
    ARGV[1] JSON: {workspaceId (the caller's), documentId, now (ISO), nowMs}

  Output: {'ok', run} | {'missing'} | {'forbidden'} | {'missing_source'} | {'not_url'} | {'busy', status}
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
if redis.call('HGET', record, 'type') ~= 'url' then return {'not_url'} end
if not FINAL_STATUS[st] then return {'busy', st} end
moveStatus(meta, record, st, 'pending')
local run = newRun(active, record, p.documentId, p.now, p.nowMs)
redis.call('HSET', record, 'refreshFrom', st)
touchKb(meta, p.now)
return {'ok', run}
