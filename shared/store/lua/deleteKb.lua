--[[
  Deletes a knowledge base with every source and every key a source owns.

  Input:
    KEYS[1] meta hash   KEYS[2] source id list   KEYS[3] active sorted set   KEYS[4] fingerprint hash
    KEYS[5] site id list   KEYS[6] pending metadata emissions
    ARGV[1] JSON: {workspaceId (the caller's), prefixes: {record, text, blob, markdown, chunks, chunkIds}, sitePrefix, ifRev,
                   feed: see the feed include, feedTtl (seconds), search: {state, docs, terms, postings},
                   outbox: see the outbox include (it outlives the knowledge base for keepSeconds, for the relay)}
            a prefix .. documentId is that source's key of that kind; sitePrefix .. siteId a site's record;
            ifRev: delete nothing unless the knowledge base is at this revision (If-Match).
            The change feed stays for feedTtl holding one knowledge_base.deleted event (its older
            events dropped at once, the floor set before it), so every consumer, whatever its cursor,
            reads that the knowledge base is gone; its info names the workspace that may still read it.
            One event whatever the knowledge base held: the cost of this script is its sources' keys.
            The search index goes with the knowledge base.

  Output: {'ok', feedFrom, feedTo} | {'missing'} | {'forbidden'} | {'precondition_failed', rev}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
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
local at = p.prefixes
for _, id in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  -- UNLINK: a source's chunk list and chunk-id hash are freed off Redis's thread.
  redis.call('UNLINK', at.record .. id, at.text .. id, at.blob .. id, at.markdown .. id, at.chunks .. id, at.chunkIds .. id)
end
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
for _, term in ipairs(redis.call('SMEMBERS', p.search.terms)) do redis.call('DEL', p.search.postings .. term) end
redis.call('DEL', p.search.state, p.search.docs, p.search.terms)
for _, id in ipairs(redis.call('LRANGE', KEYS[5], 0, -1)) do
  redis.call('DEL', p.sitePrefix .. id, p.sitePrefix .. id .. ':misses')
end
outboxChanged(p.outbox, feedFrom, feedTo)
redis.call('EXPIRE', p.outbox.stream, p.outbox.keepSeconds)
redis.call('EXPIRE', p.outbox.info, p.outbox.keepSeconds)
redis.call('UNLINK', changedSourcesKey(KEYS[1]))
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
return {'ok', feedFrom, feedTo}
