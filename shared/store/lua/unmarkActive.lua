--[[
  Drops a knowledge base from the index of those with active sources, unless
  it was marked again since the reconciler read it.

  Input:
    KEYS[1] the index (sorted set of knowledge-base ids)
    ARGV[1] JSON: {kbId, markedMs (the score the reconciler read)}

  Output: {'ok'} | {'kept'}
    'ok': removed.
]]
local p = cjson.decode(ARGV[1])
if redis.call('ZSCORE', KEYS[1], p.kbId) == p.markedMs then
  redis.call('ZREM', KEYS[1], p.kbId)
  return {'ok'}
end
return {'kept'}
