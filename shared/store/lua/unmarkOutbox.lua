--[[
  Relay: drops a knowledge base from the index of those whose outbox may hold
  events, unless a script was marked since the relay read the score (the
  score only grows), so an entry appended after the relay's last read keeps
  the knowledge base in the index.

  Input:
    KEYS[1] the index (sorted set of knowledge-base ids)
    ARGV[1] JSON: {kbId, score (the score the relay read)}

  Output: {'ok'} | {'kept'}
]]
local p = cjson.decode(ARGV[1])
if tonumber(redis.call('ZSCORE', KEYS[1], p.kbId)) == p.score then
  redis.call('ZREM', KEYS[1], p.kbId)
  return {'ok'}
end
return {'kept'}
