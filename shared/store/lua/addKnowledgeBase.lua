--[[
  API: enters a new knowledge base in its workspace's index unless the
  workspace already has `max` of them, in one step (the index is what the
  quota counts). The commit of the knowledge base follows; when it fails,
  the caller takes the entry out again.

  Input:
    KEYS[1] the workspace's knowledge bases (sorted set)
    ARGV[1] JSON: {kbId, score, max?}

  Output: {'ok'} | {'full', count}
]]
local p = cjson.decode(ARGV[1])
local kbs = KEYS[1]
if p.max then
  local count = redis.call('ZCARD', kbs)
  if count >= p.max and not redis.call('ZSCORE', kbs, p.kbId) then return {'full', count} end
end
redis.call('ZADD', kbs, p.score, p.kbId)
return {'ok'}
