--[[
  Deletes a site with every page its discoveries added, and every key those
  pages own, in bounded steps. The first call (`sweep` false) makes the site
  gone at once: its record and its place among the knowledge base's sites
  go, so no discovery of it adds a page again, and the site is listed in
  KEYS[9] until its pages are gone. Each call then deletes up to `pageMax`
  of its pages, first in the knowledge base's list first, writing their
  chunk.deleted events up to `dropInline` of them: a page with more chunks
  than that keeps its ids aside for dropChunks (see the dropLater include),
  and a call stops before a page whose events would not fit. The call that
  finds no page past those it deleted scanned the whole list in one step:
  the site leaves KEYS[9], and the delete is done. Later calls (`sweep`
  true) go on from nothing but the site's id: the API's DELETE makes them
  all before it answers, the reconciler finishes one a crash cut short.

  Input:
    KEYS[1] meta hash   KEYS[2] source id list   KEYS[3] active sorted set   KEYS[4] fingerprint hash
    KEYS[5] site id list   KEYS[6] site record   KEYS[7] site's miss counts
    KEYS[8] the knowledge base's pending emissions (sorted set: documentId to ms)
    KEYS[9] sites whose pages are being deleted (sorted set: siteId to ms)
    ARGV[1] JSON: {workspaceId (the caller's), siteId, sweep, now (ISO), nowMs, pageMax, dropInline, dropTtl,
                   prefixes: {record, text, blob, markdown, chunks, chunkIds, dropIds},
                   feed: see the feed include, outbox: see the outbox include}
            a prefix .. documentId is that source's key of that kind

  Output: {'ok', removed, feedFrom, feedTo, done, ...dropping} | {'missing'} | {'forbidden'} | {'missing_site'}
    removed: the pages this call deleted; done: 1 once no page of the site is left.
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
local meta, ids, active, fingerprints, sweeps = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[9]
local refused = checkOwner(meta, p.workspaceId)
if refused then return {refused} end
if p.sweep then
  if not redis.call('ZSCORE', sweeps, p.siteId) then return {'ok', 0, '', '', 1} end
else
  local state = siteState(KEYS[6])
  if state == '' then return {'missing_site'} end
  moveSite(meta, KEYS[6], state, nil)
  redis.call('LREM', KEYS[5], 0, p.siteId)
  redis.call('DEL', KEYS[6], KEYS[7])
  redis.call('ZADD', sweeps, p.nowMs, p.siteId)
end
local at = p.prefixes
local removed = 0
local budget = p.dropInline
local dropping = {}
local done = 1
-- A page's place in the list is marked, and the marks removed in one pass at the end (no id holds ':').
local GONE = ':'
for i, id in ipairs(redis.call('LRANGE', ids, 0, -1)) do
  local record = at.record .. id
  if redis.call('HGET', record, 'siteId') == p.siteId then
    local chunks = redis.call('HLEN', at.chunkIds .. id)
    -- The next call takes this page: this one has deleted its share, or the page's events would not fit beside the others'.
    if removed == p.pageMax or (chunks > budget and budget < p.dropInline) then
      done = 0
      break
    end
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
if done == 1 then redis.call('ZREM', sweeps, p.siteId) end
local feedFrom, feedTo = feedFinish(p.feed)
if removed > 0 or not p.sweep then touchKb(meta, p.now) end
outboxChanged(p.outbox, feedFrom, feedTo)
return {'ok', removed, feedFrom, feedTo, done, unpack(dropping)}
