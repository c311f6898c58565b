--[[
  Worker: claims a batch's text sources for one attempt, as startSource.lua
  claims one (see the claimRecord include), and replies with what the batch
  goes on with: each source's record after its claim (a text source's text is
  in it) and the knowledge base's own chunking settings. One script for the
  batch: its records are a few hundred kilobytes at most (a batch of texts is
  bounded, see TEXT_BATCH_MAX_BYTES).

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set
    ARGV[1] JSON: {sources: [{documentId, run}], claim, now (ISO), nowMs, workspaceId, recordPrefix}
            claim: the attempt's job lock token ('' for none: the claims are cleared)
            workspaceId: the job's workspace ('' checks none); a knowledge base
            of another workspace is 'gone', and nothing is written
            recordPrefix .. documentId: a source's record

  Output: {'ok', chunkMax, chunkOverlap, ...claims} | {'gone'}
    chunkMax, chunkOverlap: the knowledge base's own chunking settings ('' when it has none).
    claims: for each source in order, its result ('ok', 'gone', 'stale' or its final status),
    the number of record values that follow (0 unless 'ok'), then its record as HGETALL gives it.
]]
--- @include "claimRecord"
--- @include "lifecycle"

local p = cjson.decode(ARGV[1])
local meta, active = KEYS[1], KEYS[2]
-- A job added by hand that names another workspace than the owner's is never processed.
if p.workspaceId ~= '' and redis.call('HGET', meta, 'workspaceId') ~= p.workspaceId then return {'gone'} end
local chunking = redis.call('HMGET', meta, 'chunkMaxTokens', 'chunkOverlapTokens')
local out = {'ok', chunking[1] or '', chunking[2] or ''}
local moved = false
for _, s in ipairs(p.sources) do
  local record = p.recordPrefix .. s.documentId
  local st, refused = claimRecord(meta, active, record, s.documentId, s.run, p)
  if st then
    moved = moved or st == 'pending'
    local values = redis.call('HGETALL', record)
    out[#out + 1] = 'ok'
    out[#out + 1] = #values
    for i = 1, #values do out[#out + 1] = values[i] end
  else
    out[#out + 1] = refused
    out[#out + 1] = 0
  end
end
if moved then touchKb(meta) end
return out
