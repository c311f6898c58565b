--[[
  Deletes one source with its text and blob.

  Input:
    KEYS[1] meta hash   KEYS[2] document id list   KEYS[3] active sorted set
    KEYS[4] source hash   KEYS[5] text   KEYS[6] blob   KEYS[7] Markdown   KEYS[8] chunk list
    KEYS[9] fingerprint hash
    ARGV[1] workspace id of the caller   ARGV[2] document id   ARGV[3] now (ISO)

  Output: {'ok'} | {'missing'} | {'forbidden'} | {'missing_doc'}
]]
--- @include "checkOwner"

local refused = checkOwner(KEYS[1], ARGV[1])
if refused then return {refused} end
local st = redis.call('HGET', KEYS[4], 'status')
if not st then return {'missing_doc'} end
local fingerprint = redis.call('HGET', KEYS[4], 'fingerprint')
if fingerprint and redis.call('HGET', KEYS[9], fingerprint) == ARGV[2] then redis.call('HDEL', KEYS[9], fingerprint) end
redis.call('LREM', KEYS[2], 0, ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('DEL', KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8])
redis.call('HINCRBY', KEYS[1], 'n:' .. st, -1)
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return {'ok'}
