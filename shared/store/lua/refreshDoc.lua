--[[
  Puts a ready or failed URL source back to pending under a new run, to be
  fetched again. Its text, Markdown and chunks stay until the new run ends,
  so content found unchanged needs no new extraction.

  Input:
    KEYS[1] meta hash   KEYS[2] source hash   KEYS[3] active sorted set
    ARGV[1] workspace id of the caller   ARGV[2] now (ISO)   ARGV[3] now (ms)
    ARGV[4] document id

  Output: {'ok', run} | {'missing'} | {'forbidden'} | {'missing_doc'}
        | {'not_url'} | {'busy', status}
]]
--- @include "checkOwner"

local refused = checkOwner(KEYS[1], ARGV[1])
if refused then return {refused} end
local st = redis.call('HGET', KEYS[2], 'status')
if not st then return {'missing_doc'} end
if redis.call('HGET', KEYS[2], 'type') ~= 'url' then return {'not_url'} end
if st ~= 'ready' and st ~= 'failed' then return {'busy', st} end
local run = redis.call('HINCRBY', KEYS[2], 'run', 1)
redis.call('HDEL', KEYS[2], 'error')
redis.call('HSET', KEYS[2], 'status', 'pending', 'updatedAt', ARGV[2], 'refreshFrom', st)
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
redis.call('HINCRBY', KEYS[1], 'n:' .. st, -1)
redis.call('HINCRBY', KEYS[1], 'n:pending', 1)
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return {'ok', run}
