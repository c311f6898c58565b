--[[
  Worker: records the outcome of a source once; a duplicate or stale run
  writes nothing.

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set
    KEYS[3] source record   KEYS[4] text   KEYS[5] blob   KEYS[6] Markdown   KEYS[7] chunk list
    KEYS[8] chunk ids in the change feed
    KEYS[9] staged text   KEYS[10] staged Markdown   KEYS[11] staged chunk list   KEYS[12] staged feed entries
    KEYS[13] the source's pending feed entries   KEYS[14] chunk ids that emission has shown
    KEYS[15] the knowledge base's pending emissions (sorted set: documentId to ms)
    ARGV[1] JSON: {documentId, run, claim, now (ISO), nowMs, status: 'ready' | 'failed', fields: {...},
                   text, markdown (left out when it equals text), chunks: [entry as JSON string...] (ready only),
                   staged: {textBytes, markdownBytes, chunks, feed, feedBytes, extractedBytes} when a large extraction
                     was staged in KEYS[9..12] instead (see the stagedWrite include): then text, markdown,
                     chunks and feedChunks are left out, and the feed events are emitChunks' to write,
                   unchanged: a refresh found the content unchanged, so text, Markdown and chunks stay,
                   keepBlobSeconds: how long the blob stays for a later retry (0 drops it),
                   feedChunks: the chunks as the change feed shows them, feed: see the feed include,
                   event: the source.ready or source.failed this end tells of ({type, key, data}), outbox: see the outbox include}
            claim: the attempt's job lock token ('' for none: the claim is not checked)

  Output: {'ok', settled, feedFrom, feedTo, emitSeq, chunkMax, chunkOverlap, ...counts} | {'repeated'} | {'unstaged'} | {'gone'} | {'stale'} | {<final status>}
    repeated: this attempt's finish was written already. Its reply was lost (a failover between the
    write and the reply, and the client sent the script again): nothing is written twice, and the
    worker knows the end is its own (`finishedBy` keeps the claim that ended the run).
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
    emitSeq: the emission of the staged chunks' feed events this started (0 for none), for emitChunks.
    unstaged: the staged values are not all there whole (they expired): nothing was written.
    chunkMax, chunkOverlap: the knowledge base's own chunking settings ('' when it has none), so the
    worker tells whether the chunks it cut still match without reading the meta again.
    The counts are the knowledge base's after this change, in the order of
    SOURCE_STATUSES; `settled` is the knowledge base's settle number when this
    change left no source active, else 0. The source keeps it as `settledSeq`,
    so a job run again after a crash can tell that it was the one that settled it.
]]
--- @include "checkRun"
--- @include "feed"
--- @include "hsetTable"
--- @include "lifecycle"
--- @include "outbox"
--- @include "stagedWrite"
--- @include "storedBytes"

local p = cjson.decode(ARGV[1])
local meta, active, record = KEYS[1], KEYS[2], KEYS[3]
local text, blob, markdown, chunkList, chunkIds = KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local stagedText, stagedMarkdown, stagedChunks, stagedFeed = KEYS[9], KEYS[10], KEYS[11], KEYS[12]
local emitList, emitSeen, emits = KEYS[13], KEYS[14], KEYS[15]
-- A Markdown equal to the text (a text source's) is not sent twice.
local md = p.markdown or p.text
local st, refused = checkRun(meta, record, p.run, p.claim)
if not st then
  -- Ended in this run (checkRun looked at the run first): by this very attempt, or by another.
  if FINAL_STATUS[refused] and p.claim ~= '' and redis.call('HGET', record, 'finishedBy') == p.claim then return {'repeated'} end
  return {refused}
end
local staged = p.status == 'ready' and not p.unchanged and p.staged
if staged and not (stagedString(stagedText, staged.textBytes) and stagedString(stagedMarkdown, staged.markdownBytes)
    and stagedList(stagedChunks, staged.chunks) and stagedList(stagedFeed, staged.feed)) then
  return {'unstaged'}
end
moveStatus(meta, record, st, p.status)
redis.call('HDEL', record, 'error', 'refreshFrom', 'progress', 'claim', 'finishedBy')
if p.claim ~= '' then p.fields.finishedBy = p.claim end
p.fields.updatedAt = p.now
hsetTable(record, p.fields)
local emitSeq = 0
if staged then
  stagedInstall(stagedText, text)
  stagedInstall(stagedMarkdown, markdown)
  stagedInstall(stagedChunks, chunkList)
  emitSeq = chunkEmitStart(meta, record, emitList, emitSeen, emits, stagedFeed, staged.feedBytes, p.documentId, p.nowMs)
  setBytes(meta, record, 'extractedBytes', staged.extractedBytes)
elseif not p.unchanged then
  redis.call('UNLINK', text, markdown, chunkList)
  if p.status == 'ready' then
    redis.call('SET', text, p.text)
    redis.call('SET', markdown, md)
    -- RPUSH in slices: unpack() of a very long list would overflow the Lua stack.
    for i = 1, #p.chunks, 500 do
      redis.call('RPUSH', chunkList, unpack(p.chunks, i, math.min(i + 499, #p.chunks)))
    end
    feedReplace(p.feed, chunkIds, record, p.documentId, p.feedChunks)
    setBytes(meta, record, 'extractedBytes', extractionBytes(p.text, md, p.chunks))
  else
    feedDropAll(p.feed, chunkIds, p.documentId, record)
    setBytes(meta, record, 'extractedBytes', 0)
  end
end
-- A file's blob kept for a retry expires on its own: it is no longer counted (a text stays in its record).
if redis.call('HGET', record, 'type') == 'file' then setBytes(meta, record, 'inputBytes', 0) end
if p.keepBlobSeconds > 0 then
  local ttl = redis.call('TTL', blob)
  if ttl == -1 or ttl > p.keepBlobSeconds then redis.call('EXPIRE', blob, p.keepBlobSeconds) end
else
  redis.call('UNLINK', blob)
end
redis.call('ZREM', active, p.documentId)
touchKb(meta, p.now)
-- A site still discovering may add pages yet: then the knowledge base has not settled.
local settled, counts = settleIfIdle(meta)
redis.call('HDEL', record, 'settledSeq')
if settled > 0 then redis.call('HSET', record, 'settledSeq', settled) end
local feedFrom, feedTo = feedFinish(p.feed)
-- The events of this end, in the same script: an unchanged refresh has no news but a settle whose counts differ.
if not p.unchanged then outboxEvent(p.outbox, p.event) end
outboxSettled(p.outbox, settled, counts, p.unchanged)
outboxChanged(p.outbox, feedFrom, feedTo)
local chunking = redis.call('HMGET', meta, 'chunkMaxTokens', 'chunkOverlapTokens')
return {'ok', settled, feedFrom, feedTo, emitSeq, chunking[1] or '', chunking[2] or '', unpack(counts)}
