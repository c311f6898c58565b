--[[
  Deletes a knowledge base with every source and every key a source owns.

  Input:
    KEYS[1] meta hash   KEYS[2] source id list   KEYS[3] active sorted set   KEYS[4] fingerprint hash
    KEYS[5] site id list
    ARGV[1] JSON: {workspaceId (the caller's), prefixes: {record, text, blob, markdown, chunks, chunkIds}, sitePrefix, ifRev,
                   feed: see the feed include, feedTtl (seconds), search: {state, docs, terms, postings}}
            a prefix .. documentId is that source's key of that kind; sitePrefix .. siteId a site's record;
            ifRev: delete nothing unless the knowledge base is at this revision (If-Match).
            The change feed (when it has ever had an event) stays for feedTtl with a chunk.deleted for
            every chunk, so a consumer sees the knowledge base emptied; its info names the workspace
            that may still read it.
            The search index goes with the knowledge base.

  Output: {'ok', feedFrom, feedTo} | {'missing'} | {'forbidden'} | {'precondition_failed', rev}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
]]
--- @include "checkOwner"
--- @include "feed"

local p = cjson.decode(ARGV[1])
local refused = checkOwner(KEYS[1], p.workspaceId)
if refused then return {refused} end
local rev = redis.call('HGET', KEYS[1], 'rev') or '0'
if p.ifRev and p.ifRev ~= rev then return {'precondition_failed', rev} end
local at = p.prefixes
for _, id in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  feedDropAll(p.feed.stream, at.chunkIds .. id, id)
  redis.call('DEL', at.record .. id, at.text .. id, at.blob .. id, at.markdown .. id, at.chunks .. id)
end
local feedFrom, feedTo = feedFinish(p.feed)
if redis.call('EXISTS', p.feed.stream) == 1 then
  redis.call('HSET', p.feed.info, 'workspaceId', p.workspaceId)
  redis.call('EXPIRE', p.feed.info, p.feedTtl)
  redis.call('EXPIRE', p.feed.stream, p.feedTtl)
else
  redis.call('DEL', p.feed.info)
end
for _, term in ipairs(redis.call('SMEMBERS', p.search.terms)) do redis.call('DEL', p.search.postings .. term) end
redis.call('DEL', p.search.state, p.search.docs, p.search.terms)
for _, id in ipairs(redis.call('LRANGE', KEYS[5], 0, -1)) do
  redis.call('DEL', p.sitePrefix .. id, p.sitePrefix .. id .. ':misses')
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return {'ok', feedFrom, feedTo}
