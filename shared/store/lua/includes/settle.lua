--- @include "lifecycle"
--[[
  Settles a knowledge base that has nothing left in flight: no source active
  and no site still discovering. Bumps its settle number and returns it (the
  id of its `knowledge_base.settled` event), else 0; with the counts, in the
  order of SOURCE_STATUSES, for the event.
]]
local function settleIfIdle(meta)
  local counts = readCounts(meta)
  for i, s in ipairs(SOURCE_STATUSES) do
    if ACTIVE_STATUS[s] and counts[i] > 0 then return 0, counts end
  end
  if tonumber(redis.call('HGET', meta, 'sitesDiscovering') or '0') > 0 then return 0, counts end
  return redis.call('HINCRBY', meta, 'settles', 1), counts
end
