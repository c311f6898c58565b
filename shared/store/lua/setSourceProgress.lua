--[[
  Worker: records how far the extraction of a processing source has got, if
  this run still owns it. Progress is not a change of the knowledge base's
  revision: it moves every second and means nothing once the source ends.

  Input:
    KEYS[1] meta hash   KEYS[2] source record
    ARGV[1] JSON: {run, claim, progress ({pagesDone, pagesTotal} or {bytesDone, bytesTotal}) as JSON}
            claim: the attempt's job lock token ('' for none: the claim is not checked)

  Output: {'ok'} | {'gone'} | {'stale'} | {<final status>} | {'not_processing'}
]]
--- @include "checkRun"

local p = cjson.decode(ARGV[1])
local st, refused = checkRun(KEYS[1], KEYS[2], p.run, p.claim)
if not st then return {refused} end
if st ~= 'processing' then return {'not_processing'} end
redis.call('HSET', KEYS[2], 'progress', p.progress)
touchSource(KEYS[1], KEYS[2])
return {'ok'}
