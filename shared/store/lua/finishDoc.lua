--[[
  Worker: records the outcome of a source once; a duplicate or stale run
  writes nothing.

  Input:
    KEYS[1] meta hash   KEYS[2] source hash   KEYS[3] active sorted set
    KEYS[4] text   KEYS[5] blob   KEYS[6] Markdown   KEYS[7] chunk list
    ARGV[1] run   ARGV[2] now (ISO)   ARGV[3] status: 'ready' | 'failed'
    ARGV[4] JSON of the source fields to set   ARGV[5] text (ready only)
    ARGV[6] seconds the blob is kept at most for a later retry ('0' drops it)   ARGV[7] document id
    ARGV[8] Markdown (ready only)   ARGV[9] JSON array of chunk entries, each a JSON string (ready only)
    ARGV[10] '1' when a refresh found the content unchanged: text, Markdown and chunks stay
    ARGV[11] the attempt's job lock token ('' for none: the claim is not checked)

  Output: {'ok', pending, processing, ready, failed, settled} | {'gone'} | {'stale'} | {'ready'} | {'failed'}
    The counts are the knowledge base's after this change; `settled` is the
    knowledge base's settle number when this change left no source pending or
    processing, else 0. The source keeps it as `settledSeq`, so a job run again
    after a crash can tell that it was the one that settled it.
]]
--- @include "checkRun"
--- @include "hsetTable"

local st, refused = checkRun(KEYS[1], KEYS[2], ARGV[1], ARGV[11])
if not st then return {refused} end
redis.call('HDEL', KEYS[2], 'error', 'refreshFrom', 'progress', 'claim')
hsetTable(KEYS[2], cjson.decode(ARGV[4]))
redis.call('HSET', KEYS[2], 'status', ARGV[3], 'updatedAt', ARGV[2])
local keep = ARGV[10] == '1'
if not keep then redis.call('DEL', KEYS[4], KEYS[6], KEYS[7]) end
if ARGV[3] == 'ready' and not keep then
  redis.call('SET', KEYS[4], ARGV[5])
  redis.call('SET', KEYS[6], ARGV[8])
  local chunks = cjson.decode(ARGV[9])
  -- RPUSH in slices: unpack() of a very long list would overflow the Lua stack.
  for i = 1, #chunks, 500 do
    redis.call('RPUSH', KEYS[7], unpack(chunks, i, math.min(i + 499, #chunks)))
  end
end
local keep = tonumber(ARGV[6])
if keep > 0 then
  local ttl = redis.call('TTL', KEYS[5])
  if ttl == -1 or ttl > keep then redis.call('EXPIRE', KEYS[5], keep) end
else
  redis.call('DEL', KEYS[5])
end
redis.call('ZREM', KEYS[3], ARGV[7])
redis.call('HINCRBY', KEYS[1], 'n:' .. st, -1)
redis.call('HINCRBY', KEYS[1], 'n:' .. ARGV[3], 1)
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
local function count(status) return tonumber(redis.call('HGET', KEYS[1], 'n:' .. status) or '0') end
local pending, processing = count('pending'), count('processing')
local settled = 0
redis.call('HDEL', KEYS[2], 'settledSeq')
if pending + processing <= 0 then
  settled = redis.call('HINCRBY', KEYS[1], 'settles', 1)
  redis.call('HSET', KEYS[2], 'settledSeq', settled)
end
return {'ok', pending, processing, count('ready'), count('failed'), settled}
