--[[
  Writes one batch of a deleted source's chunk.deleted events: the delete
  (deleteSource.lua) of a source with many chunks kept their ids aside
  rather than write every event itself. `count` ids at a time, each event
  written as its id is forgotten, so a crash between batches loses none and
  writes none twice; its cost is the batch's, whatever the source's size.
  Once none is left (or the knowledge base is gone, whose feed ends with its
  knowledge_base.deleted), the source leaves the pending emissions.

  Input:
    KEYS[1] meta hash   KEYS[2] source record (deleted)   KEYS[3] chunk ids still to drop (hash)
    KEYS[4] the knowledge base's pending emissions (sorted set: documentId to ms)
    ARGV[1] JSON: {documentId, count, feed: see the feed include, outbox: see the outbox include}

  Output: {'ok', feedFrom, feedTo, left}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
    left: the ids still to drop.
]]
--- @include "feed"
--- @include "outbox"

local p = cjson.decode(ARGV[1])
local meta, record, drops, emits = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if redis.call('EXISTS', meta) == 0 then
  redis.call('UNLINK', drops)
  redis.call('ZREM', emits, p.documentId)
  return {'ok', '', '', 0}
end
local scan = redis.call('HSCAN', drops, 0, 'COUNT', p.count)[2]
local ids = {}
for i = 1, math.min(#scan, p.count * 2), 2 do
  ids[#ids + 1] = scan[i]
  feedEmit(p.feed, 'd', scan[i], p.documentId)
end
if #ids > 0 then redis.call('HDEL', drops, unpack(ids)) end
local left = redis.call('HLEN', drops)
-- The id is pending for this drop only when no record of it is left (ids are never used again).
if left == 0 and redis.call('EXISTS', record) == 0 then redis.call('ZREM', emits, p.documentId) end
local feedFrom, feedTo = feedFinish(p.feed)
outboxChanged(p.outbox, feedFrom, feedTo)
return {'ok', feedFrom, feedTo, left}
