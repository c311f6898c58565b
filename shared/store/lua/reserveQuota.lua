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
    ARGV[1] JSON: {id, seen, ttlMs, keepMs, partial, last, held: {bytes, sources},
                   limits: {bytes?, sources?}, adding: {bytes, sources}}
            last: the caller's last attempt, which is never answered with recount

  Output: {'ok', granted} | {'in_flight', used, recount} | {'bytes', used, recount} | {'stale'}
    granted: the sources reserved; used: what the workspace holds with the reservations;
    recount: 1 when the caller's sum alone leaves more room: the reservations and settles
    counted beside it may be commits the sum already holds, so a fresh read may find room
    (a request is not refused, nor a site's pages cut, for room that others' ended requests left);
    stale: `seen` is older than the settles kept (read again).
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
for _, m in ipairs(redis.call('ZRANGEBYSCORE', settled, '(' .. seen, '+inf')) do
  local b, s = string.match(m, '^%d+:(%d+):(%d+):')
  bytes = bytes + tonumber(b)
  sources = sources + tonumber(s)
end

local grant = p.adding.sources
if p.limits.sources and grant > 0 then
  local fits = holdsFitting(grant, p.limits.sources - sources, p.partial)
  if not p.last and fits < holdsFitting(grant, p.limits.sources - p.held.sources, p.partial) then return {'in_flight', sources, 1} end
  if fits == 0 then return {'in_flight', sources, 0} end
  grant = fits
end
if p.limits.bytes then
  local need = p.adding.bytes
  if p.partial and need == 0 then need = 1 end
  if need > 0 and bytes + need > p.limits.bytes then
    if not p.last and p.held.bytes + need <= p.limits.bytes then return {'bytes', bytes, 1} end
    return {'bytes', bytes, 0}
  end
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
