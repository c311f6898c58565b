--[[
  Deletes one source with every key it owns.

  Input:
    KEYS[1] meta hash   KEYS[2] source id list   KEYS[3] active sorted set   KEYS[4] fingerprint hash
    KEYS[5] source record   KEYS[6] text   KEYS[7] blob   KEYS[8] Markdown   KEYS[9] chunk list
    KEYS[10] chunk ids in the change feed
    ARGV[1] JSON: {workspaceId (the caller's), documentId, now (ISO), ifRev, feed: see the feed include}
            ifRev: delete nothing unless the knowledge base is at this revision (If-Match)

  Output: {'ok', feedFrom, feedTo} | {'missing'} | {'forbidden'} | {'missing_source'} | {'precondition_failed', rev}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
]]
--- @include "checkOwner"
--- @include "feed"
--- @include "lifecycle"

local p = cjson.decode(ARGV[1])
local meta, record = KEYS[1], KEYS[5]
local refused = checkOwner(meta, p.workspaceId)
if refused then return {refused} end
local rev = redis.call('HGET', meta, 'rev') or '0'
if p.ifRev and p.ifRev ~= rev then return {'precondition_failed', rev} end
local st = redis.call('HGET', record, 'status')
if not st then return {'missing_source'} end
local fingerprint = redis.call('HGET', record, 'fingerprint')
if fingerprint and redis.call('HGET', KEYS[4], fingerprint) == p.documentId then redis.call('HDEL', KEYS[4], fingerprint) end
moveStatus(meta, record, st, nil)
redis.call('LREM', KEYS[2], 0, p.documentId)
redis.call('ZREM', KEYS[3], p.documentId)
feedDropAll(p.feed.stream, KEYS[10], p.documentId)
local feedFrom, feedTo = feedFinish(p.feed)
redis.call('DEL', KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9])
redis.call('HSET', meta, 'updatedAt', p.now)
redis.call('HINCRBY', meta, 'rev', 1)
return {'ok', feedFrom, feedTo}
