--[[
  Replaces one source's metadata (an empty object removes it). Its chunks
  show the metadata, so when it changes each chunk the feed holds of the
  source appears again as chunk.upserted; the caller read the chunks as
  `entries` (see feedReplace), and when they are no longer the ones the feed
  holds (a run rewrote them meanwhile) nothing is written and it reads again.
  Metadata is compared as values, not as text: the same keys and values in
  another order are the same metadata, kept as stored, and emit nothing.

  Input:
    KEYS[1] meta hash   KEYS[2] source record   KEYS[3] chunk ids in the change feed
    ARGV[1] JSON: {workspaceId (the caller's), documentId, metadata (JSON text, '' for none), now (ISO),
                   entries: [{i: chunk id, g: digest, j: chunk JSON}], feed: see the feed include}

  Output: {'ok', feedFrom, feedTo} | {'missing'} | {'forbidden'} | {'missing_source'} | {'moved'}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
]]
--- @include "checkOwner"
--- @include "feed"

local p = cjson.decode(ARGV[1])
local meta, record, chunkIds = KEYS[1], KEYS[2], KEYS[3]
local refused = checkOwner(meta, p.workspaceId)
if refused then return {refused} end
if redis.call('EXISTS', record) == 0 then return {'missing_source'} end
local held = redis.call('HGETALL', chunkIds)
if #held ~= 2 * #p.entries then return {'moved'} end
local digests = {}
for i = 1, #held, 2 do digests[held[i]] = held[i + 1] end
for _, e in ipairs(p.entries) do
  if digests[e.i] ~= e.g then return {'moved'} end
end

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
redis.call('HSET', meta, 'updatedAt', p.now)
redis.call('HINCRBY', meta, 'rev', 1)
if changed and #p.entries > 0 then
  local source = feedSource(record)
  for _, e in ipairs(p.entries) do feedEmit(p.feed, 'u', e.i, p.documentId, e.j, source) end
end
local feedFrom, feedTo = feedFinish(p.feed)
return {'ok', feedFrom, feedTo}
