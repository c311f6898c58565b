--[[
  Reconciler: mends a source that the active index still lists although it
  has ended. The scripts that end a source take it out of the index in the
  same step, so such an entry means a write was applied in part: Redis killed
  while it wrote a script's effects to its AOF can leave the transaction torn,
  and a later restart (aof-load-truncated) applies the part that reached the
  disk. The source's counts are then off, and a ready source may lack its
  Markdown or chunks. This drops the entry, puts a ready source whose
  extraction is incomplete back to pending under a new run (failed instead,
  when it is a file whose bytes are gone), and counts the knowledge base's
  sources again from their records.

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set   KEYS[3] source id list
    KEYS[4] source record   KEYS[5] text   KEYS[6] blob   KEYS[7] Markdown   KEYS[8] chunk list
    KEYS[9] chunk ids in the change feed
    ARGV[1] JSON: {documentId, now (ISO), nowMs, recordPrefix (of the knowledge base's source records),
                   error (JSON of the error a source gets when it cannot be run again), feed: see the feed include,
                   outbox: see the outbox include}

  Output: {'active'} | {'gone'} | {'unlisted'} | {'mended', settled, ...counts} | {'rerun', run} | {'failed', settled, ...counts}
    settled: the knowledge base's settle number when the recount leaves nothing in flight
      (its settle was lost with the torn write), else 0; counts: its counts after the
      recount, in the order of SOURCE_STATUSES.
    'active': the source is pending or processing, nothing was changed.
    'unlisted': the index no longer lists the source (its end took it out after
      the reconciler read the index), nothing was changed.
]]
--- @include "feed"
--- @include "lifecycle"
--- @include "outbox"
--- @include "newRun"
--- @include "storedBytes"

local p = cjson.decode(ARGV[1])
local meta, active, ids, record = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local text, blob, markdown, chunkList = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local id = p.documentId
if redis.call('EXISTS', meta) == 0 or redis.call('EXISTS', record) == 0 then
  redis.call('ZREM', active, id)
  return {'gone'}
end
-- A source that ended whole left the index in the same step: the reconciler read
-- the index before that end. Recounting here would cost a read of every source.
if not redis.call('ZSCORE', active, id) then return {'unlisted'} end
local st = redis.call('HGET', record, 'status')
if ACTIVE_STATUS[st] then return {'active'} end

local outcome, run = 'mended', nil
redis.call('ZREM', active, id)
redis.call('HDEL', record, 'claim', 'progress')
if st == 'ready' then
  local chunkCount = tonumber(redis.call('HGET', record, 'chunkCount') or '0')
  -- Sources written before Markdown and chunks were kept have their text alone.
  local whole = redis.call('EXISTS', text) == 1 and redis.call('LLEN', chunkList) == chunkCount
    and (chunkCount == 0 or redis.call('EXISTS', markdown) == 1)
  if not whole then
    redis.call('DEL', text, markdown, chunkList)
    setBytes(meta, record, 'extractedBytes', 0)
    feedDropAll(p.feed, KEYS[9], id, record)
    feedFinish(p.feed)
    if redis.call('HGET', record, 'type') == 'file' and redis.call('EXISTS', blob) == 0 then
      moveStatus(meta, record, st, 'failed')
      redis.call('HSET', record, 'error', p.error, 'updatedAt', p.now)
      redis.call('HDEL', record, 'charCount', 'chunkCount', 'truncated', 'warnings')
      outcome = 'failed'
    else
      moveStatus(meta, record, st, 'pending')
      run = newRun(active, record, id, p.now, p.nowMs)
      outcome = 'rerun'
    end
  end
end

-- The counts again, from the records: they are what the torn write left wrong.
writeCounts(meta, countStatuses(ids, p.recordPrefix))
touchKb(meta, p.now)
if outcome == 'rerun' then return {outcome, run} end
local settled, counts = settleIfIdle(meta)
outboxSettled(p.outbox, settled, counts)
return {outcome, settled, unpack(counts)}
