--[[
  Worker: marks a pending source processing, if this run still owns it, and
  records which attempt claimed it. An attempt that takes a processing source
  over (its job was found stalled) becomes the claimant, so the attempt it
  replaced can no longer finish it.

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set   KEYS[3] source record
    ARGV[1] JSON: {documentId, run, claim, now (ISO), nowMs}
            claim: the attempt's job lock token ('' for none: the claim is cleared)

  Output: {'ok'} | {'gone'} | {'stale'} | {<final status>}
]]
--- @include "checkRun"
--- @include "lifecycle"

local p = cjson.decode(ARGV[1])
local meta, active, record = KEYS[1], KEYS[2], KEYS[3]
local st, refused = checkRun(meta, record, p.run)
if not st then return {refused} end
if st == 'pending' then
  moveStatus(meta, record, st, 'processing')
  redis.call('HSET', record, 'updatedAt', p.now)
  redis.call('ZADD', active, p.nowMs, p.documentId)
  redis.call('HINCRBY', meta, 'rev', 1)
end
if p.claim ~= '' then
  redis.call('HSET', record, 'claim', p.claim)
else
  redis.call('HDEL', record, 'claim')
end
return {'ok'}
