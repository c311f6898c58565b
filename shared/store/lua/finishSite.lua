--[[
  Worker: records the end of a site's discovery once; a discovery of an older
  run (the site was restarted or deleted since) writes nothing.

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set   KEYS[3] site record
    ARGV[1] JSON: {run, now (ISO), fields: {...}, event: its site.discovered ({type, key, data}), outbox: see the outbox include}

  Output: {'ok', settled, ...counts} | {'stale'}
    The counts are the knowledge base's, in the order of SOURCE_STATUSES;
    `settled` is the knowledge base's settle number when this end left no
    source active and no site discovering, else 0.
]]
--- @include "hsetTable"
--- @include "lifecycle"
--- @include "outbox"
--- @include "settle"

local p = cjson.decode(ARGV[1])
local meta, site = KEYS[1], KEYS[3]
if redis.call('HGET', site, 'run') ~= tostring(p.run) or redis.call('HGET', site, 'state') ~= 'discovering' then
  return {'stale'}
end
hsetTable(site, p.fields)
if redis.call('HINCRBY', meta, 'sitesDiscovering', -1) < 0 then redis.call('HSET', meta, 'sitesDiscovering', 0) end
redis.call('HSET', meta, 'updatedAt', p.now)
redis.call('HINCRBY', meta, 'rev', 1)
local settled, counts = settleIfIdle(meta)
outboxEvent(p.outbox, p.event)
outboxSettled(p.outbox, settled, counts)
return {'ok', settled, unpack(counts)}
