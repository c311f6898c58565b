--[[
  API: a page of a knowledge base's change feed after a position, with the
  feed first trimmed to its retention. A knowledge base deleted within
  retention keeps its feed (one knowledge_base.deleted event) for the
  workspace that owned it; a cursor from before that event, however old,
  reads it (there is nothing left to resync from).

  A page holds at most `size` events and stops once its events pass
  `maxBytes` (at least one event per page); events are read from the stream
  in slices, so no more than a slice past the page is ever loaded.

  Input:
    KEYS[1] meta hash   KEYS[2] feed stream   KEYS[3] feed info
    ARGV[1] JSON: {workspaceId (the caller's), after (a stream id; '0-0' from the start), size, maxBytes,
                   feed: see the feed include}

  Output: {'ok', head, ...events} | {'missing'} | {'forbidden'} | {'expired', floor} | {'ahead', head}
    head: the feed's newest event id ('0-0' for none);
    events: six values each: id, kind ('u', 'd' or 'x'), chunk id, documentId, chunk JSON, source JSON
    (the last four '' where the kind has none).
    expired: events after `after` were trimmed away; floor is the newest of them.
    ahead: `after` is past the newest event: not a position this feed gave out.
]]
--- @include "checkOwner"
--- @include "feed"

local SLICE = 100

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
local head = feedHead(stream, info)
if feedCompare(p.after, head) > 0 then return {'ahead', head} end
local after = p.after
local floor = redis.call('HGET', info, 'floor')
if floor and feedCompare(after, floor) < 0 then
  if redis.call('HGET', info, 'deleted') ~= '1' then return {'expired', floor} end
  after = floor
end
local events, count, bytes = {}, 0, 0
while count < p.size and bytes < p.maxBytes do
  local slice = redis.call('XRANGE', stream, '(' .. after, '+', 'COUNT', math.min(SLICE, p.size - count))
  for _, entry in ipairs(slice) do
    local f = {}
    local fields = entry[2]
    for i = 1, #fields, 2 do f[fields[i]] = fields[i + 1] end
    events[#events + 1] = entry[1]
    events[#events + 1] = f.k
    events[#events + 1] = f.c or ''
    events[#events + 1] = f.d or ''
    events[#events + 1] = f.j or ''
    events[#events + 1] = f.s or ''
    count = count + 1
    bytes = bytes + #(f.j or '') + #(f.s or '') + FEED_EVENT_OVERHEAD
    after = entry[1]
    if bytes >= p.maxBytes then break end
  end
  if #slice < SLICE then break end
end
-- At most 1,000 events of six values: within what unpack() can put on the Lua stack.
return {'ok', head, unpack(events)}
