--[[
  Worker: settles a knowledge base after work that ended without a source
  ending (a re-chunk of its ready sources), when nothing is left in flight.

  Input:
    KEYS[1] meta hash
    ARGV[1] JSON: {workspaceId (the job's)}

  Output: {'ok', settled, ...counts} | {'missing'} | {'forbidden'}
    settled: the knowledge base's new settle number, 0 when something is still in flight (whose end
    settles it); counts: the source counts in the order of SOURCE_STATUSES.
]]
--- @include "checkOwner"
--- @include "settle"

local p = cjson.decode(ARGV[1])
local refused = checkOwner(KEYS[1], p.workspaceId)
if refused then return {refused} end
local settled, counts = settleIfIdle(KEYS[1])
return {'ok', settled, unpack(counts)}
