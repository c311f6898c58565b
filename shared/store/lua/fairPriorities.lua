--[[
  API, worker: BullMQ priorities for `count` new jobs of one workspace, so
  that workspaces share the queue round by round (start-time fair queueing).
  The round is the priority just below the lowest one still waiting (the one
  being served); a workspace's jobs start at the later of that round and the
  one after its own last job, so a new workspace's first job comes next,
  before anyone's backlog, and one workspace's jobs keep their order. When nothing waits (no prioritized,
  plain waiting or delayed job), the ledger starts again from zero, which
  keeps priorities far below BullMQ's ceiling; a backlog that reaches the
  ceiling anyway is served first in, first out there.

  Input:
    KEYS[1] the ledger (hash: workspace id to the priority of its last job)
    KEYS[2] the queue's prioritized jobs (BullMQ: score = priority * 2^32 + counter)
    KEYS[3] the queue's plain waiting jobs (BullMQ list)
    KEYS[4] the queue's delayed jobs (BullMQ sorted set; retries keep their priority)
    ARGV[1] JSON: {workspaceId, count, maxPriority}

  Output: {'ok', first}
    first: the first job's priority; job i (from 0) takes min(first + i, maxPriority).
]]
local p = cjson.decode(ARGV[1])

if redis.call('ZCARD', KEYS[2]) == 0 and redis.call('LLEN', KEYS[3]) == 0 and redis.call('ZCARD', KEYS[4]) == 0 then
  redis.call('DEL', KEYS[1])
end
local round = 0
local head = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if head[2] then round = math.floor(tonumber(head[2]) / 4294967296) - 1 end
local last = tonumber(redis.call('HGET', KEYS[1], p.workspaceId) or '0')
local first = math.min(math.max(last + 1, round, 1), p.maxPriority)
redis.call('HSET', KEYS[1], p.workspaceId, math.min(first + p.count - 1, p.maxPriority))
return {'ok', first}
