--[[
  The guard of every worker transition: the knowledge base and the source
  still exist and the job belongs to the source's current run. A finished
  source is never changed again, so a duplicate or late job is a no-op.
  Returns the source's status when the transition may go on, else nil and
  the reason: 'gone', 'stale', or the final status ('ready' or 'failed').
]]
local function checkRun(metaKey, docKey, run)
  if redis.call('EXISTS', metaKey) == 0 then return nil, 'gone' end
  local st = redis.call('HGET', docKey, 'status')
  if not st then return nil, 'gone' end
  if redis.call('HGET', docKey, 'run') ~= run then return nil, 'stale' end
  if st == 'ready' or st == 'failed' then return nil, st end
  return st
end
