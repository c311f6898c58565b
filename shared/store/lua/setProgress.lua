--[[
  Worker: records how far the extraction of a processing source has got, if
  this run still owns it. Progress is not a change of the knowledge base's
  revision: it moves every second and means nothing once the source ends.

  Input:
    KEYS[1] meta hash   KEYS[2] source hash
    ARGV[1] run   ARGV[2] progress as JSON ({pagesDone, pagesTotal} or {bytesDone, bytesTotal})
    ARGV[3] the attempt's job lock token ('' for none: the claim is not checked)

  Output: {'ok'} | {'gone'} | {'stale'} | {'ready'} | {'failed'} | {'not_processing'}
]]
--- @include "checkRun"

local st, refused = checkRun(KEYS[1], KEYS[2], ARGV[1], ARGV[3])
if not st then return {refused} end
if st ~= 'processing' then return {'not_processing'} end
redis.call('HSET', KEYS[2], 'progress', ARGV[2])
return {'ok'}
