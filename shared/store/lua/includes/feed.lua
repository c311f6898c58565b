--[[
  The change feed of a knowledge base: a stream of chunk.upserted ('u'),
  chunk.deleted ('d') and knowledge_base.deleted ('x') events, written by the
  same scripts that write a source's chunks, so the feed and the chunks never
  disagree.

  A source keeps beside its chunks a hash of chunk id to a digest of the chunk
  as the feed last showed it: a re-write emits only the chunks whose digest
  changed and the ids that are gone, so a refresh that yields the same chunks
  emits nothing.

  An event names its chunk's source by what the chunk listing shows of it
  (title, URL or file name, metadata), never by its content: a text source's
  content is the whole text.

  The payload's `feed` is {kbId, stream, info, meta, minId, maxEvents, maxBytes}:
  minId is the oldest event id retention keeps, maxBytes the bytes the feed
  may hold. `info` holds:
    floor        the newest event trimmed away: a cursor before it has missed events;
    head         the newest event written (kept once trimming has emptied the stream);
    total        the bytes of every event ever written (a running count);
    bytes        the bytes of the events the stream holds: total less the offset of its oldest;
    workspaceId  the owner, so the workspace's feed bound and a deleted knowledge base's readers find it;
    deleted      '1' once the knowledge base is deleted.
  Each event keeps `o`, the running count before it, so the bytes held and the
  place to cut for a byte bound are found in a few lookups, whatever the feed's length.
]]

-- Bytes an event costs beside its values: its id, field names and the stream's per-entry overhead.
local FEED_EVENT_OVERHEAD = 64
local FEED_MAX_SEQ = '18446744073709551615'
-- What one trim drops at most beside what its script wrote (see feedTrim).
local FEED_TRIM_STEP = 4 * 1024 * 1024
local FEED_TRIM_EVENTS = 2000

local feedBefore, feedFirst, feedLast, feedTotal, feedStartTotal = nil, nil, nil, nil, nil
local feedWritten = 0

-- The id of the stream's newest event ('0-0' for none): the cursor before what a script writes.
-- Kept in the info hash (when `info` is given); a feed written before it was kept there asks the stream.
local function feedHead(stream, info)
  local head = info and redis.call('HGET', info, 'head')
  if head then return head end
  if redis.call('EXISTS', stream) == 0 then return '0-0' end
  local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)[1]
  if last then return last[1] end
  local meta = redis.call('XINFO', 'STREAM', stream)
  for i = 1, #meta, 2 do
    if meta[i] == 'last-generated-id' then return meta[i + 1] end
  end
  return '0-0'
end

-- A title cut to CHUNK_TITLE_MAX_BYTES at a UTF-8 character's boundary, as chunkTitle does.
local FEED_TITLE_MAX = 1024
local function feedTitle(t)
  if #t <= FEED_TITLE_MAX then return t end
  local e = FEED_TITLE_MAX
  while e > 0 and bit.band(string.byte(t, e + 1), 0xC0) == 0x80 do e = e - 1 end
  return string.sub(t, 1, e)
end

-- What a chunk.upserted shows of its source, as the chunk listing shows it (see chunkSourceFields):
-- the title, the URL of a URL source, the file name of a file source, the metadata. Never a text's content.
local function feedSource(record)
  local v = redis.call('HMGET', record, 'type', 'title', 'filename', 'metadata')
  local s = {}
  if v[2] and v[2] ~= '' then s.title = feedTitle(v[2]) end
  if v[1] == 'url' then
    s.url = redis.call('HGET', record, 'content')
  elseif v[1] == 'file' then
    s.filename = v[3] or redis.call('HGET', record, 'content')
  end
  if v[4] and v[4] ~= '' and v[4] ~= '{}' then s.metadata = v[4] end
  if next(s) == nil then return '{}' end
  return cjson.encode(s)
end

