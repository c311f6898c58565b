--[[
  The claim of one source for an attempt, as startSource.lua and
  startTexts.lua make it: a pending source of this run is marked processing
  and listed active; the attempt's token becomes its claim ('' clears it), so
  an attempt that takes a processing source over (its job was found stalled)
  becomes the claimant and the one it replaced can no longer finish it.
  Returns the source's status before the claim, or nil and why nothing was
  written ('gone', 'stale' or the final status).
]]
--- @include "checkRun"
--- @include "lifecycle"

local function claimRecord(meta, active, record, documentId, run, at)
  local st, refused = checkRun(meta, record, run)
  if not st then return nil, refused end
  local fields = {}
  if st == 'pending' then
    moveStatus(meta, record, st, 'processing')
    redis.call('ZADD', active, at.nowMs, documentId)
    fields = {'updatedAt', at.now}
  end
  if at.claim ~= '' then
    fields[#fields + 1] = 'claim'
    fields[#fields + 1] = at.claim
  else
    redis.call('HDEL', record, 'claim')
  end
  if #fields > 0 then redis.call('HSET', record, unpack(fields)) end
  return st
end
