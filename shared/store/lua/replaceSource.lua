--[[
  Replaces a ready or failed file or text source with a new version, keeping
  its documentId: the new text or the staged upload becomes its input, and a
  new run puts it back to pending. Its text, Markdown and chunks stay until
  that run ends, whose finish replaces them and writes to the change feed
  only the chunks that changed (chunk ids hang on the text, so an unchanged
  chunk keeps its id). A URL source (a site's page too) is not replaceable.

  Input:
    KEYS[1] meta hash   KEYS[2] active sorted set   KEYS[3] source record
    KEYS[4] the source's blob   KEYS[5] hash of the sources by fingerprint
    ARGV[1] JSON: {workspaceId (the caller's), documentId, now (ISO), nowMs, ifRev?, ttl (of the blob),
                   stageKey? (the upload, renamed to the blob), fields: {type, content, fingerprint, title?,
                   filename?, declaredType?, mimeType?, sizeBytes?, sha256?}}

  Output: {'ok', run, rev} | {'missing'} | {'forbidden'} | {'missing_source'} | {'not_replaceable', type}
        | {'busy', status} | {'duplicate', documentId} | {'stage_missing'} | {'precondition_failed', rev}
]]
--- @include "checkOwner"
--- @include "hsetTable"
--- @include "lifecycle"
--- @include "newRun"
--- @include "storedBytes"

local p = cjson.decode(ARGV[1])
local meta, active, record, blob, fingerprints = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local refused = checkOwner(meta, p.workspaceId)
if refused then return {refused} end
local rev = readRev(meta)
if p.ifRev and p.ifRev ~= rev then return {'precondition_failed', rev} end
local st = redis.call('HGET', record, 'status')
if not st then return {'missing_source'} end
local kind = redis.call('HGET', record, 'type')
if kind ~= 'text' and kind ~= 'file' then return {'not_replaceable', kind or ''} end
if not FINAL_STATUS[st] then return {'busy', st} end
if p.stageKey and redis.call('EXISTS', p.stageKey) == 0 then return {'stage_missing'} end
-- The record's key is the prefix of every source's: another source with the same content is refused.
local prefix = string.sub(record, 1, #record - #p.documentId)
local same = redis.call('HGET', fingerprints, p.fields.fingerprint)
if same and same ~= p.documentId and redis.call('EXISTS', prefix .. same) == 1 then return {'duplicate', same} end

local oldFingerprint = redis.call('HGET', record, 'fingerprint')
if oldFingerprint and redis.call('HGET', fingerprints, oldFingerprint) == p.documentId then
  redis.call('HDEL', fingerprints, oldFingerprint)
end
redis.call('HSET', fingerprints, p.fields.fingerprint, p.documentId)
-- What described the previous input goes (a page count the new version's finish may not write again too);
-- what its extraction needs stays until the run ends.
redis.call('HDEL', record, 'title', 'filename', 'declaredType', 'sha256', 'pageCount', 'rechunkOnly', 'batchJob', 'refreshFrom', 'etag', 'lastModified')
hsetTable(record, p.fields)
moveStatus(meta, record, st, 'pending')
local run = newRun(active, record, p.documentId, p.now, p.nowMs)
redis.call('DEL', blob)
if p.stageKey then
  redis.call('RENAME', p.stageKey, blob)
  redis.call('EXPIRE', blob, p.ttl)
  setBytes(meta, record, 'inputBytes', redis.call('STRLEN', blob))
else
  setBytes(meta, record, 'inputBytes', #p.fields.content)
end
return {'ok', run, touchKb(meta, p.now)}
