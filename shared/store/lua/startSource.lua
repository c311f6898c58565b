--[[
  Worker: marks a pending source processing, if this run still owns it, and
  records which attempt claimed it. An attempt that takes a processing source
  over (its job was found stalled) becomes the claimant, so the attempt it
  replaced can no longer finish it. Replies with what the job goes on with,
  read after the claim, so a job needs no other read before its work: the
  source's record (a text source's text is in it) and the knowledge base's
  own chunking settings.

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set   KEYS[3] source record
    ARGV[1] JSON: {documentId, run, claim, now (ISO), nowMs, workspaceId}
            claim: the attempt's job lock token ('' for none: the claim is cleared)
            workspaceId: the job's workspace ('' checks none); a knowledge base
            of another workspace is 'gone', and nothing is written

  Output: {'ok', chunkMax, chunkOverlap, ...record} | {'gone'} | {'stale'} | {<final status>}
    chunkMax, chunkOverlap: the knowledge base's own chunking settings ('' when it has none).
    record: the source's record after the claim, as HGETALL gives it (field, value, ...).
]]
--- @include "claimRecord"
--- @include "lifecycle"

local p = cjson.decode(ARGV[1])
local meta, active, record = KEYS[1], KEYS[2], KEYS[3]
-- A job added by hand that names another workspace than the owner's is never processed.
if p.workspaceId ~= '' and redis.call('HGET', meta, 'workspaceId') ~= p.workspaceId then return {'gone'} end
local st, refused = claimRecord(meta, active, record, p.documentId, p.run, p)
if not st then return {refused} end
if st == 'pending' then touchKb(meta) end
local chunking = redis.call('HMGET', meta, 'chunkMaxTokens', 'chunkOverlapTokens')
return {'ok', chunking[1] or '', chunking[2] or '', unpack(redis.call('HGETALL', record))}
