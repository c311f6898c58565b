--[[
  Removes one batch of a deleted knowledge base's leftover keys (see
  deleteKb): the keys of up to `count` sources of its sweep list, and the
  postings of up to `count` of its legacy search terms. Its cost is the
  batch's, whatever the knowledge base held; UNLINK frees large values off
  Redis's thread. Idempotent: a batch run twice removes nothing more.

  Input:
    KEYS[1] source ids to sweep (list)   KEYS[2] search terms to sweep (set)
    ARGV[1] JSON: {prefixes: {record, text, blob, markdown, chunks, chunkIds, emitList, emitSeen}, postings, count}
            a prefix .. documentId is that source's key of that kind; postings .. term a term's postings.

  Output: {'ok', left}
    left: the sources and terms still to sweep (0: the sweep is over).
]]

local p = cjson.decode(ARGV[1])
local at = p.prefixes
local ids = redis.call('LRANGE', KEYS[1], 0, p.count - 1)
for _, id in ipairs(ids) do
  redis.call('UNLINK', at.record .. id, at.text .. id, at.blob .. id, at.markdown .. id, at.chunks .. id,
    at.chunkIds .. id, at.emitList .. id, at.emitSeen .. id)
end
if #ids > 0 then redis.call('LTRIM', KEYS[1], #ids, -1) end
local terms = redis.call('SPOP', KEYS[2], p.count)
for _, term in ipairs(terms) do redis.call('UNLINK', p.postings .. term) end
return {'ok', redis.call('LLEN', KEYS[1]) + redis.call('SCARD', KEYS[2])}
