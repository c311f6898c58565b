--[[
  Puts a ready or failed URL source back to pending under a new run, to be
  fetched again. Its text, Markdown and chunks stay until the new run ends,
  so content found unchanged needs no new extraction.

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set   KEYS[3] source record
    ARGV[1] JSON: {workspaceId (the caller's), documentId, now (ISO), nowMs, fetchedAfter (ISO or '')}

  fetchedAfter: a refresh by hand under REFRESH_COOLDOWN_SECONDS; a ready source
  last fetched (checkedAt, else updatedAt) after it is left as it is and answered
  'cooling' with its record. Both are toISOString() texts, which sort as they
  compare in time.
  record: the source's record (after the move for 'ok'), as HGETALL gives it.

  Output: {'ok', run, ...record} | {'missing'} | {'forbidden'} | {'missing_source'} | {'not_url'} | {'busy', status} | {'cooling', ...record}
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
if st == 'ready' and p.fetchedAfter ~= '' then
  local last = redis.call('HGET', record, 'checkedAt') or redis.call('HGET', record, 'updatedAt') or ''
  if last > p.fetchedAfter then return {'cooling', unpack(redis.call('HGETALL', record))} end
end
moveStatus(meta, record, st, 'pending')
local run = newRun(active, record, p.documentId, p.now, p.nowMs)
redis.call('HSET', record, 'refreshFrom', st)
touchKb(meta, p.now)
return {'ok', run, unpack(redis.call('HGETALL', record))}
