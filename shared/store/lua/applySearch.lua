--[[
  Applies a batch of change-feed events to a knowledge base's search index,
  fenced by the feed position the index is at, so replicas that catch the
  index up at the same time apply each event once.

  Input:
    KEYS[1] index state hash   KEYS[2] indexed chunks hash   KEYS[3] term set
    ARGV[1] JSON: {from (the position the batch starts after), to, stemmer, reset, postings (prefix .. term),
                   ops: [{id, doc?}]: doc (JSON {d: documentId, i: index, b, h: body and heading lengths,
                   t: {term: 'bodyCount,headingCount'}}) indexes the chunk; without it the chunk goes}
            reset: drop the whole index first (a rebuild from the chunk listing).

  Output: {'ok'} | {'moved', at}
    moved: the index is not at `from` (another replica applied it, or the stemmer changed); at: where it is.
]]

local p = cjson.decode(ARGV[1])
local state, docs, terms = KEYS[1], KEYS[2], KEYS[3]
local at = redis.call('HGET', state, 'cursor') or '0-0'
local stemmer = redis.call('HGET', state, 'stemmer') or p.stemmer
if not p.reset and (at ~= p.from or stemmer ~= p.stemmer) then return {'moved', at} end
if p.reset then
  for _, term in ipairs(redis.call('SMEMBERS', terms)) do redis.call('DEL', p.postings .. term) end
  redis.call('DEL', state, docs, terms)
end

local function unindex(id)
  local raw = redis.call('HGET', docs, id)
  if raw then
    local d = cjson.decode(raw)
    for term, _ in pairs(d.t) do
      local key = p.postings .. term
      redis.call('HDEL', key, id)
      if redis.call('EXISTS', key) == 0 then redis.call('SREM', terms, term) end
    end
    redis.call('HDEL', docs, id)
    redis.call('HINCRBY', state, 'n', -1)
    redis.call('HINCRBY', state, 'bodyLength', -d.b)
    redis.call('HINCRBY', state, 'headingLength', -d.h)
  end
end

for _, op in ipairs(p.ops) do
  unindex(op.id)
  if op.doc then
    local d = cjson.decode(op.doc)
    for term, tf in pairs(d.t) do
      redis.call('HSET', p.postings .. term, op.id, tf .. ',' .. d.b .. ',' .. d.h)
      redis.call('SADD', terms, term)
    end
    redis.call('HSET', docs, op.id, op.doc)
    redis.call('HINCRBY', state, 'n', 1)
    redis.call('HINCRBY', state, 'bodyLength', d.b)
    redis.call('HINCRBY', state, 'headingLength', d.h)
  end
end
redis.call('HSET', state, 'cursor', p.to, 'stemmer', p.stemmer)
return {'ok'}
