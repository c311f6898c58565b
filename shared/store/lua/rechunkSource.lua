--[[
  Worker: replaces a ready source's chunks with ones cut from the same
  Markdown under its knowledge base's current chunking settings. Its status
  does not move: only the chunks, their count and their settings tag change.

  Input:
    KEYS[1] meta hash   KEYS[2] source record   KEYS[3] chunk list   KEYS[4] chunk ids in the change feed
    KEYS[5] text   KEYS[6] Markdown (read for the source's stored bytes)
    ARGV[1] JSON: {documentId, run, chunking (tag the chunks were cut with), defaultChunking (tag when the
                   knowledge base has none), now (ISO), chunks: [entry as JSON string...],
                   feedChunks: the chunks as the change feed shows them, feed: see the feed include}

  Output: {'ok', feedFrom, feedTo} | {'gone'} | {'not_ready'} | {'stale'}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
    stale: the source ran again since its Markdown was read, or the settings changed meanwhile.
]]
--- @include "feed"
--- @include "lifecycle"
--- @include "storedBytes"

local p = cjson.decode(ARGV[1])
local meta, record, chunkList, chunkIds = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if redis.call('EXISTS', meta) == 0 then return {'gone'} end
local st = redis.call('HGET', record, 'status')
if not st then return {'gone'} end
if st ~= 'ready' then return {'not_ready'} end
if redis.call('HGET', record, 'run') ~= p.run then return {'stale'} end
local chunkMax = redis.call('HGET', meta, 'chunkMaxTokens')
local current = p.defaultChunking
if chunkMax then current = chunkMax .. '/' .. (redis.call('HGET', meta, 'chunkOverlapTokens') or '0') end
if current ~= p.chunking then return {'stale'} end
redis.call('DEL', chunkList)
-- RPUSH in slices: unpack() of a very long list would overflow the Lua stack.
for i = 1, #p.chunks, 500 do
  redis.call('RPUSH', chunkList, unpack(p.chunks, i, math.min(i + 499, #p.chunks)))
end
feedReplace(p.feed, chunkIds, record, p.documentId, p.feedChunks)
setBytes(meta, record, 'extractedBytes', redis.call('STRLEN', KEYS[5]) + redis.call('STRLEN', KEYS[6]) + extractionBytes('', '', p.chunks))
redis.call('HSET', record, 'chunkCount', #p.chunks, 'chunking', p.chunking, 'updatedAt', p.now)
touchSource(meta, record)
touchKb(meta, p.now)
local feedFrom, feedTo = feedFinish(p.feed)
return {'ok', feedFrom, feedTo}
