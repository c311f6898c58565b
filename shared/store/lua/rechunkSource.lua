--[[
  Worker: replaces a ready source's chunks with ones cut from the same
  Markdown under its knowledge base's current chunking settings. Its status
  does not move: only the chunks, their count and their settings tag change.

  Input:
    KEYS[1] meta hash   KEYS[2] source record   KEYS[3] chunk list   KEYS[4] chunk ids in the change feed
    KEYS[5] text   KEYS[6] Markdown (read for the source's stored bytes)
    KEYS[7] staged chunk list   KEYS[8] staged feed entries   KEYS[9] the source's pending feed entries
    KEYS[10] chunk ids that emission has shown   KEYS[11] the knowledge base's pending emissions
    ARGV[1] JSON: {documentId, run, chunking (tag the chunks were cut with), defaultChunking (tag when the
                   knowledge base has none), now (ISO), nowMs, chunks: [entry as JSON string...],
                   feedChunks: the chunks as the change feed shows them, feed: see the feed include,
                   staged: {chunks, feed, feedBytes, chunkBytes} when many chunks were staged in KEYS[7..8]
                     instead (see the stagedWrite include): then chunks and feedChunks are left out, and
                     the feed events are emitChunks' to write}

  Output: {'ok', feedFrom, feedTo, emitSeq} | {'unstaged'} | {'gone'} | {'not_ready'} | {'stale'}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
    emitSeq: the emission of the staged chunks' feed events this started (0 for none).
    unstaged: the staged values are not all there whole (they expired): nothing was written.
    stale: the source ran again since its Markdown was read, or the settings changed meanwhile.
]]
--- @include "feed"
--- @include "lifecycle"
--- @include "stagedWrite"
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
local staged, emitSeq, count = p.staged, 0, nil
if staged then
  if not (stagedList(KEYS[7], staged.chunks) and stagedList(KEYS[8], staged.feed)) then return {'unstaged'} end
  stagedInstall(KEYS[7], chunkList)
  emitSeq = chunkEmitStart(meta, record, KEYS[9], KEYS[10], KEYS[11], KEYS[8], staged.feedBytes, p.documentId, p.nowMs)
  setBytes(meta, record, 'extractedBytes', redis.call('STRLEN', KEYS[5]) + redis.call('STRLEN', KEYS[6]) + staged.chunkBytes)
  count = staged.chunks
else
  redis.call('UNLINK', chunkList)
  -- RPUSH in slices: unpack() of a very long list would overflow the Lua stack.
  for i = 1, #p.chunks, 500 do
    redis.call('RPUSH', chunkList, unpack(p.chunks, i, math.min(i + 499, #p.chunks)))
  end
  feedReplace(p.feed, chunkIds, record, p.documentId, p.feedChunks)
  setBytes(meta, record, 'extractedBytes', redis.call('STRLEN', KEYS[5]) + redis.call('STRLEN', KEYS[6]) + extractionBytes('', '', p.chunks))
  count = #p.chunks
end
redis.call('HSET', record, 'chunkCount', count, 'chunking', p.chunking, 'updatedAt', p.now)
touchSource(meta, record)
touchKb(meta, p.now)
local feedFrom, feedTo = feedFinish(p.feed)
return {'ok', feedFrom, feedTo, emitSeq}
