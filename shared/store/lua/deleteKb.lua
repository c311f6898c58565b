--[[
  Deletes a knowledge base: it is gone for every reader at once, whatever it
  held. Its sources' keys are not deleted here (that cost grows with its
  sources): its source id list becomes the sweep list, whose keys sweepKb
  removes in bounded batches afterwards (the caller at once, the reconciler
  after a crash, through the deployment's index of knowledge bases to sweep,
  written before this script). Its legacy search terms are handed over the
  same way.

  Input:
    KEYS[1] meta hash   KEYS[2] source id list   KEYS[3] active sorted set   KEYS[4] fingerprint hash
    KEYS[5] site id list   KEYS[6] pending metadata emissions
    KEYS[7] source ids to sweep   KEYS[8] search terms to sweep
    KEYS[9] search terms   KEYS[10] search state   KEYS[11] search chunks
    ARGV[1] JSON: {workspaceId (the caller's), sitePrefix, siteSweeps, ifRev,
                   feed: see the feed include, feedTtl (seconds),
                   outbox: see the outbox include (it outlives the knowledge base for keepSeconds, for the relay)}
            sitePrefix .. siteId a site's record (at most MAX_SITES_PER_KB); siteSweeps: the sites whose
            pages were being deleted (their pages go with the knowledge base's);
            ifRev: delete nothing unless the knowledge base is at this revision (If-Match).
            The change feed stays for feedTtl holding one knowledge_base.deleted event (its older
            events dropped at once, the floor set before it), so every consumer, whatever its cursor,
            reads that the knowledge base is gone; its info names the workspace that may still read it.
            One event whatever the knowledge base held. Large values are UNLINKed: freed off Redis's thread.

  Output: {'ok', feedFrom, feedTo, sweep} | {'missing'} | {'forbidden'} | {'precondition_failed', rev}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
    sweep: the number of sources and search terms left to sweepKb.
]]
--- @include "checkOwner"
--- @include "feed"
--- @include "lifecycle"
--- @include "outbox"

local p = cjson.decode(ARGV[1])
local refused = checkOwner(KEYS[1], p.workspaceId)
if refused then return {refused} end
local rev = readRev(KEYS[1])
if p.ifRev and p.ifRev ~= rev then return {'precondition_failed', rev} end
-- Hands a list or set over to the sweep: O(1). Knowledge base ids are never used again (newKbId),
-- so no earlier sweep of this one can be under way.
local function handOver(from, to)
  if redis.call('EXISTS', from) == 1 then redis.call('RENAME', from, to) end
end
handOver(KEYS[2], KEYS[7])
-- The events before the deletion no longer matter to anyone: UNLINK frees them off the main
-- thread. The new stream's first id must stay after every cursor given out (the old head).
local head = feedHead(p.feed.stream, p.feed.info)
redis.call('UNLINK', p.feed.stream)
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local headMs, headSeq = string.match(head, '^(%d+)-(%d+)$')
local id = '*'
if tonumber(headMs) >= nowMs then id = string.format('%d-%d', tonumber(headMs), tonumber(headSeq) + 1) end
local offset = tonumber(redis.call('HGET', p.feed.info, 'total') or '0')
local deleted = redis.call('XADD', p.feed.stream, id, 'k', 'x', 'o', offset)
redis.call('HSET', p.feed.info, 'head', deleted, 'total', offset + FEED_EVENT_OVERHEAD, 'bytes', FEED_EVENT_OVERHEAD,
  'workspaceId', p.workspaceId, 'deleted', '1')
if head ~= '0-0' then redis.call('HSET', p.feed.info, 'floor', head) end
redis.call('EXPIRE', p.feed.info, p.feedTtl)
redis.call('EXPIRE', p.feed.stream, p.feedTtl)
local feedFrom, feedTo = head, deleted
handOver(KEYS[9], KEYS[8])
redis.call('UNLINK', KEYS[10], KEYS[11])
for _, id in ipairs(redis.call('LRANGE', KEYS[5], 0, -1)) do
  redis.call('DEL', p.sitePrefix .. id, p.sitePrefix .. id .. ':misses')
end
outboxChanged(p.outbox, feedFrom, feedTo)
redis.call('EXPIRE', p.outbox.stream, p.outbox.keepSeconds)
redis.call('EXPIRE', p.outbox.info, p.outbox.keepSeconds)
redis.call('UNLINK', changedSourcesKey(KEYS[1]), p.siteSweeps)
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
return {'ok', feedFrom, feedTo, redis.call('LLEN', KEYS[7]) + redis.call('SCARD', KEYS[8])}
