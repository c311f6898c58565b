--[[
  Relay: deletes entries of a knowledge base's outbox whose deliveries are
  queued, and takes their bytes off the outbox's count. An id deleted already
  (another relay acked it) is skipped, so each entry's bytes leave once. An
  outbox left empty is deleted with its count (its `dropped` tally too).

  Input:
    KEYS[1] the outbox (stream)   KEYS[2] its info hash
    ARGV[1] JSON: {ids: [stream id...] (at most a page)}

  Output: {'ok', deleted}
]]
--- @include "outbox"

local p = cjson.decode(ARGV[1])
local deleted = 0
for _, id in ipairs(p.ids) do
  local entry = redis.call('XRANGE', KEYS[1], id, id)[1]
  if entry then
    redis.call('XDEL', KEYS[1], id)
    redis.call('HINCRBY', KEYS[2], 'bytes', -outboxEntryBytes(entry[2]))
    deleted = deleted + 1
  end
end
if redis.call('XLEN', KEYS[1]) == 0 then
  local dropped = redis.call('HGET', KEYS[2], 'dropped')
  redis.call('DEL', KEYS[1], KEYS[2])
  if dropped then redis.call('HSET', KEYS[2], 'dropped', dropped) end
end
return {'ok', deleted}
