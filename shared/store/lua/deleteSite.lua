--[[
  Deletes a site with every page its discoveries added, and every key those
  pages own, in one step.

  Input:
    KEYS[1] meta hash   KEYS[2] source id list   KEYS[3] active sorted set   KEYS[4] fingerprint hash
    KEYS[5] site id list   KEYS[6] site record   KEYS[7] site's miss counts
    ARGV[1] JSON: {workspaceId (the caller's), siteId, now (ISO), prefixes: {record, text, blob, markdown, chunks, chunkIds},
                   feed: see the feed include, outbox: see the outbox include}
            a prefix .. documentId is that source's key of that kind

  Output: {'ok', removed, feedFrom, feedTo} | {'missing'} | {'forbidden'} | {'missing_site'}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
]]
--- @include "checkOwner"
--- @include "feed"
--- @include "lifecycle"
--- @include "outbox"
--- @include "storedBytes"

local p = cjson.decode(ARGV[1])
local meta, ids, active, fingerprints = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local refused = checkOwner(meta, p.workspaceId)
if refused then return {refused} end
local state = siteState(KEYS[6])
if state == '' then return {'missing_site'} end
moveSite(meta, KEYS[6], state, nil)
local at = p.prefixes
local removed = 0
for _, id in ipairs(redis.call('LRANGE', ids, 0, -1)) do
  local record = at.record .. id
  if redis.call('HGET', record, 'siteId') == p.siteId then
    local st = redis.call('HGET', record, 'status')
    local fingerprint = redis.call('HGET', record, 'fingerprint')
    if fingerprint and redis.call('HGET', fingerprints, fingerprint) == id then redis.call('HDEL', fingerprints, fingerprint) end
    moveStatus(meta, record, st, nil)
    dropBytes(meta, record)
    redis.call('LREM', ids, 0, id)
    redis.call('ZREM', active, id)
    feedDropAll(p.feed, at.chunkIds .. id, id)
    redis.call('DEL', record, at.text .. id, at.blob .. id, at.markdown .. id, at.chunks .. id)
    removed = removed + 1
  end
end
local feedFrom, feedTo = feedFinish(p.feed)
redis.call('LREM', KEYS[5], 0, p.siteId)
redis.call('DEL', KEYS[6], KEYS[7])
touchKb(meta, p.now)
outboxChanged(p.outbox, feedFrom, feedTo)
return {'ok', removed, feedFrom, feedTo}
