--[[
  Reconciler: mends a source that the active index still lists although it
  has ended. The scripts that end a source take it out of the index in the
  same step, so such an entry means a write was applied in part: Redis killed
  while it wrote a script's effects to its AOF can leave the transaction torn,
  and a later restart (aof-load-truncated) applies the part that reached the
  disk. The source's counts are then off, and a ready source may lack its
  Markdown or chunks. This drops the entry, counts the knowledge base's
  sources again from their records, and puts a ready source whose extraction
  is incomplete back to pending under a new run (failed instead, when it is a
  file whose bytes are gone).

  Input:
    KEYS[1] meta hash   KEYS[2] source hash   KEYS[3] active sorted set   KEYS[4] source id list
    KEYS[5] text   KEYS[6] Markdown   KEYS[7] chunk list   KEYS[8] blob
    ARGV[1] document id   ARGV[2] now (ISO)   ARGV[3] now (ms)
    ARGV[4] prefix of the knowledge base's source hashes (same hash tag)
    ARGV[5] JSON of the error a source gets when it cannot be run again

  Output: {'active'} | {'gone'} | {'mended'} | {'rerun', run} | {'failed'}
    'active': the source is pending or processing, nothing was changed.
]]

local id = ARGV[1]
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('ZREM', KEYS[3], id)
  return {'gone'}
end
local st = redis.call('HGET', KEYS[2], 'status')
if st == 'pending' or st == 'processing' then return {'active'} end

local outcome, run = 'mended', nil
redis.call('ZREM', KEYS[3], id)
redis.call('HDEL', KEYS[2], 'claim', 'progress')
if st == 'ready' then
  local chunkCount = tonumber(redis.call('HGET', KEYS[2], 'chunkCount') or '0')
  -- Sources written before Markdown and chunks were kept have their text alone.
  local whole = redis.call('EXISTS', KEYS[5]) == 1 and redis.call('LLEN', KEYS[7]) == chunkCount
    and (chunkCount == 0 or redis.call('EXISTS', KEYS[6]) == 1)
  if not whole then
    redis.call('DEL', KEYS[5], KEYS[6], KEYS[7])
    if redis.call('HGET', KEYS[2], 'type') == 'file' and redis.call('EXISTS', KEYS[8]) == 0 then
      redis.call('HSET', KEYS[2], 'status', 'failed', 'error', ARGV[5], 'updatedAt', ARGV[2])
      redis.call('HDEL', KEYS[2], 'charCount', 'chunkCount', 'truncated', 'warnings')
      outcome = 'failed'
    else
      run = redis.call('HINCRBY', KEYS[2], 'run', 1)
      redis.call('HSET', KEYS[2], 'status', 'pending', 'updatedAt', ARGV[2])
      redis.call('ZADD', KEYS[3], ARGV[3], id)
      outcome = 'rerun'
    end
  end
end

-- The counts again, from the records: they are what the torn write left wrong.
local n = { pending = 0, processing = 0, ready = 0, failed = 0 }
for _, docId in ipairs(redis.call('LRANGE', KEYS[4], 0, -1)) do
  local s = redis.call('HGET', ARGV[4] .. docId, 'status')
  if s and n[s] then n[s] = n[s] + 1 end
end
redis.call('HSET', KEYS[1], 'n:pending', n.pending, 'n:processing', n.processing, 'n:ready', n.ready,
  'n:failed', n.failed, 'updatedAt', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return {outcome, run}
