--[[
  The write of one source's outcome, as finishSource.lua and finishTexts.lua
  make it: checked against its run and claim first, then its record, text,
  Markdown, chunks and change-feed events, and its source.ready or
  source.failed in the outbox. What a script does once for all the sources it
  ends (the knowledge base's revision, its settle, the feed's range and its
  knowledge_base.changed) is the caller's.

  `k` names the source's keys: {record, text, blob, markdown, chunks, chunkIds, emitList, emitSeen,
  emits, and for a staged write stagedText, stagedMarkdown, stagedChunks, stagedFeed}; without
  `emits`, a failed run writes all its chunk.deleted events itself (a batch's texts, which run
  for the first time and have none).
  `s` is the source's part of the payload (see finishSource.lua): {documentId, run, status, fields,
  text, markdown, chunks, feedChunks, staged, unchanged, keepBlobSeconds, event}; `at` is the
  script's {claim, now, nowMs, feed, outbox, dropInline}: dropInline, with `emits`, the most
  chunk.deleted events a failed run writes itself (more go through chunkDropStart).

  Returns 'ok' and the emission of feed events it started (0 for none), or the reason
  nothing was written: 'repeated', 'unstaged', 'gone', 'stale' or the final status.
]]
--- @include "checkRun"
--- @include "feed"
--- @include "hsetTable"
--- @include "lifecycle"
--- @include "outbox"
--- @include "stagedWrite"
--- @include "storedBytes"

local function finishRecord(meta, active, k, s, at)
  local record = k.record
  -- A Markdown equal to the text (a text source's) is not sent twice.
  local md = s.markdown or s.text
  local st, refused = checkRun(meta, record, s.run, at.claim)
  if not st then
    -- Ended in this run (checkRun looked at the run first): by this very attempt, or by another.
    if FINAL_STATUS[refused] and at.claim ~= '' and redis.call('HGET', record, 'finishedBy') == at.claim then return 'repeated', 0 end
    return refused, 0
  end
  local staged = s.status == 'ready' and not s.unchanged and s.staged
  if staged and not (stagedString(k.stagedText, staged.textBytes) and stagedString(k.stagedMarkdown, staged.markdownBytes)
      and stagedList(k.stagedChunks, staged.chunks) and stagedList(k.stagedFeed, staged.feed)) then
    return 'unstaged', 0
  end
  moveStatus(meta, record, st, s.status)
  redis.call('HDEL', record, 'error', 'refreshFrom', 'progress', 'claim', 'finishedBy', 'settledSeq')
  if at.claim ~= '' then s.fields.finishedBy = at.claim end
  s.fields.updatedAt = at.now
  hsetTable(record, s.fields)
  local emitSeq = 0
  if staged then
    stagedInstall(k.stagedText, k.text)
    stagedInstall(k.stagedMarkdown, k.markdown)
    stagedInstall(k.stagedChunks, k.chunks)
    emitSeq = chunkEmitStart(meta, record, k.emitList, k.emitSeen, k.emits, k.stagedFeed, staged.feedBytes, s.documentId, at.nowMs)
    setBytes(meta, record, 'extractedBytes', staged.extractedBytes)
  elseif not s.unchanged then
    redis.call('UNLINK', k.text, k.markdown, k.chunks)
    if s.status == 'ready' then
      redis.call('SET', k.text, s.text)
      redis.call('SET', k.markdown, md)
      -- RPUSH in slices: unpack() of a very long list would overflow the Lua stack.
      for i = 1, #s.chunks, 500 do
        redis.call('RPUSH', k.chunks, unpack(s.chunks, i, math.min(i + 499, #s.chunks)))
      end
      feedReplace(at.feed, k.chunkIds, record, s.documentId, s.feedChunks)
      setBytes(meta, record, 'extractedBytes', extractionBytes(s.text, md, s.chunks))
    else
      -- A failed run of a source of many chunks drops them from the feed in emitChunks' batches.
      if k.emits and redis.call('HLEN', k.chunkIds) > at.dropInline then
        emitSeq = chunkDropStart(meta, record, k.emitList, k.emitSeen, k.emits, s.documentId, at.nowMs)
      else
        feedDropAll(at.feed, k.chunkIds, s.documentId, record)
      end
      setBytes(meta, record, 'extractedBytes', 0)
    end
  end
  -- A file's blob kept for a retry expires on its own: it is no longer counted (a text stays in its record).
  if redis.call('HGET', record, 'type') == 'file' then setBytes(meta, record, 'inputBytes', 0) end
  if s.keepBlobSeconds > 0 then
    local ttl = redis.call('TTL', k.blob)
    if ttl == -1 or ttl > s.keepBlobSeconds then redis.call('EXPIRE', k.blob, s.keepBlobSeconds) end
  else
    redis.call('UNLINK', k.blob)
  end
  redis.call('ZREM', active, s.documentId)
  -- An unchanged refresh has no news (its settle may still have, see outboxSettled).
  if not s.unchanged then outboxEvent(at.outbox, s.event) end
  return 'ok', emitSeq
end
