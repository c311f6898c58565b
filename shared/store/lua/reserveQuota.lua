--[[
  API and worker: checks a workspace's stored-bytes and sources-in-flight
  quotas and takes a reservation of what a request adds, in one step. What
  the workspace holds is the caller's sum of its knowledge bases' counters
  (read after `seen`, the epoch), plus the live reservations, plus the
  commits settled after `seen` (see the quotaHolds include). With
  `partial` (a site's pages) it grants as many sources as fit, and refuses
  only when none does or no byte is left; else all or nothing. A stored-bytes
  quota refuses any new byte of a workspace at its quota.

  Input:
    KEYS[1] the workspace's holds (hash)
    KEYS[2] its live reservations (sorted set: id to when it lapses, ms)
    KEYS[3] its settled commits (sorted set by epoch)
    ARGV[1] JSON: {id, seen, ttlMs, keepMs, partial, held: {bytes, sources},
                   limits: {bytes?, sources?}, adding: {bytes, sources}}

  Output: {'ok', granted} | {'in_flight', used, recount} | {'bytes', used, recount} | {'stale'}
    granted: the sources reserved; used: what the workspace holds with the reservations;
    recount: 1 when settles after `seen` were counted (the caller's sum may hold them
    too, so a fresh read may find room); stale: `seen` is older than the settles kept (read again).
]]
--- @include "quotaHolds"

local p = cjson.decode(ARGV[1])
local holds, live, settled = KEYS[1], KEYS[2], KEYS[3]
local now = holdsNow()
local seen = tonumber(p.seen)
if redis.call('EXISTS', holds) == 0 then
  if seen > 0 then return {'stale'} end
else
  holdsTidy(holds, live, settled, now, p.keepMs)
  if seen < tonumber(redis.call('HGET', holds, 'floor') or '0') then return {'stale'} end
end

local bytes = p.held.bytes + tonumber(redis.call('HGET', holds, 'liveBytes') or '0')
local sources = p.held.sources + tonumber(redis.call('HGET', holds, 'liveSources') or '0')
local recount = 0
for _, m in ipairs(redis.call('ZRANGEBYSCORE', settled, '(' .. seen, '+inf')) do
  local b, s = string.match(m, '^%d+:(%d+):(%d+):')
  bytes = bytes + tonumber(b)
  sources = sources + tonumber(s)
  recount = 1
end

local grant = p.adding.sources
if p.limits.sources and grant > 0 then
  local room = p.limits.sources - sources
  if p.partial and room > 0 then grant = math.min(grant, room) end
  if grant > room then return {'in_flight', sources, recount} end
end
if p.limits.bytes then
  local need = p.adding.bytes
  if p.partial and need == 0 then need = 1 end
  if need > 0 and bytes + need > p.limits.bytes then return {'bytes', bytes, recount} end
end
if grant > 0 or p.adding.bytes > 0 then
  holdsEpoch(holds, now)
  redis.call('HSET', holds, 'r:' .. p.id, p.adding.bytes .. ' ' .. grant)
  redis.call('HINCRBY', holds, 'liveBytes', p.adding.bytes)
  redis.call('HINCRBY', holds, 'liveSources', grant)
  redis.call('ZADD', live, now + p.ttlMs, p.id)
  holdsKeep(holds, live, settled)
end
return {'ok', grant}
