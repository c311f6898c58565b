--[[
  The chunk.deleted events of a source a script deletes, bounded: written
  here while the script's `budget` of events lasts, else its chunk ids are
  kept aside (renamed, O(1) whatever their number, expiring after `ttl`
  seconds) and the source listed in the knowledge base's pending emissions,
  for dropChunks.lua to write their events in batches afterwards. Needs the
  "feed" include. Returns the budget left and whether the events were left
  to dropChunks.
]]
local function feedDropBounded(f, chunkIds, dropIds, emits, documentId, nowMs, ttl, budget)
  local n = redis.call('HLEN', chunkIds)
  if n <= budget then
    feedDropAll(f, chunkIds, documentId)
    return budget - n, false
  end
  redis.call('RENAME', chunkIds, dropIds)
  redis.call('EXPIRE', dropIds, ttl)
  redis.call('ZADD', emits, nowMs, documentId)
  return budget, true
end
