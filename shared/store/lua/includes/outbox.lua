--[[
  The outbox of a knowledge base: the domain events a script's change gives
  rise to (source.ready, source.failed, knowledge_base.settled,
  knowledge_base.changed, site.discovered), appended by that same script, so
  a change and its events are written together or not at all, as BullMQ
  writes its completed/failed events in the script that moves the job. The
  relay (worker/webhooks/relay.ts) turns each entry into the event with the id
  derived from its `k` and queues its deliveries, then deletes it.

  The payload's `outbox` is {stream, info, meta, kbId, now (ISO), maxEntries, keepSeconds, workspaceId?}. Each entry holds:
    t   the event type;
    k   what its id is derived from (the parts eventId joins with '/');
    w   the workspace;
    at  when (ISO), the event's createdAt;
    d   its data as JSON: the data as sent for source.ready, source.failed and site.discovered;
        {counts} (in the order of SOURCE_STATUSES) for knowledge_base.settled; {from, to} for knowledge_base.changed.
  `info` holds `bytes` (what the entries held take, counted in the workspace's derived bytes)
  and `dropped` (entries the bound cut before they were relayed). Bounded at maxEntries:
  past it the oldest entry goes, counted in `dropped`, so a relay that stays down for
  long costs its oldest events, never unbounded memory.
]]

-- Bytes an entry costs beside its values: its id, field names and the stream's per-entry overhead.
local OUTBOX_ENTRY_OVERHEAD = 64

local outboxWorkspace = nil

local function outboxEntryBytes(fields)
  local n = OUTBOX_ENTRY_OVERHEAD
  for i = 2, #fields, 2 do n = n + #fields[i] end
  return n
end

-- Appends one event, created at `ob.now`.
local function outboxAdd(ob, type, key, data)
  if outboxWorkspace == nil then outboxWorkspace = ob.workspaceId or redis.call('HGET', ob.meta, 'workspaceId') or '' end
  local fields = {'t', type, 'k', key, 'w', outboxWorkspace, 'at', ob.now, 'd', data}
  redis.call('XADD', ob.stream, '*', unpack(fields))
  redis.call('HINCRBY', ob.info, 'bytes', outboxEntryBytes(fields))
  if redis.call('XLEN', ob.stream) > ob.maxEntries then
    local oldest = redis.call('XRANGE', ob.stream, '-', '+', 'COUNT', 1)[1]
    redis.call('XDEL', ob.stream, oldest[1])
    redis.call('HINCRBY', ob.info, 'bytes', -outboxEntryBytes(oldest[2]))
    redis.call('HINCRBY', ob.info, 'dropped', 1)
  end
end

-- `knowledge_base.changed` for what a script wrote to the change feed (feedFrom, feedTo from feedFinish); nothing when it wrote none.
local function outboxChanged(ob, feedFrom, feedTo)
  if feedTo == nil or feedTo == '' then return end
  outboxAdd(ob, 'knowledge_base.changed', ob.kbId .. '/changed/' .. feedTo, cjson.encode({from = feedFrom, to = feedTo}))
end

--[[
  `knowledge_base.settled` for settle number `seq` (nothing for 0), with the
  counts in the order of SOURCE_STATUSES. The counts of the settle told last
  are kept in the meta (`settledCounts`): with `onlyIfNew`, a settle whose
  counts equal them (an unchanged refresh) is not told again.
]]
-- An event whose data the caller built ({type, key, data} as OutboxEvent in shared/store/outbox.ts); nothing for nil.
local function outboxEvent(ob, event)
  if event then outboxAdd(ob, event.type, event.key, event.data) end
end

local function outboxSettled(ob, seq, counts, onlyIfNew)
  if seq == nil or seq <= 0 then return end
  local told = table.concat(counts, ',')
  if onlyIfNew and redis.call('HGET', ob.meta, 'settledCounts') == told then return end
  redis.call('HSET', ob.meta, 'settledCounts', told)
  outboxAdd(ob, 'knowledge_base.settled', ob.kbId .. '/settled/' .. seq, cjson.encode({counts = counts}))
end
