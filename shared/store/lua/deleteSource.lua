--[[
  Deletes one source with every key it owns.

  Input:
    KEYS[1] meta hash   KEYS[2] source id list   KEYS[3] active sorted set   KEYS[4] fingerprint hash
    KEYS[5] source record   KEYS[6] text   KEYS[7] blob   KEYS[8] Markdown   KEYS[9] chunk list
    KEYS[10] chunk ids in the change feed   KEYS[11] chunk ids still to drop from the feed
    KEYS[12] the knowledge base's pending emissions (sorted set: documentId to ms)
    ARGV[1] JSON: {workspaceId (the caller's), documentId, now (ISO), nowMs, ifRev, dropInline, dropTtl,
                   feed: see the feed include, outbox: see the outbox include}
            ifRev: delete nothing unless the knowledge base is at this revision (If-Match)
            dropInline: the most chunk.deleted events this script writes; a source with more chunks
            keeps their ids in KEYS[11] (expiring after dropTtl seconds), listed in KEYS[12], for
            dropChunks to write their events in batches.
    settled: the knowledge base's settle number when this deleted its last active source, else 0;
    counts: the knowledge base's after the delete, in the order of SOURCE_STATUSES.

  Output: {'ok', feedFrom, feedTo, settled, dropping, ...counts} | {'missing'} | {'forbidden'} | {'missing_source'} | {'precondition_failed', rev}
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
    dropping: 1 when the chunk.deleted events are left to dropChunks, else 0.
]]
--- @include "checkOwner"
--- @include "feed"
--- @include "dropLater"
--- @include "lifecycle"
--- @include "outbox"
--- @include "storedBytes"

local p = cjson.decode(ARGV[1])
local meta, record = KEYS[1], KEYS[5]
local refused = checkOwner(meta, p.workspaceId)
if refused then return {refused} end
local rev = readRev(meta)
if p.ifRev and p.ifRev ~= rev then return {'precondition_failed', rev} end
local st = redis.call('HGET', record, 'status')
if not st then return {'missing_source'} end
local fingerprint = redis.call('HGET', record, 'fingerprint')
if fingerprint and redis.call('HGET', KEYS[4], fingerprint) == p.documentId then redis.call('HDEL', KEYS[4], fingerprint) end
moveStatus(meta, record, st, nil)
dropBytes(meta, record)
redis.call('LREM', KEYS[2], 0, p.documentId)
redis.call('ZREM', KEYS[3], p.documentId)
local _, later = feedDropBounded(p.feed, KEYS[10], KEYS[11], KEYS[12], p.documentId, p.nowMs, p.dropTtl, p.dropInline)
local dropping = later and 1 or 0
local feedFrom, feedTo = feedFinish(p.feed)
redis.call('DEL', KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9])
touchKb(meta, p.now)
-- Deleting the last source still in flight settles the knowledge base as its end would have.
local settled, counts = 0, readCounts(meta)
if ACTIVE_STATUS[st] then settled, counts = settleIfIdle(meta) end
outboxChanged(p.outbox, feedFrom, feedTo)
outboxSettled(p.outbox, settled, counts)
return {'ok', feedFrom, feedTo, settled, dropping, unpack(counts)}
