--[[
  Reconciler: checks that a knowledge base's counters add up to its list of
  sources, and counts them again from the records when they do not. A torn
  write of the API's commit (Redis killed while it wrote the script's effects
  to its AOF, then restarted with aof-load-truncated) can leave sources added
  whose counters were not, so the knowledge base shows a wrong status for
  good. The check costs one LLEN and the counters; the recount reads every
  source record, so a knowledge base with more sources than maxSources is
  left for a pass with room. The recount also lists again in the active index
  a pending or processing source the torn write left out of it (so the
  reconciler sees to its job), and drops ids whose record was never written.

  Input:
    KEYS[1] meta hash   KEYS[2] source id list   KEYS[3] active sorted set
    ARGV[1] JSON: {recordPrefix (of the knowledge base's source records), maxSources, nowMs, outbox: see the outbox include}

  Output: {'consistent'} | {'gone'} | {'over_budget', sources} | {'recounted', settled, listed, ...counts}
    settled: the knowledge base's settle number when the counters showed a source in flight
      and the recount finds none (it had never settled), else 0;
    listed: active sources put back in the index; counts: after the recount, in the order of SOURCE_STATUSES.
]]
--- @include "lifecycle"
--- @include "outbox"

local p = cjson.decode(ARGV[1])
local meta, ids, active = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', meta) == 0 then return {'gone'} end
local total, activeBefore = 0, 0
for i, c in ipairs(readCounts(meta)) do
  total = total + c
  if ACTIVE_STATUS[SOURCE_STATUSES[i]] then activeBefore = activeBefore + c end
end
local sources = redis.call('LLEN', ids)
if total == sources then return {'consistent'} end
if sources > p.maxSources then return {'over_budget', sources} end

local n = {}
for _, s in ipairs(SOURCE_STATUSES) do n[s] = 0 end
local listed, ghosts = 0, {}
for _, id in ipairs(redis.call('LRANGE', ids, 0, -1)) do
  local s = redis.call('HGET', p.recordPrefix .. id, 'status')
  if not s then
    ghosts[#ghosts + 1] = id
  elseif n[s] then
    n[s] = n[s] + 1
    if ACTIVE_STATUS[s] and not redis.call('ZSCORE', active, id) then
      redis.call('ZADD', active, p.nowMs, id)
      listed = listed + 1
    end
  end
end
for _, id in ipairs(ghosts) do redis.call('LREM', ids, 0, id) end
writeCounts(meta, n)
touchKb(meta)
local settled, counts = 0, readCounts(meta)
if activeBefore > 0 then settled, counts = settleIfIdle(meta) end
outboxSettled(p.outbox, settled, counts)
return {'recounted', settled, listed, unpack(counts)}
