--[[
  Worker: records the outcomes of a batch's text sources, each once, as
  finishSource.lua records one (see the finishRecord include): a duplicate or
  stale run of one source writes nothing for it and does not stop the
  others. Then, once for the batch: the knowledge base's revision, its settle
  when nothing is left in flight, and one knowledge_base.changed for the
  change-feed events the batch wrote. The writer sends a bounded share of a
  batch in one call (see SourceTransitions.finishTexts), and never a source
  whose extraction is large enough to be staged: that one has finishSource.

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set
    ARGV[1] JSON: {claim, now (ISO), nowMs, prefixes: {record, text, blob, markdown, chunks, chunkIds, emitList, emitSeen},
                   sources: [{documentId, run, status: 'ready' | 'failed', fields: {...}, text, markdown?, chunks: [...],
                              feedChunks, keepBlobSeconds, event}],
                   feed: see the feed include, outbox: see the outbox include}
            a prefix .. documentId is that source's key of that kind; a source's fields are as finishSource's
            claim: the attempt's job lock token ('' for none: the claims are not checked)

  Output: {'ok', settled, feedFrom, feedTo, chunkMax, chunkOverlap, ...results}
    results: for each source in order, 'ok' when its outcome was written, else why not:
    'repeated' (this attempt wrote it already, its reply lost), 'gone', 'stale' or its final status.
    settled: the knowledge base's settle number when the batch left no source active, else 0
    (kept as `settledSeq` on the last source written).
    feedFrom, feedTo: the feed position before the first event the batch wrote, and its last ('' when none).
    chunkMax, chunkOverlap: the knowledge base's own chunking settings ('' when it has none).
]]
--- @include "finishRecord"
--- @include "lifecycle"
--- @include "outbox"

local p = cjson.decode(ARGV[1])
local meta, active = KEYS[1], KEYS[2]
local at = p.prefixes
local results = {}
local last = nil
for i, s in ipairs(p.sources) do
  local id = s.documentId
  local k = {
    record = at.record .. id, text = at.text .. id, blob = at.blob .. id, markdown = at.markdown .. id,
    chunks = at.chunks .. id, chunkIds = at.chunkIds .. id, emitList = at.emitList .. id, emitSeen = at.emitSeen .. id,
  }
  s.staged = nil
  results[i] = finishRecord(meta, active, k, s, p)
  if results[i] == 'ok' then last = k.record end
end
local settled, feedFrom, feedTo = 0, '', ''
if last then
  touchKb(meta, p.now)
  -- A site still discovering may add pages yet: then the knowledge base has not settled.
  local counts
  settled, counts = settleIfIdle(meta)
  if settled > 0 then redis.call('HSET', last, 'settledSeq', settled) end
  feedFrom, feedTo = feedFinish(p.feed)
  outboxSettled(p.outbox, settled, counts, false)
  outboxChanged(p.outbox, feedFrom, feedTo)
end
local chunking = redis.call('HMGET', meta, 'chunkMaxTokens', 'chunkOverlapTokens')
return {'ok', settled, feedFrom, feedTo, chunking[1] or '', chunking[2] or '', unpack(results)}
