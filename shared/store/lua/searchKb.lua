--[[
  API: the best chunks of a knowledge base for a query's terms, by BM25 with
  the heading path weighted, read from its search index in one call
  (searchTopK of the searchRank include), with each chunk's source record,
  entry and text.

  The index must have applied every event of the feed and have been built
  with the caller's stemmer and layout (else 'behind', and the caller
  catches it up first), unless `stale` lets it trail.

  Input:
    KEYS[1] index state hash   KEYS[2] indexed chunks hash   KEYS[3] feed stream
    ARGV[1] JSON: {stemmer, layout, k1, b, weight, stale, terms, k, postings (prefix .. term),
                   sources, chunks, markdown (prefixes .. documentId),
                   documentIds? (only these sources), metadata? (only sources whose metadata has these values)}

  Output: {'ok', ...hits} | {'behind'}
    hits: six values each, best first: chunk id, score, documentId, source record (JSON object),
    chunk entry (JSON), chunk text.
]]
--- @include "feed"
--- @include "searchRank"

local p = cjson.decode(ARGV[1])
local state, docs, stream = KEYS[1], KEYS[2], KEYS[3]
local s = redis.call('HMGET', state, 'cursor', 'stemmer', 'layout', 'n', 'bodyLength', 'headingLength', 'avgRef')
if not p.stale then
  local head = feedHead(stream)
  if (s[1] or '0-0') ~= head or (s[1] and (s[2] ~= p.stemmer or s[3] ~= p.layout)) then return {'behind'} end
end
local n = tonumber(s[4]) or 0
if n <= 0 or s[3] ~= p.layout then return {'ok'} end

local ctx = {
  lists = {}, k = p.k, k1 = p.k1, b = p.b, w = p.weight, docs = docs, sources = p.sources, metadata = p.metadata,
}
ctx.avg = math.max((tonumber(s[5]) + p.weight * tonumber(s[6])) / n, 1)
ctx.avgRef = tonumber(s[7]) or ctx.avg
for _, term in ipairs(p.terms) do
  local key = p.postings .. term
  local df = redis.call('ZCARD', key)
  if df > 0 then
    local top = redis.call('ZREVRANGE', key, 0, 0, 'WITHSCORES')
    ctx.lists[#ctx.lists + 1] = {key = key, idf = math.log(1 + (n - df + 0.5) / (df + 0.5)), pos = 0, last = tonumber(top[2]), done = false}
  end
end
if p.documentIds then
  ctx.onlyDocs = {}
  for _, d in ipairs(p.documentIds) do ctx.onlyDocs[d] = true end
end

local out = {}
for _, hit in ipairs(searchTopK(ctx)) do
  local entry = redis.call('LINDEX', p.chunks .. hit.d, hit.i)
  if entry then
    local flat = redis.call('HGETALL', p.sources .. hit.d)
    local record = {}
    for i = 1, #flat, 2 do record[flat[i]] = flat[i + 1] end
    local c = cjson.decode(entry)
    out[#out + 1] = hit.id
    out[#out + 1] = string.format('%.17g', hit.score)
    out[#out + 1] = hit.d
    out[#out + 1] = cjson.encode(record)
    out[#out + 1] = entry
    out[#out + 1] = c.byteEnd > c.byteStart and redis.call('GETRANGE', p.markdown .. hit.d, c.byteStart, c.byteEnd - 1) or ''
  end
end
-- At most 100 hits of six values: within what unpack() can put on the Lua stack.
return {'ok', unpack(out)}
