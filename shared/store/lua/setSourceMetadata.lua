--[[
  Replaces one source's metadata (an empty object removes it). Its chunks
  show the metadata, so when it changes each chunk the feed holds of the
  source must appear again as chunk.upserted: this script emits none (its
  cost is the same whatever the source's size); it leaves a marker on the
  record, `metaEmit` = '<seq>:<next chunk index>', and lists the source in
  the knowledge base's pending emissions, and emitMetadata writes the events
  in bounded batches, each advancing the marker. A later change takes a new
  sequence number, so its emission supersedes this one's.
  Metadata is compared as values, not as text: the same keys and values in
  another order are the same metadata, kept as stored, and emit nothing.

  Input:
    KEYS[1] meta hash   KEYS[2] source record   KEYS[3] chunk ids in the change feed
    KEYS[4] pending emissions (sorted set: documentId to ms)
    ARGV[1] JSON: {workspaceId (the caller's), documentId, metadata (JSON text, '' for none), now (ISO), nowMs}

  Output: {'ok', seq} | {'missing'} | {'forbidden'} | {'missing_source'}
    seq: the emission's sequence number, 0 when there is nothing to emit (the same metadata, or no chunk in the feed).
]]
--- @include "checkOwner"
--- @include "feed"
--- @include "lifecycle"

local p = cjson.decode(ARGV[1])
local meta, record, chunkIds, pending = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local refused = checkOwner(meta, p.workspaceId)
if refused then return {refused} end
if redis.call('EXISTS', record) == 0 then return {'missing_source'} end

local before = redis.call('HGET', record, 'metadata') or ''
local changed = not feedSameMetadata(before, p.metadata)
if changed then
  if p.metadata == '' then
    redis.call('HDEL', record, 'metadata')
  else
    redis.call('HSET', record, 'metadata', p.metadata)
  end
end
redis.call('HSET', record, 'updatedAt', p.now)
touchSource(meta, record)
touchKb(meta, p.now)
if not changed or redis.call('EXISTS', chunkIds) == 0 then return {'ok', 0} end
local seq = redis.call('HINCRBY', record, 'metaSeq', 1)
redis.call('HSET', record, 'metaEmit', seq .. ':0')
redis.call('ZADD', pending, p.nowMs, p.documentId)
return {'ok', seq}
