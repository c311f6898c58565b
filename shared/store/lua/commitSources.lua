--[[
  Adds sources to a knowledge base, creating it when asked; all or nothing.
  Staged upload bytes are moved to their source's blob key. A source whose
  fingerprint the knowledge base already has (or that repeats one earlier in
  the same request) is not added: its staged bytes are dropped and the
  existing source stays as it is. A source that reuses an extraction of the
  same bytes elsewhere in the workspace is added `ready`, with that text,
  Markdown and chunks, and no staged bytes kept; when those chunks were cut
  with other settings than this knowledge base's, it takes the text and
  Markdown only and is added `pending` with `rechunkOnly`, for a worker to
  cut its chunks (never reusing chunks of another bound).

  Input:
    KEYS[1] meta hash of the knowledge base
    KEYS[2] list of its source ids, in order
    KEYS[3] sorted set of its active (pending or processing) sources
    KEYS[4] hash of its sources by fingerprint
    KEYS[5] list of its site ids
    KEYS[6] its pending emissions (sorted set: documentId to ms)
    ARGV[1] JSON: {create, kbId, workspaceId, name?, autoRefreshHours?, ifRev?, now, nowMs, ttl,
                   chunkMaxTokens?, chunkOverlapTokens?, defaultChunking (tag when the knowledge base has none),
                   prefixes: {record, text, blob, markdown, chunks, chunkIds, emitList, emitSeen},
                   sources: [{stageKey?, fields: {...}, reuse?: {fields, text, markdown, chunks: [...], feed: [...]}
                     or, for a large extraction staged before the script (see the stagedWrite include),
                     reuse?: {fields, staged: {text, markdown, chunks, feed: {key, size}, feedBytes, extractedBytes}}}],
                   sites?: [{key, id, fields}], maxSites?, siteGuard?: {key, run}, maxSources?, partial?,
                   feed: see the feed include}
            a prefix .. documentId is that source's key of that kind;
            ifRev: change nothing unless the knowledge base is at this revision;
            sites: new site records (each counted in the meta's sitesDiscovering), at most maxSites in all;
            siteGuard: a discovery's pages, added only while that site is at that run;
            maxSources: the quota of sources per knowledge base; past it nothing is added
            (`over_quota`, with the count the knowledge base would have), or with `partial`
            the sources that fit are added and the rest left out (counted in `left`).
            A staged reuse is renamed into place; its feed events are emitChunks' to write
            (the record's `chunkEmit` marker). stage_missing: staged bytes or a staged reuse are gone (expired).

  Output: {'ok', rev, left, ...skipped} | {'over_quota', would} | {'exists'} | {'missing'} | {'forbidden'} | {'stage_missing'}
        | {'precondition_failed', rev} | {'too_many_sites'} | {'site_gone'}
]]
--- @include "checkOwner"
--- @include "feed"
--- @include "hsetTable"
--- @include "lifecycle"
--- @include "stagedWrite"
--- @include "storedBytes"

local p = cjson.decode(ARGV[1])
local meta, ids, active, fingerprints, sites = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local at = p.prefixes
if p.create then
  if redis.call('EXISTS', meta) == 1 then return {'exists'} end
else
  local refused = checkOwner(meta, p.workspaceId)
  if refused then return {refused} end
  local rev = readRev(meta)
  if p.ifRev and p.ifRev ~= rev then return {'precondition_failed', rev} end
end
-- Drops the staged keys of a reused extraction the commit leaves out.
local function dropReused(s)
  local staged = s.reuse and s.reuse.staged
  if staged then redis.call('UNLINK', staged.text.key, staged.markdown.key, staged.chunks.key, staged.feed.key) end
end
for _, s in ipairs(p.sources) do
  if s.stageKey and redis.call('EXISTS', s.stageKey) == 0 then return {'stage_missing'} end
  local staged = s.reuse and s.reuse.staged
  if staged and not (stagedString(staged.text.key, staged.text.size) and stagedString(staged.markdown.key, staged.markdown.size)
      and stagedList(staged.chunks.key, staged.chunks.size) and stagedList(staged.feed.key, staged.feed.size)) then
    return {'stage_missing'}
  end
end
if p.siteGuard and redis.call('HGET', p.siteGuard.key, 'run') ~= p.siteGuard.run then return {'site_gone'} end
if p.sites and #p.sites > 0 and redis.call('LLEN', sites) + #p.sites > p.maxSites then return {'too_many_sites'} end
-- The quota counts the sources this commit would really add: not those the knowledge base has, nor repeats.
local over = {}
if p.maxSources then
  local room, adding, seen = p.maxSources - redis.call('LLEN', ids), 0, {}
  for i, s in ipairs(p.sources) do
    local fp = s.fields.fingerprint
    local same = redis.call('HGET', fingerprints, fp)
    if seen[fp] then
      over[i] = seen[fp] == 'over' or nil
    elseif not (same and redis.call('EXISTS', at.record .. same) == 1) then
      adding = adding + 1
      seen[fp] = adding > room and 'over' or 'in'
      over[i] = adding > room or nil
    end
  end
  if adding > 0 and adding > room and not p.partial then return {'over_quota', p.maxSources - room + adding} end
end
if p.create then
  redis.call('HSET', meta, 'kbId', p.kbId, 'workspaceId', p.workspaceId, 'name', p.name, 'createdAt', p.now)
  writeCounts(meta, nil)
elseif p.name then
  redis.call('HSET', meta, 'name', p.name)
end
if p.autoRefreshHours then redis.call('HSET', meta, 'autoRefreshHours', p.autoRefreshHours) end
if p.chunkMaxTokens then redis.call('HSET', meta, 'chunkMaxTokens', p.chunkMaxTokens, 'chunkOverlapTokens', p.chunkOverlapTokens) end
local chunkMax = redis.call('HGET', meta, 'chunkMaxTokens')
local chunking = p.defaultChunking
if chunkMax then chunking = chunkMax .. '/' .. (redis.call('HGET', meta, 'chunkOverlapTokens') or '0') end
for _, site in ipairs(p.sites or {}) do
  moveSite(meta, site.key, nil, 'discovering')
  hsetTable(site.key, site.fields)
  redis.call('RPUSH', sites, site.id)
end
local skipped, left = {}, 0
for i, s in ipairs(p.sources) do
  local id = s.fields.documentId
  local record = at.record .. id
  local same = redis.call('HGET', fingerprints, s.fields.fingerprint)
  if over[i] then
    skipped[#skipped + 1] = id
    left = left + 1
    if s.stageKey then redis.call('DEL', s.stageKey) end
    dropReused(s)
  elseif same and redis.call('EXISTS', at.record .. same) == 1 then
    skipped[#skipped + 1] = id
    if s.stageKey then redis.call('DEL', s.stageKey) end
    dropReused(s)
  elseif s.reuse and s.reuse.fields.chunking ~= chunking then
    redis.call('HSET', fingerprints, s.fields.fingerprint, id)
    hsetTable(record, s.fields)
    hsetTable(record, s.reuse.fields)
    redis.call('HDEL', record, 'chunkCount', 'chunking')
    redis.call('HSET', record, 'rechunkOnly', '1')
    moveStatus(meta, record, nil, 'pending')
    redis.call('RPUSH', ids, id)
    redis.call('ZADD', active, p.nowMs, id)
    local staged = s.reuse.staged
    if staged then
      stagedInstall(staged.text.key, at.text .. id)
      stagedInstall(staged.markdown.key, at.markdown .. id)
      redis.call('UNLINK', staged.chunks.key, staged.feed.key)
      setBytes(meta, record, 'extractedBytes', staged.text.size + staged.markdown.size)
    else
      redis.call('SET', at.text .. id, s.reuse.text)
      redis.call('SET', at.markdown .. id, s.reuse.markdown)
      setBytes(meta, record, 'extractedBytes', extractionBytes(s.reuse.text, s.reuse.markdown, {}))
    end
    if s.stageKey then redis.call('DEL', s.stageKey) end
  elseif s.reuse then
    redis.call('HSET', fingerprints, s.fields.fingerprint, id)
    hsetTable(record, s.fields)
    hsetTable(record, s.reuse.fields)
    moveStatus(meta, record, nil, 'ready')
    redis.call('RPUSH', ids, id)
    local staged = s.reuse.staged
    if staged then
      stagedInstall(staged.text.key, at.text .. id)
      stagedInstall(staged.markdown.key, at.markdown .. id)
      stagedInstall(staged.chunks.key, at.chunks .. id)
      chunkEmitStart(meta, record, at.emitList .. id, at.emitSeen .. id, KEYS[6], staged.feed.key, staged.feedBytes, id, p.nowMs)
      setBytes(meta, record, 'extractedBytes', staged.extractedBytes)
    else
      redis.call('SET', at.text .. id, s.reuse.text)
      redis.call('SET', at.markdown .. id, s.reuse.markdown)
      for i = 1, #s.reuse.chunks, 500 do
        redis.call('RPUSH', at.chunks .. id, unpack(s.reuse.chunks, i, math.min(i + 499, #s.reuse.chunks)))
      end
      feedReplace(p.feed, at.chunkIds .. id, record, id, s.reuse.feed)
      setBytes(meta, record, 'extractedBytes', extractionBytes(s.reuse.text, s.reuse.markdown, s.reuse.chunks))
    end
    if s.stageKey then redis.call('DEL', s.stageKey) end
  else
    redis.call('HSET', fingerprints, s.fields.fingerprint, id)
    hsetTable(record, s.fields)
    moveStatus(meta, record, nil, 'pending')
    redis.call('RPUSH', ids, id)
    redis.call('ZADD', active, p.nowMs, id)
    if s.stageKey then
      local blob = at.blob .. id
      redis.call('RENAME', s.stageKey, blob)
      redis.call('EXPIRE', blob, p.ttl)
      setBytes(meta, record, 'inputBytes', redis.call('STRLEN', blob))
    elseif s.fields.type == 'text' then
      setBytes(meta, record, 'inputBytes', #s.fields.content)
    end
  end
end
feedFinish(p.feed)
return {'ok', touchKb(meta, p.now), left, unpack(skipped)}
