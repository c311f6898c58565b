--[[
  Worker: records the end of a site's discovery once; a discovery of an older
  run (the site was restarted or deleted since) writes nothing.

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set   KEYS[3] site record
    ARGV[1] JSON: {run, now (ISO), state: 'done' | 'failed', fields: {...}, event: its site.discovered ({type, key, data}), outbox: see the outbox include}

  Output: {'ok', settled, ...counts} | {'stale'}
    The counts are the knowledge base's, in the order of SOURCE_STATUSES;
    `settled` is the knowledge base's settle number when this end left no
    source active and no site discovering, else 0.
]]
--- @include "hsetTable"
--- @include "lifecycle"
--- @include "outbox"

local p = cjson.decode(ARGV[1])
local meta, site = KEYS[1], KEYS[3]
if redis.call('HGET', site, 'run') ~= tostring(p.run) or siteState(site) ~= 'discovering' then
  return {'stale'}
end
moveSite(meta, site, 'discovering', p.state)
hsetTable(site, p.fields)
touchKb(meta, p.now)
local settled, counts = settleIfIdle(meta)
outboxEvent(p.outbox, p.event)
outboxSettled(p.outbox, settled, counts)
return {'ok', settled, unpack(counts)}
