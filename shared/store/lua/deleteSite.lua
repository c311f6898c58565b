--[[
  Deletes a site with every page its discoveries added, and every key those
  pages own, in one step. The pages' chunk.deleted events are written here up
  to `dropInline` of them; the chunk ids of the pages past that are kept
  aside for dropChunks to write their events in batches (see the dropLater
  include), so the script's time follows the knowledge base's list of
  sources, not the chunks of the site.

  Input:
    KEYS[1] meta hash   KEYS[2] source id list   KEYS[3] active sorted set   KEYS[4] fingerprint hash
    KEYS[5] site id list   KEYS[6] site record   KEYS[7] site's miss counts
    KEYS[8] the knowledge base's pending emissions (sorted set: documentId to ms)
    ARGV[1] JSON: {workspaceId (the caller's), siteId, now (ISO), nowMs, dropInline, dropTtl,
                   prefixes: {record, text, blob, markdown, chunks, chunkIds, dropIds},
                   feed: see the feed include, outbox: see the outbox include}
            a prefix .. documentId is that source's key of that kind

  Output: {'ok', removed, feedFrom, feedTo, ...dropping} | {'missing'} | {'forbidden'} | {'missing_site'}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
    dropping: the pages whose chunk.deleted events are left to dropChunks.
]]
--- @include "checkOwner"
--- @include "feed"
--- @include "dropLater"
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
local budget = p.dropInline
local dropping = {}
-- A page's place in the list is marked, and the marks removed in one pass at the end (no id holds ':').
local GONE = ':'
for i, id in ipairs(redis.call('LRANGE', ids, 0, -1)) do
  local record = at.record .. id
  if redis.call('HGET', record, 'siteId') == p.siteId then
    local st = redis.call('HGET', record, 'status')
    local fingerprint = redis.call('HGET', record, 'fingerprint')
    if fingerprint and redis.call('HGET', fingerprints, fingerprint) == id then redis.call('HDEL', fingerprints, fingerprint) end
    moveStatus(meta, record, st, nil)
    dropBytes(meta, record)
    redis.call('LSET', ids, i - 1, GONE)
    redis.call('ZREM', active, id)
    local later
    budget, later = feedDropBounded(p.feed, at.chunkIds .. id, at.dropIds .. id, KEYS[8], id, p.nowMs, p.dropTtl, budget)
    if later then dropping[#dropping + 1] = id end
    redis.call('DEL', record, at.text .. id, at.blob .. id, at.markdown .. id, at.chunks .. id)
    removed = removed + 1
  end
end
if removed > 0 then redis.call('LREM', ids, 0, GONE) end
local feedFrom, feedTo = feedFinish(p.feed)
redis.call('LREM', KEYS[5], 0, p.siteId)
redis.call('DEL', KEYS[6], KEYS[7])
touchKb(meta, p.now)
outboxChanged(p.outbox, feedFrom, feedTo)
return {'ok', removed, feedFrom, feedTo, unpack(dropping)}
