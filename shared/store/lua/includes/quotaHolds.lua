--[[
  A workspace's quota holds, on the workspace's slot: reservations taken by
  requests between their check and their commit (`r:<id>` in the hash, the
  id in the `live` sorted set scored by when it lapses, their sums in
  `liveBytes` and `liveSources`), and the commits settled lately (the
  `settled` sorted set, scored by the epoch each settle raised, members
  `epoch:bytes:sources:ms`). A reader sums the knowledge bases' counters
  after reading `epoch`; the settles after that epoch may be missing from
  its sum, so they are counted for it. Settled entries are kept HOLDS_KEEP_MS;
  `floor` is the newest epoch dropped, and a reader older than it reads again.
]]
local HOLDS_IDLE_MS = 3600000

local function holdsNow()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The epoch, started from the clock when the hash is new, so an epoch read before the hash expired is older than its floor.
local function holdsEpoch(holds, now)
  local epoch = redis.call('HGET', holds, 'epoch')
  if epoch then return tonumber(epoch) end
  redis.call('HSET', holds, 'epoch', now, 'floor', now)
  return now
end

-- Ends reservation `id`; its amounts count as settled (for readers that may have summed before its commit) when `settle`.
local function holdsEnd(holds, live, settled, id, settle, now, keepMs)
  local amounts = redis.call('HGET', holds, 'r:' .. id)
  redis.call('ZREM', live, id)
  if not amounts then return false end
  local bytes, sources = string.match(amounts, '^(%d+) (%d+)$')
  redis.call('HDEL', holds, 'r:' .. id)
  -- 0 - n, not -n: Lua's -0 is sent as '-0', which HINCRBY refuses.
  redis.call('HINCRBY', holds, 'liveBytes', 0 - tonumber(bytes))
  redis.call('HINCRBY', holds, 'liveSources', 0 - tonumber(sources))
  if settle then
    local epoch = holdsEpoch(holds, now) + 1
    redis.call('HSET', holds, 'epoch', epoch)
    redis.call('ZADD', settled, epoch, epoch .. ':' .. bytes .. ':' .. sources .. ':' .. (now + keepMs))
  end
  return true
end

-- Settles reservations past their life (their request's process died: it may have committed), and drops settled entries past theirs; a few per call.
local function holdsTidy(holds, live, settled, now, keepMs)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', live, '-inf', now, 'LIMIT', 0, 20)) do
    holdsEnd(holds, live, settled, id, true, now, keepMs)
  end
  for _, m in ipairs(redis.call('ZRANGE', settled, 0, 19)) do
    local epoch, expires = string.match(m, '^(%d+):%d+:%d+:(%d+)$')
    if tonumber(expires) > now then break end
    redis.call('ZREM', settled, m)
    if tonumber(epoch) > tonumber(redis.call('HGET', holds, 'floor') or '0') then redis.call('HSET', holds, 'floor', epoch) end
  end
end

-- The sources of `want` that fit in `room`: as many as do when `partial`, else all or none.
local function holdsFitting(want, room, partial)
  if partial then return math.max(0, math.min(want, room)) end
  if want <= room then return want end
  return 0
end

local function holdsKeep(holds, live, settled)
  for _, k in ipairs({holds, live, settled}) do redis.call('PEXPIRE', k, HOLDS_IDLE_MS) end
end