-- Two sources' metadata as stored (JSON text, '' for none), flat objects of strings, numbers and booleans (the metadata schema): equal when every key has the same value.
local function feedSameMetadata(a, b)
  if a == b then return true end
  if a == '' or b == '' then return false end
  local x, y = cjson.decode(a), cjson.decode(b)
  for k, v in pairs(x) do
    if y[k] ~= v then return false end
  end
  for k in pairs(y) do
    if x[k] == nil then return false end
  end
  return true
end

-- An event's offset (`o`), or -1 for an event written before offsets were kept.
local function feedOffsetOf(entry)
  local fields = entry[2]
  for i = 1, #fields, 2 do
    if fields[i] == 'o' then return tonumber(fields[i + 1]) end
  end
  return -1
end

local function feedEmit(f, kind, chunkId, documentId, chunkJson, sourceJson)
  if not feedFirst then
    feedBefore = feedHead(f.stream, f.info)
    feedTotal = tonumber(redis.call('HGET', f.info, 'total') or '0')
    feedStartTotal = feedTotal
  end
  feedWritten = feedWritten + 1
  local id
  local offset = feedTotal
  if kind == 'u' then
    id = redis.call('XADD', f.stream, '*', 'k', 'u', 'c', chunkId, 'd', documentId, 'j', chunkJson, 's', sourceJson, 'o', offset)
    feedTotal = feedTotal + #chunkId + #documentId + #chunkJson + #sourceJson
  elseif kind == 'd' then
    id = redis.call('XADD', f.stream, '*', 'k', 'd', 'c', chunkId, 'd', documentId, 'o', offset)
    feedTotal = feedTotal + #chunkId + #documentId
  else
    id = redis.call('XADD', f.stream, '*', 'k', kind, 'o', offset)
  end
  feedTotal = feedTotal + FEED_EVENT_OVERHEAD
  if not feedFirst then feedFirst = id end
  feedLast = id
end

-- Emits a chunk.deleted for each chunk the source had in the feed, and forgets them; with
-- `record`, an emission of its chunks under way (see stagedWrite) is superseded.
local function feedDropAll(f, chunkIds, documentId, record)
  if record then redis.call('HDEL', record, 'chunkEmit') end
  for _, id in ipairs(redis.call('HKEYS', chunkIds)) do feedEmit(f, 'd', id, documentId) end
  redis.call('DEL', chunkIds)
end

-- Replaces a source's chunks in the feed by `entries` ({i = id, g = digest, j = chunk JSON}),
-- superseding an emission of its chunks under way (see stagedWrite).
local function feedReplace(f, chunkIds, record, documentId, entries)
  redis.call('HDEL', record, 'chunkEmit')
  local flat = redis.call('HGETALL', chunkIds)
  local old = {}
  for i = 1, #flat, 2 do old[flat[i]] = flat[i + 1] end
  local kept, src = {}, nil
  for _, e in ipairs(entries) do
    kept[e.i] = true
    if old[e.i] ~= e.g then
      src = src or feedSource(record)
      feedEmit(f, 'u', e.i, documentId, e.j, src)
    end
  end
  for i = 1, #flat, 2 do
    if not kept[flat[i]] then feedEmit(f, 'd', flat[i], documentId) end
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

-- The newest event at or before `id`, or nil.
local function feedAtOrBefore(stream, id)
  return redis.call('XREVRANGE', stream, id, '-', 'COUNT', 1)[1]
end

-- The id of the oldest event whose offset is `target` or more (nil when none), found by
-- bisection over the ids' milliseconds, then over the sequence within that millisecond:
-- offsets grow with ids, so this is some sixty lookups whatever the feed's length.
local function feedFirstFrom(stream, target, firstId, lastId)
  local lo = tonumber(string.match(firstId, '^(%d+)-'))
  local hi = tonumber(string.match(lastId, '^(%d+)-'))
  local function reaches(id)
    local e = feedAtOrBefore(stream, id)
    return e ~= nil and feedOffsetOf(e) >= target, e
  end
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if reaches(string.format('%d-%s', mid, FEED_MAX_SEQ)) then hi = mid else lo = mid + 1 end
  end
  local ok, e = reaches(string.format('%d-%s', lo, FEED_MAX_SEQ))
  if not ok then return nil end
  local slo, shi = 0, tonumber(string.match(e[1], '-(%d+)$'))
  while slo < shi do
    local mid = math.floor((slo + shi) / 2)
    if reaches(string.format('%d-%d', lo, mid)) then shi = mid else slo = mid + 1 end
  end
  return string.format('%d-%d', lo, slo)
