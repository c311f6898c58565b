/**
 * Lua scripts for knowledge-base changes. Each runs atomically on the keys of
 * one knowledge base (one hash tag), checks ownership and existence before it
 * writes anything, and keeps the per-status counters in the meta hash exact.
 */

/** Stops a script unless the KB (meta in KEYS[1]) exists and belongs to workspace ARGV[1]. */
const OWNED_KB = `local ws = redis.call('HGET', KEYS[1], 'workspaceId')
if not ws then return 'missing' end
if ws ~= ARGV[1] then return 'forbidden' end
`;

/** KEYS: meta, docs, then (doc, stage, blob) per new source. ARGV[1]: JSON payload. */
export const COMMIT_SOURCES = `
local p = cjson.decode(ARGV[1])
local meta = KEYS[1]
if p.create == '1' then
  if redis.call('EXISTS', meta) == 1 then return 'exists' end
else
  local ws = redis.call('HGET', meta, 'workspaceId')
  if not ws then return 'missing' end
  if ws ~= p.workspaceId then return 'forbidden' end
end
for i, d in ipairs(p.docs) do
  if d.staged == '1' and redis.call('EXISTS', KEYS[2 + (i - 1) * 3 + 2]) == 0 then return 'stage_missing' end
end
if p.create == '1' then
  redis.call('HSET', meta, 'kbId', p.kbId, 'workspaceId', p.workspaceId, 'name', p.name,
    'createdAt', p.now, 'n:pending', 0, 'n:processing', 0, 'n:ready', 0, 'n:failed', 0)
elseif p.name then
  redis.call('HSET', meta, 'name', p.name)
end
for i, d in ipairs(p.docs) do
  local base = 2 + (i - 1) * 3
  local fields = {}
  for k, v in pairs(d.fields) do
    fields[#fields + 1] = k
    fields[#fields + 1] = v
  end
  redis.call('HSET', KEYS[base + 1], unpack(fields))
  redis.call('RPUSH', KEYS[2], d.fields.documentId)
  if d.staged == '1' then
    redis.call('RENAME', KEYS[base + 2], KEYS[base + 3])
    redis.call('EXPIRE', KEYS[base + 3], p.ttl)
  end
end
if #p.docs > 0 then redis.call('HINCRBY', meta, 'n:pending', #p.docs) end
redis.call('HSET', meta, 'updatedAt', p.now)
return 'ok'
`;

/** KEYS: meta, docs. ARGV: workspaceId, key tag ("<prefix>:{kb:<id>}"). */
export const DELETE_KB = `
${OWNED_KB}local ids = redis.call('LRANGE', KEYS[2], 0, -1)
for _, id in ipairs(ids) do
  redis.call('DEL', ARGV[2] .. ':doc:' .. id, ARGV[2] .. ':text:' .. id, ARGV[2] .. ':blob:' .. id)
end
redis.call('DEL', KEYS[1], KEYS[2])
return 'ok'
`;

/** KEYS: meta, docs, doc, text, blob. ARGV: workspaceId, documentId, now. */
export const DELETE_DOC = `
${OWNED_KB}local st = redis.call('HGET', KEYS[3], 'status')
if not st then return 'missing_doc' end
redis.call('LREM', KEYS[2], 0, ARGV[2])
redis.call('DEL', KEYS[3], KEYS[4], KEYS[5])
redis.call('HINCRBY', KEYS[1], 'n:' .. st, -1)
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[3])
return 'ok'
`;

/**
 * Shared guard of the worker's transitions: the knowledge base and the source
 * still exist and the job belongs to the source's current run. A finished
 * source is never changed again, so a duplicate or late job is a no-op.
 */
const GUARD = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
local st = redis.call('HGET', KEYS[2], 'status')
if not st then return 'gone' end
if redis.call('HGET', KEYS[2], 'run') ~= ARGV[1] then return 'stale' end
if st == 'ready' or st == 'failed' then return st end
`;

/** KEYS: meta, doc. ARGV: run, now. */
export const START_DOC = `${GUARD}
if st == 'pending' then
  redis.call('HSET', KEYS[2], 'status', 'processing', 'updatedAt', ARGV[2])
  redis.call('HINCRBY', KEYS[1], 'n:pending', -1)
  redis.call('HINCRBY', KEYS[1], 'n:processing', 1)
end
return 'ok'
`;

/**
 * KEYS: meta, doc, text, blob. ARGV: run, now, status (ready|failed), JSON of
 * fields to set, text (ready only), keepBlob ('1' keeps staged bytes for a retry).
 */
export const FINISH_DOC = `${GUARD}
local fields = cjson.decode(ARGV[4])
local flat = {'status', ARGV[3], 'updatedAt', ARGV[2]}
for k, v in pairs(fields) do
  flat[#flat + 1] = k
  flat[#flat + 1] = v
end
redis.call('HDEL', KEYS[2], 'error')
redis.call('HSET', KEYS[2], unpack(flat))
if ARGV[3] == 'ready' then
  redis.call('SET', KEYS[3], ARGV[5])
else
  redis.call('DEL', KEYS[3])
end
if ARGV[6] ~= '1' then redis.call('DEL', KEYS[4]) end
redis.call('HINCRBY', KEYS[1], 'n:' .. st, -1)
redis.call('HINCRBY', KEYS[1], 'n:' .. ARGV[3], 1)
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[2])
return 'ok'
`;

/** KEYS: meta, doc, blob. ARGV: workspaceId, now. Returns the new run number. */
export const RETRY_DOC = `
${OWNED_KB}local st = redis.call('HGET', KEYS[2], 'status')
if not st then return 'missing_doc' end
if st ~= 'failed' then return 'not_failed' end
if redis.call('HGET', KEYS[2], 'type') == 'file' and redis.call('EXISTS', KEYS[3]) == 0 then return 'no_bytes' end
local run = redis.call('HINCRBY', KEYS[2], 'run', 1)
redis.call('HDEL', KEYS[2], 'error')
redis.call('HSET', KEYS[2], 'status', 'pending', 'updatedAt', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'n:failed', -1)
redis.call('HINCRBY', KEYS[1], 'n:pending', 1)
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[2])
return 'run:' .. run
`;
