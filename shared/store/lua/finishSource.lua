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
                   dropInline: the most chunk.deleted events a failed run writes itself (see the finishRecord include),
                   feedChunks: the chunks as the change feed shows them, feed: see the feed include,
                   event: the source.ready or source.failed this end tells of ({type, key, data}), outbox: see the outbox include}
            claim: the attempt's job lock token ('' for none: the claim is not checked)

  Output: {'ok', settled, feedFrom, feedTo, emitSeq, chunkMax, chunkOverlap, ...counts} | {'repeated'} | {'unstaged'} | {'gone'} | {'stale'} | {<final status>}
    repeated: this attempt's finish was written already. Its reply was lost (a failover between the
    write and the reply, and the client sent the script again): nothing is written twice, and the
    worker knows the end is its own (`finishedBy` keeps the claim that ended the run).
    feedFrom, feedTo: the feed position before the first event this wrote, and its last ('' when none).
    emitSeq: the emission of feed events this started (0 for none), for emitChunks: the staged chunks', or
    the chunk.deleted of a failed run of a source of more than 256 chunks.
    unstaged: the staged values are not all there whole (they expired): nothing was written.
    chunkMax, chunkOverlap: the knowledge base's own chunking settings ('' when it has none), so the
    worker tells whether the chunks it cut still match without reading the meta again.
    The counts are the knowledge base's after this change, in the order of
    SOURCE_STATUSES; `settled` is the knowledge base's settle number when this
    change left no source active, else 0. The source keeps it as `settledSeq`,
    so a job run again after a crash can tell that it was the one that settled it.
]]
--- @include "finishRecord"
--- @include "lifecycle"
--- @include "outbox"

local p = cjson.decode(ARGV[1])
local meta, active, record = KEYS[1], KEYS[2], KEYS[3]
local k = {
  record = record, text = KEYS[4], blob = KEYS[5], markdown = KEYS[6], chunks = KEYS[7], chunkIds = KEYS[8],
  stagedText = KEYS[9], stagedMarkdown = KEYS[10], stagedChunks = KEYS[11], stagedFeed = KEYS[12],
  emitList = KEYS[13], emitSeen = KEYS[14], emits = KEYS[15],
}
local result, emitSeq = finishRecord(meta, active, k, p, p)
if result ~= 'ok' then return {result} end
touchKb(meta, p.now)
-- A site still discovering may add pages yet: then the knowledge base has not settled.
local settled, counts = settleIfIdle(meta)
if settled > 0 then redis.call('HSET', record, 'settledSeq', settled) end
local feedFrom, feedTo = feedFinish(p.feed)
outboxSettled(p.outbox, settled, counts, p.unchanged)
outboxChanged(p.outbox, feedFrom, feedTo)
local chunking = redis.call('HMGET', meta, 'chunkMaxTokens', 'chunkOverlapTokens')
return {'ok', settled, feedFrom, feedTo, emitSeq, chunking[1] or '', chunking[2] or '', unpack(counts)}
