--[[
  API and worker: ends a reservation taken by reserveQuota. `settle`: its
  request committed (or may have), so what it reserved counts as settled
  for the readers that summed the knowledge bases before the commit;
  otherwise (nothing was written) it is simply given back.

  Input:
    KEYS[1] the workspace's holds (hash)
    KEYS[2] its live reservations
    KEYS[3] its settled commits
    ARGV[1] JSON: {id, settle, keepMs}

  Output: {'ok'} | {'gone'}
    gone: the reservation had lapsed (and was settled by a later check).
]]
--- @include "quotaHolds"

local p = cjson.decode(ARGV[1])
local holds, live, settled = KEYS[1], KEYS[2], KEYS[3]
local now = holdsNow()
if not holdsEnd(holds, live, settled, p.id, p.settle, now, p.keepMs) then return {'gone'} end
holdsKeep(holds, live, settled)
return {'ok'}
