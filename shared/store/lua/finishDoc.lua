--[[
  Worker: records the outcome of a source once; a duplicate or stale run
  writes nothing.

  Input:
    KEYS[1] meta hash   KEYS[2] source hash   KEYS[3] active sorted set
    KEYS[4] text   KEYS[5] blob
    ARGV[1] run   ARGV[2] now (ISO)   ARGV[3] status: 'ready' | 'failed'
    ARGV[4] JSON of the source fields to set   ARGV[5] text (ready only)
    ARGV[6] '1' keeps the blob for a later retry   ARGV[7] document id

  Output: {'ok'} | {'gone'} | {'stale'} | {'ready'} | {'failed'}
]]
--- @include "checkRun"
--- @include "hsetTable"

local st, refused = checkRun(KEYS[1], KEYS[2], ARGV[1])
if not st then return {refused} end
redis.call('HDEL', KEYS[2], 'error')
hsetTable(KEYS[2], cjson.decode(ARGV[4]))
redis.call('HSET', KEYS[2], 'status', ARGV[3], 'updatedAt', ARGV[2])
if ARGV[3] == 'ready' then
  redis.call('SET', KEYS[4], ARGV[5])
else
  redis.call('DEL', KEYS[4])
end
if ARGV[6] ~= '1' then redis.call('DEL', KEYS[5]) end
redis.call('ZREM', KEYS[3], ARGV[7])
redis.call('HINCRBY', KEYS[1], 'n:' .. st, -1)
redis.call('HINCRBY', KEYS[1], 'n:' .. ARGV[3], 1)
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[2])
return {'ok'}
