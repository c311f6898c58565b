--[[
  A large write of a source's extraction, staged before its script: the
  writer sends the text, Markdown, chunk entries and feed entries in bounded
  slices to keys of its own (expiring on their own, see staging.ts), and the
  script that commits the write checks they are whole and renames them into
  place, O(1) whatever their size. The feed entries are not written by that
  script: it hands them to emitChunks, which emits them in bounded batches
  (chunkEmitStart), each advancing the record's `chunkEmit` marker
  ('<seq>:u:<next entry>' then '<seq>:d:<hash scan cursor>'), and lists the
  source among the knowledge base's pending emissions for the reconciler to
  finish after a crash. The pending entries are counted in the knowledge
  base's stored bytes (`emitBytes` on the record) until the emission ends.
  A write of the chunks inside a script (feedReplace, feedDropAll) supersedes
  an emission under way: the chunk ids hash is what the feed has shown, kept
  with every event, so the later write's comparison is exact.
]]
--- @include "storedBytes"

-- Whether a staged string holds `size` bytes.
local function stagedString(key, size)
  return redis.call('EXISTS', key) == 1 and redis.call('STRLEN', key) == size
end

-- Whether a staged list holds `size` entries (none: the key may be absent).
local function stagedList(key, size)
  return redis.call('LLEN', key) == size
end

-- Puts a staged value in place of `to`: the old value is unlinked (freed off Redis's
-- thread), the staged one renamed and kept for good. A missing (empty) list leaves none.
local function stagedInstall(from, to)
  redis.call('UNLINK', to)
  if redis.call('EXISTS', from) == 1 then
    redis.call('RENAME', from, to)
    redis.call('PERSIST', to)
  end
end

-- Starts the emission of a source's new chunks to the feed from the staged feed entries
-- (`feedBytes` of them), superseding one under way; returns its sequence number.
local function chunkEmitStart(meta, record, emitList, emitSeen, emits, stagedFeed, feedBytes, documentId, nowMs)
  stagedInstall(stagedFeed, emitList)
  redis.call('UNLINK', emitSeen)
  setBytes(meta, record, 'emitBytes', feedBytes)
  local seq = redis.call('HINCRBY', record, 'chunkEmitSeq', 1)
  redis.call('HSET', record, 'chunkEmit', seq .. ':u:0')
  redis.call('ZADD', emits, nowMs, documentId)
  return seq
end

-- Starts an emission with no new chunks: only its deletion pass runs, a chunk.deleted for
-- every chunk the feed shows, in emitChunks' batches (a failed run of a source of many chunks).
local function chunkDropStart(meta, record, emitList, emitSeen, emits, documentId, nowMs)
  return chunkEmitStart(meta, record, emitList, emitSeen, emits, emitList, 0, documentId, nowMs)
end
