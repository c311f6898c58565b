--[[
  Adds sources to a knowledge base, creating it when asked; all or nothing.
  Staged upload bytes are moved to their source's blob key. A source whose
  fingerprint the knowledge base already has (or that repeats one earlier in
  the same request) is not added: its staged bytes are dropped and the
  existing source stays as it is. A source that reuses an extraction of the
  same bytes elsewhere in the workspace is added `ready`, with that text,
  Markdown and chunks, and no staged bytes kept.

  Input:
    KEYS[1] meta hash of the knowledge base
    KEYS[2] list of its document ids, in order
    KEYS[3] sorted set of its active (pending or processing) documents
    KEYS[4] hash of its sources by fingerprint
    ARGV[1] JSON: {create: '1'|'0', kbId, workspaceId, name?, autoRefreshHours?, ifRev?, now, nowMs, ttl,
                   docPrefix, blobPrefix, textPrefix, markdownPrefix, chunksPrefix,
                   docs: [{stageKey?, fields: {...}, reuse?: {fields, text, markdown, chunks: [...]}}]}
            a prefix .. documentId is that source's hash, blob, text, Markdown or chunk list;
            ifRev: change nothing unless the knowledge base is at this revision.

  Output: {'ok', rev, skipped documentId...} | {'exists'} | {'missing'} | {'forbidden'} | {'stage_missing'}
        | {'precondition_failed', rev}
]]
--- @include "checkOwner"
--- @include "hsetTable"

local p = cjson.decode(ARGV[1])
local meta, docs, active, fingerprints = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if p.create == '1' then
  if redis.call('EXISTS', meta) == 1 then return {'exists'} end
else
  local refused = checkOwner(meta, p.workspaceId)
  if refused then return {refused} end
  local rev = redis.call('HGET', meta, 'rev') or '0'
  if p.ifRev and p.ifRev ~= rev then return {'precondition_failed', rev} end
end
for _, d in ipairs(p.docs) do
  if d.stageKey and redis.call('EXISTS', d.stageKey) == 0 then return {'stage_missing'} end
end
if p.create == '1' then
  redis.call('HSET', meta, 'kbId', p.kbId, 'workspaceId', p.workspaceId, 'name', p.name,
    'createdAt', p.now, 'n:pending', 0, 'n:processing', 0, 'n:ready', 0, 'n:failed', 0)
elseif p.name then
  redis.call('HSET', meta, 'name', p.name)
end
if p.autoRefreshHours then redis.call('HSET', meta, 'autoRefreshHours', p.autoRefreshHours) end
local pending, ready, skipped = 0, 0, {}
for _, d in ipairs(p.docs) do
  local id = d.fields.documentId
  local same = redis.call('HGET', fingerprints, d.fields.fingerprint)
  if same and redis.call('EXISTS', p.docPrefix .. same) == 1 then
    skipped[#skipped + 1] = id
    if d.stageKey then redis.call('DEL', d.stageKey) end
  elseif d.reuse then
    ready = ready + 1
    redis.call('HSET', fingerprints, d.fields.fingerprint, id)
    hsetTable(p.docPrefix .. id, d.fields)
    hsetTable(p.docPrefix .. id, d.reuse.fields)
    redis.call('HSET', p.docPrefix .. id, 'status', 'ready')
    redis.call('RPUSH', docs, id)
    redis.call('SET', p.textPrefix .. id, d.reuse.text)
    redis.call('SET', p.markdownPrefix .. id, d.reuse.markdown)
    for i = 1, #d.reuse.chunks, 500 do
      redis.call('RPUSH', p.chunksPrefix .. id, unpack(d.reuse.chunks, i, math.min(i + 499, #d.reuse.chunks)))
    end
    if d.stageKey then redis.call('DEL', d.stageKey) end
  else
    pending = pending + 1
    redis.call('HSET', fingerprints, d.fields.fingerprint, id)
    hsetTable(p.docPrefix .. id, d.fields)
    redis.call('RPUSH', docs, id)
    redis.call('ZADD', active, p.nowMs, id)
    if d.stageKey then
      local blob = p.blobPrefix .. id
      redis.call('RENAME', d.stageKey, blob)
      redis.call('EXPIRE', blob, p.ttl)
    end
  end
end
if pending > 0 then redis.call('HINCRBY', meta, 'n:pending', pending) end
if ready > 0 then redis.call('HINCRBY', meta, 'n:ready', ready) end
redis.call('HSET', meta, 'updatedAt', p.now)
return {'ok', redis.call('HINCRBY', meta, 'rev', 1), unpack(skipped)}
