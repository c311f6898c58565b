--[[
  Starts a new run of a source its caller has just moved to pending, and puts
  it in the active index: the one way a retry, a refresh and a repair hand a
  source to a worker again. Returns the new run.
]]
local function newRun(active, record, documentId, now, nowMs)
  local run = redis.call('HINCRBY', record, 'run', 1)
  redis.call('HDEL', record, 'error')
  redis.call('HSET', record, 'updatedAt', now)
  redis.call('ZADD', active, nowMs, documentId)
  return run
end
