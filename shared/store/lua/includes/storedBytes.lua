--[[
  The bytes a source keeps in Redis, counted on its record and summed in its
  knowledge base's meta hash (`storedBytes`), which the workspace's byte quota
  adds up: `extractedBytes` for its text, Markdown and chunks, `inputBytes`
  for what it was given: a text source's text, or a file's uploaded bytes
  while a run may still read them, `emitBytes` for the feed entries a large
  write has still to emit (see stagedWrite). Every script that
  writes or drops those keys sets the new figure here, so the sum stays exact
  without reading the values back.
]]
local function setBytes(meta, record, field, bytes)
  local old = tonumber(redis.call('HGET', record, field) or '0')
  if bytes == old then return end
  redis.call('HINCRBY', meta, 'storedBytes', bytes - old)
  if bytes == 0 then redis.call('HDEL', record, field) else redis.call('HSET', record, field, bytes) end
end

-- A source about to be deleted: its bytes leave the knowledge base's sum.
local function dropBytes(meta, record)
  setBytes(meta, record, 'extractedBytes', 0)
  setBytes(meta, record, 'inputBytes', 0)
  setBytes(meta, record, 'emitBytes', 0)
end

-- Text, Markdown and chunk entries (Lua strings: their length is in bytes).
local function extractionBytes(text, markdown, chunks)
  local n = #text + #markdown
  for _, c in ipairs(chunks) do n = n + #c end
  return n
end
