--[[
  Applies a batch of change-feed events to a knowledge base's search index,
  fenced by the feed position the index is at, so replicas that catch the
  index up at the same time apply each event once.

  A term's postings are a sorted set of chunk ids scored by the chunk's BM25
  term weight computed with `avgRef`, the average length when the index
  began: a search reads them best first and stops once nothing unread can
  rank (searchKb.lua), and recovers the exact weight under today's average
  from the score and the chunk's length.

  Input:
    KEYS[1] index state hash   KEYS[2] indexed chunks hash   KEYS[3] term set
    ARGV[1] JSON: {from (the position the batch starts after), to, stemmer, layout, k1, b, weight (of a heading word),
                   reset, postings (prefix .. term),
                   ops: [{id, doc?}]: doc (JSON {d: documentId, i: index, b, h: body and heading lengths,
                   t: {term: 'bodyCount,headingCount'}}) indexes the chunk; without it the chunk goes}
            reset: drop the whole index first (a rebuild from the chunk listing).
    The indexed chunks hash keeps, per chunk id, 'bodyLength headingLength documentId index' and, after a
    newline, the JSON array of its terms.

    The state's `bytes` estimates the index's size (a chunk's entry, and per term its id and score in the
    postings), which the workspace's usage counts.

  Output: {'ok'} | {'moved', at}
    moved: the index is not at `from` (another replica applied it, or the stemmer or layout changed); at: where it is.
]]

local p = cjson.decode(ARGV[1])
local state, docs, terms = KEYS[1], KEYS[2], KEYS[3]
local s = redis.call('HMGET', state, 'cursor', 'stemmer', 'layout', 'avgRef')
local at = s[1] or '0-0'
if not p.reset and (at ~= p.from or (s[1] and (s[2] ~= p.stemmer or s[3] ~= p.layout))) then return {'moved', at} end
if p.reset then
  for _, term in ipairs(redis.call('SMEMBERS', terms)) do redis.call('DEL', p.postings .. term) end
  redis.call('DEL', state, docs, terms)
  s[4] = false
end

local k1, b, w = p.k1, p.b, p.weight
local avgRef = tonumber(s[4])
if not avgRef then
  -- The first chunks indexed set the reference length; a later drift only loosens the search's bounds.
  local sum, count = 0, 0
  for _, op in ipairs(p.ops) do
    if op.doc then
      local d = cjson.decode(op.doc)
      sum, count = sum + d.b + w * d.h, count + 1
    end
  end
  if count > 0 then
    avgRef = math.max(sum / count, 1)
    redis.call('HSET', state, 'avgRef', string.format('%.17g', avgRef))
  end
end

-- Bytes a chunk's entry and postings take, about: the entry, and per term its id and a score.
local function entryBytes(id, raw, termCount) return #id + #raw + termCount * (#id + 88) end

local function unindex(id)
  local raw = redis.call('HGET', docs, id)
  if raw then
    local bl, hl, list = string.match(raw, '^(%d+) (%d+) %S+ %d+\n(.*)$')
    local termList = cjson.decode(list)
    redis.call('HINCRBY', state, 'bytes', -entryBytes(id, raw, #termList))
    for _, term in ipairs(termList) do
      local key = p.postings .. term
      redis.call('ZREM', key, id)
      if redis.call('EXISTS', key) == 0 then redis.call('SREM', terms, term) end
    end
    redis.call('HDEL', docs, id)
    redis.call('HINCRBY', state, 'n', -1)
    redis.call('HINCRBY', state, 'bodyLength', -tonumber(bl))
    redis.call('HINCRBY', state, 'headingLength', -tonumber(hl))
  end
end

for _, op in ipairs(p.ops) do
  unindex(op.id)
  if op.doc then
    local d = cjson.decode(op.doc)
    local norm = k1 * (1 - b + b * (d.b + w * d.h) / avgRef)
    local list = {}
    for term, counts in pairs(d.t) do
      local tb, th = string.match(counts, '^(%d+),(%d+)$')
      local tf = tonumber(tb) + w * tonumber(th)
      -- With no heading weight a chunk whose heading alone holds the term does not have it.
      if tf > 0 then
        redis.call('ZADD', p.postings .. term, string.format('%.17g', tf * (k1 + 1) / (tf + norm)), op.id)
        redis.call('SADD', terms, term)
        list[#list + 1] = term
      end
    end
    local raw = d.b .. ' ' .. d.h .. ' ' .. d.d .. ' ' .. d.i .. '\n' .. (#list > 0 and cjson.encode(list) or '[]')
    redis.call('HSET', docs, op.id, raw)
    redis.call('HINCRBY', state, 'bytes', entryBytes(op.id, raw, #list))
    redis.call('HINCRBY', state, 'n', 1)
    redis.call('HINCRBY', state, 'bodyLength', d.b)
    redis.call('HINCRBY', state, 'headingLength', d.h)
  end
end
redis.call('HSET', state, 'cursor', p.to, 'stemmer', p.stemmer, 'layout', p.layout)
return {'ok'}
