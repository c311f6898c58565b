--[[
  Deletes a knowledge base with every source, text and blob.

  Input:
    KEYS[1] meta hash   KEYS[2] document id list   KEYS[3] active sorted set
    KEYS[4] fingerprint hash
    ARGV[1] workspace id of the caller
    ARGV[2] .. ARGV[6] key prefixes of a source's hash, text, blob, Markdown
            and chunk list (prefix .. documentId)

  Output: {'ok'} | {'missing'} | {'forbidden'}
]]
--- @include "checkOwner"

local refused = checkOwner(KEYS[1], ARGV[1])
if refused then return {refused} end
for _, id in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  redis.call('DEL', ARGV[2] .. id, ARGV[3] .. id, ARGV[4] .. id, ARGV[5] .. id, ARGV[6] .. id)
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return {'ok'}
