import { ABSENT, ACTIVE_STATUSES, COUNTER_PREFIX, FINAL_STATUSES, SOURCE_STATUSES, TRANSITIONS } from '../sources/lifecycle.js';

const str = (s: string): string => `'${s}'`;
const set = (names: readonly string[]): string => `{ ${names.map((n) => `[${str(n)}] = true`).join(', ')} }`;

/**
 * The `lifecycle` Lua include, generated from `shared/sources/lifecycle.ts`
 * when the scripts are loaded, so statuses, moves and counters exist in one
 * place. Scripts change a source's status and its knowledge base's counters
 * only through `moveStatus`, which refuses a move the declaration lacks.
 */
export function lifecycleLua(): string {
  const moves = [...new Set(Object.values(TRANSITIONS).flatMap((m) => m.map(([f, t]) => `${f}>${t}`)))];
  return `--[[
  Generated from shared/sources/lifecycle.ts; do not edit by hand.
]]
local SOURCE_STATUSES = { ${SOURCE_STATUSES.map(str).join(', ')} }
local ACTIVE_STATUS = ${set(ACTIVE_STATUSES)}
local FINAL_STATUS = ${set(FINAL_STATUSES)}
local ALLOWED_MOVE = ${set(moves)}

local function counterField(status) return ${str(COUNTER_PREFIX)} .. status end

-- Checked before any write of this move; a script calls it before its other writes
-- where it can, because a Lua error does not undo what ran before it.
local function moveStatus(metaKey, sourceKey, from, to)
  from = from or ${str(ABSENT)}
  to = to or ${str(ABSENT)}
  if not ALLOWED_MOVE[from .. '>' .. to] then
    error('undeclared source move ' .. from .. ' -> ' .. to)
  end
  if from ~= ${str(ABSENT)} then redis.call('HINCRBY', metaKey, counterField(from), -1) end
  if to ~= ${str(ABSENT)} then
    redis.call('HINCRBY', metaKey, counterField(to), 1)
    redis.call('HSET', sourceKey, 'status', to)
  end
end

-- The knowledge base's counts, in SOURCE_STATUSES order.
local function readCounts(metaKey)
  local fields = {}
  for i, s in ipairs(SOURCE_STATUSES) do fields[i] = counterField(s) end
  local out = redis.call('HMGET', metaKey, unpack(fields))
  for i = 1, #fields do out[i] = tonumber(out[i] or '0') end
  return out
end

-- Sets every counter: to zero for a new knowledge base, or to counts taken from the records.
local function writeCounts(metaKey, counts)
  local flat = {}
  for _, s in ipairs(SOURCE_STATUSES) do
    flat[#flat + 1] = counterField(s)
    flat[#flat + 1] = (counts and counts[s]) or 0
  end
  redis.call('HSET', metaKey, unpack(flat))
end

-- Counts the statuses of the sources listed in idsKey (record key: recordPrefix .. id).
local function countStatuses(idsKey, recordPrefix)
  local n = {}
  for _, s in ipairs(SOURCE_STATUSES) do n[s] = 0 end
  for _, id in ipairs(redis.call('LRANGE', idsKey, 0, -1)) do
    local s = redis.call('HGET', recordPrefix .. id, 'status')
    if s and n[s] then n[s] = n[s] + 1 end
  end
  return n
end
`;
}
