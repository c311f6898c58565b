--[[
  Emits one batch of the feed events of a large write of a source's chunks
  (see the stagedWrite include): first the chunk.upserted of the new chunks
  whose digest differs from what the feed shows, `count` pending entries at
  a time; then a chunk.deleted for each chunk the feed shows that the write
  no longer has, a hash scan of `count` at a time. The chunk ids hash follows
  every event, so it stays what the feed has shown. Its cost is the batch's,
  whatever the source's size. The pending entries stay counted in the stored
  bytes (`emitBytes`) until the emission ends or is dropped. Runs only while the record's marker is
  `seq:phase:at`, and advances it atomically with the events, so a crash
  between batches loses none: the reconciler resumes at the marker. When the
  write is superseded (a later write of the chunks, or the source deleted),
  it drops the pending entries and emits nothing.

  Input:
    KEYS[1] meta hash   KEYS[2] source record   KEYS[3] chunk ids in the change feed
    KEYS[4] pending feed entries (list of {i, g, j} JSON)   KEYS[5] chunk ids this emission has shown (hash)
    KEYS[6] the knowledge base's pending emissions (sorted set: documentId to ms)
    ARGV[1] JSON: {documentId, seq, phase: 'u' | 'd', at (entry index, or scan cursor), count, maxBytes
                   (of entries a batch emits, past its first), nowMs,
                   feed: see the feed include, outbox: see the outbox include}

  Output: {'ok', feedFrom, feedTo, next} | {'missing_source'} | {'superseded'}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
    next: the marker after this batch ('' once the emission is over).
    superseded: the marker is not at this batch (a later write, or another caller's batch).
]]
--- @include "feed"
--- @include "outbox"
--- @include "storedBytes"

local p = cjson.decode(ARGV[1])
local meta, record, chunkIds, emitList, emitSeen, pending = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
if redis.call('EXISTS', record) == 0 then
  redis.call('UNLINK', emitList, emitSeen)
  redis.call('ZREM', pending, p.documentId)
  return {'missing_source'}
end
local marker = redis.call('HGET', record, 'chunkEmit')
if not marker then
  -- Superseded by a write inside a script: what it left pending goes.
  redis.call('UNLINK', emitList, emitSeen)
  setBytes(meta, record, 'emitBytes', 0)
  if not redis.call('HGET', record, 'metaEmit') then redis.call('ZREM', pending, p.documentId) end
  return {'superseded'}
end
if marker ~= p.seq .. ':' .. p.phase .. ':' .. p.at then return {'superseded'} end

local nextMarker
if p.phase == 'u' then
  local raw = redis.call('LRANGE', emitList, p.at, p.at + p.count - 1)
  local full = #raw == p.count
  -- Past maxBytes of entries the batch ends early (one entry at least): its events' cost is their bytes.
  local bytes = 0
  for k = 1, #raw do
    bytes = bytes + #raw[k]
    if k > 1 and bytes > p.maxBytes then
      for j = #raw, k, -1 do raw[j] = nil end
      full = true
      break
    end
  end
  if #raw > 0 then
    local entries, ids = {}, {}
    for k, r in ipairs(raw) do
      entries[k] = cjson.decode(r)
      ids[k] = entries[k].i
    end
    local shown = redis.call('HMGET', chunkIds, unpack(ids))
    local source = nil
    local pairsOut, seenOut = {}, {}
    for k, e in ipairs(entries) do
      if shown[k] ~= e.g then
        source = source or feedSource(record)
        feedEmit(p.feed, 'u', e.i, p.documentId, e.j, source)
        pairsOut[#pairsOut + 1] = e.i
        pairsOut[#pairsOut + 1] = e.g
      end
      seenOut[#seenOut + 1] = e.i
      seenOut[#seenOut + 1] = '1'
    end
    if #pairsOut > 0 then redis.call('HSET', chunkIds, unpack(pairsOut)) end
    redis.call('HSET', emitSeen, unpack(seenOut))
  end
  if not full then nextMarker = p.seq .. ':d:0' else nextMarker = p.seq .. ':u:' .. (p.at + #raw) end
else
  local scan = redis.call('HSCAN', chunkIds, p.at, 'COUNT', p.count)
  local flat = scan[2]
  if #flat > 0 then
    local ids = {}
    for i = 1, #flat, 2 do ids[#ids + 1] = flat[i] end
    local kept = redis.call('HMGET', emitSeen, unpack(ids))
    local gone = {}
    for k, id in ipairs(ids) do
      if not kept[k] then
        feedEmit(p.feed, 'd', id, p.documentId)
        gone[#gone + 1] = id
      end
    end
    if #gone > 0 then redis.call('HDEL', chunkIds, unpack(gone)) end
  end
  if scan[1] ~= '0' then nextMarker = p.seq .. ':d:' .. scan[1] end
end

if nextMarker then
  redis.call('HSET', record, 'chunkEmit', nextMarker)
  redis.call('ZADD', pending, p.nowMs, p.documentId)
else
  redis.call('HDEL', record, 'chunkEmit')
  redis.call('UNLINK', emitList, emitSeen)
  setBytes(meta, record, 'emitBytes', 0)
  if not redis.call('HGET', record, 'metaEmit') then redis.call('ZREM', pending, p.documentId) end
end
local feedFrom, feedTo = feedFinish(p.feed)
outboxChanged(p.outbox, feedFrom, feedTo)
return {'ok', feedFrom, feedTo, nextMarker or ''}
