--[[
  API: a page of a knowledge base's change feed after a position, with the
  feed first trimmed to its retention. A knowledge base deleted within
  retention keeps its feed (ending in a chunk.deleted for every chunk) for
  the workspace that owned it.

  Input:
    KEYS[1] meta hash   KEYS[2] feed stream   KEYS[3] feed info
    ARGV[1] JSON: {workspaceId (the caller's), after (a stream id; '0-0' from the start), size,
                   feed: see the feed include}

  Output: {'ok', head, ...events} | {'missing'} | {'forbidden'} | {'expired', floor}
    head: the feed's newest event id ('0-0' for none);
    events: six values each: id, kind ('u' or 'd'), chunk id, documentId, chunk JSON, source JSON
    (the last two '' for a deletion).
    expired: events after `after` were trimmed away; floor is the newest of them.
]]
--- @include "checkOwner"
--- @include "feed"

local p = cjson.decode(ARGV[1])
local meta, stream, info = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', meta) == 1 then
  local refused = checkOwner(meta, p.workspaceId)
  if refused then return {refused} end
else
  local owner = redis.call('HGET', info, 'workspaceId')
  if not owner then return {'missing'} end
  if owner ~= p.workspaceId then return {'forbidden'} end
end
feedTrim(p.feed)
local floor = redis.call('HGET', info, 'floor')
if floor and feedCompare(p.after, floor) < 0 then return {'expired', floor} end
local events = {}
for _, entry in ipairs(redis.call('XRANGE', stream, '(' .. p.after, '+', 'COUNT', p.size)) do
  local f = {}
  local fields = entry[2]
  for i = 1, #fields, 2 do f[fields[i]] = fields[i + 1] end
  events[#events + 1] = entry[1]
  events[#events + 1] = f.k
  events[#events + 1] = f.c
  events[#events + 1] = f.d
  events[#events + 1] = f.j or ''
  events[#events + 1] = f.s or ''
end
-- At most 1,000 events of six values: within what unpack() can put on the Lua stack.
return {'ok', feedHead(stream), unpack(events)}
