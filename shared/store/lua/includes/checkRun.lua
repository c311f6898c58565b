--- @include "lifecycle"
--[[
  The guard of every worker transition: the knowledge base and the source
  still exist and the job belongs to the source's current run. A finished
  source is never changed again, so a duplicate or late job is a no-op.
  With `claim` (the job lock token of the attempt that calls), the source
  must also still be claimed by that attempt: a worker whose lock lapsed
  while it was frozen, and whose job another worker has claimed since, is
  'stale' too. Sources claimed without a token are not checked.
  Returns the source's status when the transition may go on, else nil and
  the reason: 'gone', 'stale', or the final status (see FINAL_STATUSES).
  Needs the "lifecycle" include (for FINAL_STATUS) after it.
]]
local function checkRun(metaKey, recordKey, run, claim)
  if redis.call('EXISTS', metaKey) == 0 then return nil, 'gone' end
  local v = redis.call('HMGET', recordKey, 'status', 'run', 'claim')
  local st = v[1]
  if not st then return nil, 'gone' end
  if v[2] ~= run then return nil, 'stale' end
  if FINAL_STATUS[st] then return nil, st end
  if claim and claim ~= '' and v[3] and v[3] ~= claim then return nil, 'stale' end
  return st
end