end

-- The bytes the stream holds (the running total less the oldest event's offset), and its oldest event.
local function feedHeld(f, total)
  local first = redis.call('XRANGE', f.stream, '-', '+', 'COUNT', 1)[1]
  if not first then return 0, nil end
  return total - math.max(0, feedOffsetOf(first)), first
end

-- Drops events past retention, past the count cap and past the byte cap (`maxBytes`, default the
-- feed's), remembering the newest one dropped, and records the bytes held. Freeing events costs
-- Redis about a microsecond a stream node, so one call drops at most FEED_TRIM_STEP bytes (and
-- the event reaching past them) beside what the script wrote (and FEED_TRIM_EVENTS events beside
-- those it wrote): a feed far past a bound (retention reached by a whole feed at once, a lowered setting) comes back under it over
-- the next writes and reads, each of them short; no bound's excess ever grows.
local function feedTrim(f, maxBytes)
  local first = redis.call('XRANGE', f.stream, '-', '+', 'COUNT', 1)[1]
  if not first then return end
  local total = feedTotal or tonumber(redis.call('HGET', f.info, 'total') or '0')
  local written = feedTotal and (feedTotal - feedStartTotal) or 0
  local firstOffset = math.max(0, feedOffsetOf(first))
  local held = total - firstOffset
  -- The events before `cutId` go ('' for all), or without it those before the first event at offset `target` or past.
  local target, cutId = nil, nil
  local function want(t, id)
    if target == nil or t > target then target, cutId = t, id end
  end
  if feedCompare(first[1], f.minId) < 0 then
    local young = redis.call('XRANGE', f.stream, f.minId, '+', 'COUNT', 1)[1]
    if young then want(math.max(0, feedOffsetOf(young)), young[1]) else want(total, '') end
  end
  local over = redis.call('XLEN', f.stream) - f.maxEvents
  if over > 0 then
    over = math.min(over, FEED_TRIM_EVENTS + feedWritten)
    local e = redis.call('XRANGE', f.stream, '-', '+', 'COUNT', over + 1)[over + 1]
    if e then want(math.max(0, feedOffsetOf(e)), e[1]) else want(total, '') end
  end
  local cap = maxBytes or f.maxBytes
  if held > cap then want(total - cap, nil) end
  if target == nil then
    redis.call('HSET', f.info, 'bytes', held)
    return
  end
  local limit = firstOffset + FEED_TRIM_STEP + written
  if target > limit then target, cutId = limit, nil end
  local last = redis.call('XREVRANGE', f.stream, '+', '-', 'COUNT', 1)[1]
  if cutId == nil then cutId = feedFirstFrom(f.stream, target, first[1], last[1]) or '' end
  local floor = nil
  if cutId == '' then
    floor = last[1]
    redis.call('XTRIM', f.stream, 'MAXLEN', 0)
  else
    local before = feedAtOrBefore(f.stream, '(' .. cutId)
    if before then
      floor = before[1]
      redis.call('XTRIM', f.stream, 'MINID', cutId)
    end
  end
  if floor then redis.call('HSET', f.info, 'floor', floor) end
  redis.call('HSET', f.info, 'bytes', (feedHeld(f, total)))
end

-- After a script's writes: records the head and the running count, trims the feed when it
-- wrote, and gives the range it wrote: the position before its first event and its last
-- event ('' and '' for none).
local function feedFinish(f)
  if feedLast then
    redis.call('HSET', f.info, 'head', feedLast, 'total', feedTotal)
    local owner = redis.call('HGET', f.meta, 'workspaceId')
    if owner then redis.call('HSET', f.info, 'workspaceId', owner) end
    feedTrim(f)
  end
  return feedBefore or '', feedLast or ''
end
