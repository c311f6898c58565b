--[[
  Worker: marks a pending source processing, if this run still owns it, and
  records which attempt claimed it. An attempt that takes a processing source
  over (its job was found stalled) becomes the claimant, so the attempt it
  replaced can no longer finish it.

  Input:
    KEYS[1] meta hash   KEYS[2] source hash   KEYS[3] active sorted set
    ARGV[1] run   ARGV[2] now (ISO)   ARGV[3] now (ms)   ARGV[4] document id
    ARGV[5] the attempt's job lock token ('' for none: the claim is cleared)

  Output: {'ok'} | {'gone'} | {'stale'} | {'ready'} | {'failed'}
]]
--- @include "checkRun"

local st, refused = checkRun(KEYS[1], KEYS[2], ARGV[1])
if not st then return {refused} end
if st == 'pending' then
  redis.call('HSET', KEYS[2], 'status', 'processing', 'updatedAt', ARGV[2])
  redis.call('HINCRBY', KEYS[1], 'n:pending', -1)
  redis.call('HINCRBY', KEYS[1], 'n:processing', 1)
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
  redis.call('HINCRBY', KEYS[1], 'rev', 1)
end
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[2], 'claim', ARGV[5])
else
  redis.call('HDEL', KEYS[2], 'claim')
end
return {'ok'}
