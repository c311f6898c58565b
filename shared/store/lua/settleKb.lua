--[[
  Worker: settles a knowledge base after work that ended without a source
  ending (a re-chunk of its ready sources), when nothing is left in flight.

  Input:
    KEYS[1] meta hash
    ARGV[1] JSON: {workspaceId (the job's), changes: {from, to} (the feed range the whole re-chunk wrote) or absent,
                   settle: whether the re-chunk rewrote any source (else it has no settle to tell), outbox: see the outbox include}
    The re-chunk's end: one knowledge_base.changed for its whole range, then its settle.

  Output: {'ok', settled, ...counts} | {'missing'} | {'forbidden'}
    settled: the knowledge base's new settle number, 0 when something is still in flight (whose end
    settles it); counts: the source counts in the order of SOURCE_STATUSES.
]]
--- @include "checkOwner"
--- @include "lifecycle"
--- @include "outbox"

local p = cjson.decode(ARGV[1])
local refused = checkOwner(KEYS[1], p.workspaceId)
if refused then return {refused} end
if p.changes then outboxChanged(p.outbox, p.changes.from, p.changes.to) end
if not p.settle then return {'ok', 0, unpack(readCounts(KEYS[1]))} end
local settled, counts = settleIfIdle(KEYS[1])
outboxSettled(p.outbox, settled, counts)
return {'ok', settled, unpack(counts)}
