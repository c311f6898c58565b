--[[
  Drops a knowledge base from the index of those with active sources, unless
  it was marked again since the reconciler read it.

  Input:
    KEYS[1] the index (sorted set of knowledge-base ids)
    ARGV[1] knowledge-base id   ARGV[2] the score the reconciler read

  Output: {'ok'} when removed | {'kept'}
]]
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return {'ok'}
end
return {'kept'}
