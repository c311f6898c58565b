--[[
  Emits one batch of a metadata change's chunk.upserted events (see
  setSourceMetadata): the chunks at `start` .. `start` + #entries - 1 of the
  source's chunks as the caller read them (`total` in all), each shown with
  the record's current metadata. Its cost is the batch's, whatever the
  source's size. Runs only while the record's marker is `seq:start`, and
  advances it atomically with the events, so a crash between batches loses
  none: the reconciler resumes at the marker (an event may repeat; upserts
  are idempotent). When the chunks the feed holds are no longer the ones the
  caller read (a run rewrote them meanwhile), nothing is emitted, the marker
  goes back to the first chunk and the caller reads them again.

  Input:
    KEYS[1] meta hash   KEYS[2] source record   KEYS[3] chunk ids in the change feed
    KEYS[4] pending emissions (sorted set: documentId to ms)
    ARGV[1] JSON: {documentId, seq, start, total, nowMs, entries: [{i: chunk id, g: digest, j: chunk JSON}],
                   feed: see the feed include, outbox: see the outbox include}

  Output: {'ok', feedFrom, feedTo, next} | {'missing_source'} | {'superseded'} | {'moved'}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
    next: the index of the next chunk to emit; the emission is over when it reaches total.
    superseded: the marker is not at this batch (a later change, or another caller's batch).
]]
--- @include "feed"
--- @include "outbox"

local p = cjson.decode(ARGV[1])
local meta, record, chunkIds, pending = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if redis.call('EXISTS', record) == 0 then
  redis.call('ZREM', pending, p.documentId)
  return {'missing_source'}
end
-- The pending set also lists the source while a large write's chunks are being emitted (emitChunks).
local function done()
  if not redis.call('HGET', record, 'chunkEmit') then redis.call('ZREM', pending, p.documentId) end
end
local marker = redis.call('HGET', record, 'metaEmit')
if not marker then done() end
if marker ~= p.seq .. ':' .. p.start then return {'superseded'} end

local moved = redis.call('HLEN', chunkIds) ~= p.total
if not moved and #p.entries > 0 then
  local ids = {}
  for k, e in ipairs(p.entries) do ids[k] = e.i end
  local digests = redis.call('HMGET', chunkIds, unpack(ids))
  for k, e in ipairs(p.entries) do
    if digests[k] ~= e.g then moved = true break end
  end
end
if moved then
  redis.call('HSET', record, 'metaEmit', p.seq .. ':0')
  redis.call('ZADD', pending, p.nowMs, p.documentId)
  return {'moved'}
end

if #p.entries > 0 then
  local source = feedSource(record)
  for _, e in ipairs(p.entries) do feedEmit(p.feed, 'u', e.i, p.documentId, e.j, source) end
end
local nextIndex = p.start + #p.entries
if nextIndex >= p.total then
  redis.call('HDEL', record, 'metaEmit')
  done()
else
  redis.call('HSET', record, 'metaEmit', p.seq .. ':' .. nextIndex)
  redis.call('ZADD', pending, p.nowMs, p.documentId)
end
local feedFrom, feedTo = feedFinish(p.feed)
outboxChanged(p.outbox, feedFrom, feedTo)
return {'ok', feedFrom, feedTo, nextIndex}
