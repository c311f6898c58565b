import {
  ABSENT,
  ACTIVE_STATUSES,
  CHANGED_SOURCES_SUFFIX,
  COUNTER_PREFIX,
  DISCOVERING,
  FINAL_STATUSES,
  KB_FIELDS,
  SITE_TRANSITIONS,
  SOURCE_STATUSES,
  TRANSITIONS,
  type ScriptLifecycle,
} from '../sources/lifecycle.js';

const str = (s: string): string => `'${s}'`;
const set = (names: readonly string[]): string => (names.length ? `{ ${names.map((n) => `[${str(n)}] = true`).join(', ')} }` : '{}');
const moveNames = (moves: readonly (readonly [string, string])[]): string[] => [...new Set(moves.map(([f, t]) => `${f}>${t}`))];

/** The error tag of a move no family declares. */
export const UNDECLARED_MOVE = 'undeclared_move';
/** The error tag of a move declared for another family than the script's. */
export const FOREIGN_MOVE = 'foreign_move';

/**
 * The `lifecycle` Lua include of one script, generated from
 * `shared/sources/lifecycle.ts` when the scripts are loaded, so statuses,
 * moves, counters and the knowledge base's bookkeeping exist in one place.
 * Scripts change a source's status only through `moveStatus`, a site's state
 * only through `moveSite`, the knowledge base's revision only through
 * `touchKb`; the move helpers refuse, before they write, a move no family
 * declares and a move of another family than the script's own (`lifecycle`).
 */
export function lifecycleLua(lifecycle: ScriptLifecycle = {}, script = 'a script'): string {
  const f = KB_FIELDS;
  const sourceFamily = lifecycle.sources ?? 'none';
  const siteFamily = lifecycle.sites ?? 'none';
  return `--[[
  Generated from shared/sources/lifecycle.ts for ${script}; do not edit by hand.
  Source moves of the family ${sourceFamily}; site moves of the family ${siteFamily}.
]]
local SOURCE_STATUSES = { ${SOURCE_STATUSES.map(str).join(', ')} }
local ACTIVE_STATUS = ${set(ACTIVE_STATUSES)}
local FINAL_STATUS = ${set(FINAL_STATUSES)}
local ALLOWED_MOVE = ${set(moveNames(Object.values(TRANSITIONS).flat()))}
local OWN_MOVE = ${set(lifecycle.sources ? moveNames(TRANSITIONS[lifecycle.sources]) : [])}
local ALLOWED_SITE_MOVE = ${set(moveNames(Object.values(SITE_TRANSITIONS).flat()))}
local OWN_SITE_MOVE = ${set(lifecycle.sites ? moveNames(SITE_TRANSITIONS[lifecycle.sites]) : [])}

local function counterField(status) return ${str(COUNTER_PREFIX)} .. status end

-- Refuses a move no family declares, and one its script's family does not own.
local function checkMove(kind, declared, own, family, from, to)
  local move = from .. '>' .. to
  if not declared[move] then
    error('${UNDECLARED_MOVE}: undeclared ' .. kind .. ' move ' .. from .. ' -> ' .. to)
  end
  if not own[move] then
    error('${FOREIGN_MOVE}: ${script} (' .. kind .. ' family ' .. family .. ') may not make the ' .. kind .. ' move ' .. from .. ' -> ' .. to)
  end
end

-- The knowledge base's changed sources (a sorted set beside its meta hash, on its slot).
local function changedSourcesKey(metaKey)
  return string.sub(metaKey, 1, -5) .. ${str(CHANGED_SOURCES_SUFFIX)}
end

-- Records that a source's record changed (any field a reader may show, progress
-- included): its id takes the knowledge base's next ${f.sourceSeq}, so a reader that
-- keeps records reads again only the sources changed since the number it read at.
-- Every write of a source record is in a script that calls this or moveStatus.
local function touchSource(metaKey, sourceKey)
  local seq = redis.call('HINCRBY', metaKey, ${str(f.sourceSeq)}, 1)
  redis.call('ZADD', changedSourcesKey(metaKey), seq, string.match(sourceKey, '[^:]+$'))
end

-- Checked before any write of this move; a script calls it before its other writes
-- where it can, because a Lua error does not undo what ran before it.
local function moveStatus(metaKey, sourceKey, from, to)
  from = from or ${str(ABSENT)}
  to = to or ${str(ABSENT)}
  checkMove('source', ALLOWED_MOVE, OWN_MOVE, ${str(sourceFamily)}, from, to)
  if from ~= ${str(ABSENT)} then redis.call('HINCRBY', metaKey, counterField(from), -1) end
  if to ~= ${str(ABSENT)} then
    redis.call('HINCRBY', metaKey, counterField(to), 1)
    redis.call('HSET', sourceKey, 'status', to)
    touchSource(metaKey, sourceKey)
  else
    -- A deleted source leaves the knowledge base's list, which readers read whole.
    redis.call('ZREM', changedSourcesKey(metaKey), string.match(sourceKey, '[^:]+$'))
  end
end

-- A site's state ('' when it has no record).
local function siteState(siteKey)
  return redis.call('HGET', siteKey, 'state') or ''
end

-- Moves a site (nil for absent) and keeps its knowledge base's ${f.sitesDiscovering} (never below zero).
local function moveSite(metaKey, siteKey, from, to)
  from = from or ${str(ABSENT)}
  to = to or ${str(ABSENT)}
  checkMove('site', ALLOWED_SITE_MOVE, OWN_SITE_MOVE, ${str(siteFamily)}, from, to)
  if to ~= ${str(ABSENT)} then redis.call('HSET', siteKey, 'state', to) end
  if to == ${str(DISCOVERING)} then
    redis.call('HINCRBY', metaKey, ${str(f.sitesDiscovering)}, 1)
  elseif from == ${str(DISCOVERING)} and redis.call('HINCRBY', metaKey, ${str(f.sitesDiscovering)}, -1) < 0 then
    redis.call('HSET', metaKey, ${str(f.sitesDiscovering)}, 0)
  end
end

-- The knowledge base's revision ('0' before its first change).
local function readRev(metaKey)
  return redis.call('HGET', metaKey, ${str(f.rev)}) or '0'
end

-- Records a change a client can see: a new revision, returned, and (given now) the time of the change.
local function touchKb(metaKey, now)
  if now then redis.call('HSET', metaKey, ${str(f.updatedAt)}, now) end
  return redis.call('HINCRBY', metaKey, ${str(f.rev)}, 1)
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

--[[
  Settles a knowledge base that has nothing left in flight: no source active
  and no site still discovering. Bumps its settle number and returns it (the
  id of its \`knowledge_base.settled\` event), else 0; with the counts, in the
  order of SOURCE_STATUSES, for the event.
]]
local function settleIfIdle(metaKey)
  local counts = readCounts(metaKey)
  for i, s in ipairs(SOURCE_STATUSES) do
    if ACTIVE_STATUS[s] and counts[i] > 0 then return 0, counts end
  end
  if tonumber(redis.call('HGET', metaKey, ${str(f.sitesDiscovering)}) or '0') > 0 then return 0, counts end
  return redis.call('HINCRBY', metaKey, ${str(f.settles)}, 1), counts
end
`;
}
