--[[
  The change feed of a knowledge base: a stream of chunk.upserted ('u') and
  chunk.deleted ('d') events, written by the same scripts that write a
  source's chunks, so the feed and the chunks never disagree.

  A source keeps beside its chunks a hash of chunk id to a digest of the chunk
  as the feed last showed it: a re-write emits only the chunks whose digest
  changed and the ids that are gone, so a refresh that yields the same chunks
  emits nothing.

  The payload's `feed` is {stream, info, minId, maxEvents}: minId is the
  oldest event id retention keeps; `info` holds `floor`, the newest event
  trimmed away, so a cursor before it is known to have missed events, and
  `bytes`, the stream's size as Redis estimates it after the last write
  (MEMORY USAGE, sampled), which the workspace's usage counts.
]]

local feedBefore, feedFirst, feedLast = nil, nil, nil

-- The id of the stream's newest event, kept by the stream even once trimming has emptied it
-- ('0-0' for none): the cursor before what a script writes.
local function feedHead(stream)
  if redis.call('EXISTS', stream) == 0 then return '0-0' end
  local info = redis.call('XINFO', 'STREAM', stream)
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then return info[i + 1] end
  end
  return '0-0'
end

-- What a chunk.upserted shows of its source, read from the record as this script leaves it.
local function feedSource(record)
  local v = redis.call('HMGET', record, 'type', 'content', 'title', 'filename', 'metadata')
  local s = {type = v[1], content = v[2]}
  if v[3] then s.title = v[3] end
  if v[4] then s.filename = v[4] end
  if v[5] then s.metadata = v[5] end
  return cjson.encode(s)
end

local function feedEmit(stream, kind, chunkId, documentId, chunkJson, sourceJson)
  if not feedFirst then feedBefore = feedHead(stream) end
  local id
  if kind == 'u' then
    id = redis.call('XADD', stream, '*', 'k', 'u', 'c', chunkId, 'd', documentId, 'j', chunkJson, 's', sourceJson)
  else
    id = redis.call('XADD', stream, '*', 'k', 'd', 'c', chunkId, 'd', documentId)
  end
  if not feedFirst then feedFirst = id end
  feedLast = id
end

-- Emits a chunk.deleted for each chunk the source had in the feed, and forgets them.
local function feedDropAll(stream, chunkIds, documentId)
  for _, id in ipairs(redis.call('HKEYS', chunkIds)) do feedEmit(stream, 'd', id, documentId) end
  redis.call('DEL', chunkIds)
end

-- Replaces a source's chunks in the feed by `entries` ({i = id, g = digest, j = chunk JSON}).
local function feedReplace(stream, chunkIds, record, documentId, entries)
  local flat = redis.call('HGETALL', chunkIds)
  local old = {}
  for i = 1, #flat, 2 do old[flat[i]] = flat[i + 1] end
  local kept, src = {}, nil
  for _, e in ipairs(entries) do
    kept[e.i] = true
    if old[e.i] ~= e.g then
      src = src or feedSource(record)
      feedEmit(stream, 'u', e.i, documentId, e.j, src)
    end
  end
  for i = 1, #flat, 2 do
    if not kept[flat[i]] then feedEmit(stream, 'd', flat[i], documentId) end
  end
  redis.call('DEL', chunkIds)
  local pairsOut = {}
  for _, e in ipairs(entries) do
    pairsOut[#pairsOut + 1] = e.i
    pairsOut[#pairsOut + 1] = e.g
    if #pairsOut >= 1000 then
      redis.call('HSET', chunkIds, unpack(pairsOut))
      pairsOut = {}
    end
  end
  if #pairsOut > 0 then redis.call('HSET', chunkIds, unpack(pairsOut)) end
end

-- Compares two stream ids ('ms-seq'): -1, 0 or 1.
local function feedCompare(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  if am ~= bm then return am < bm and -1 or 1 end
  if as ~= bs then return as < bs and -1 or 1 end
  return 0
end

-- Drops events past retention and past the count cap, remembering the newest one dropped.
local function feedTrim(f)
  local floor = nil
  -- The oldest event first: a reverse scan from minId walks a whole node of events back
  -- to the stream's start when none is that old, which is what nearly every write finds.
  local first = redis.call('XRANGE', f.stream, '-', '+', 'COUNT', 1)
  if first[1] and feedCompare(first[1][1], f.minId) < 0 then
    local old = redis.call('XREVRANGE', f.stream, '(' .. f.minId, '-', 'COUNT', 1)
    floor = old[1][1]
    redis.call('XTRIM', f.stream, 'MINID', f.minId)
  end
  local over = redis.call('XLEN', f.stream) - f.maxEvents
  if over > 0 then
    local dropped = redis.call('XRANGE', f.stream, '-', '+', 'COUNT', over)
    floor = dropped[#dropped][1]
    redis.call('XTRIM', f.stream, 'MAXLEN', f.maxEvents)
  end
  if floor then redis.call('HSET', f.info, 'floor', floor) end
end

-- After a script's writes: trims the feed when it wrote, and gives the range it wrote:
-- the position before its first event and its last event ('' and '' for none).
local function feedFinish(f)
  if feedLast then
    feedTrim(f)
    redis.call('HSET', f.info, 'bytes', redis.call('MEMORY', 'USAGE', f.stream) or 0)
  end
  return feedBefore or '', feedLast or ''
end
