--[[
  Top-k ranking over a search index whose postings are sorted sets of chunk
  ids scored by the chunk's BM25 term weight under a reference average
  length (see applySearch.lua). `ctx` holds:
    lists: one per query term with postings, {key, idf, pos = 0, last (its best score), done = false};
    k, k1, b, w (heading weight), avg (today's average length), avgRef;
    docs (indexed chunks hash), sources (record prefix .. documentId),
    onlyDocs (set of documentIds, or nil), metadata (wanted values, or nil).

  searchTopK reads posting lists best first, in blocks that grow, and scores
  every chunk it meets on all the terms at once (ZSCORE). A chunk not met
  yet can score at most the sum of the lists' ceilings (each list's next
  unread weight, as in the threshold algorithm of Fagin, Lotem and Naor);
  a list whose ceiling, with the lower ones, stays under the k-th best score
  is not read further (MaxScore), so a common term is only looked up for
  the chunks the rarer terms bring, and reading ends when no list is left
  to read. A query reads what can rank, not every chunk that holds its
  terms. Ties go to the smaller chunk id.
]]

-- Whether a chunk of this source may be shown: the filter's sources, a ready source, the filter's metadata.
local function searchAdmits(ctx, documentId, cache)
  if ctx.onlyDocs and not ctx.onlyDocs[documentId] then return false end
  local ok = cache[documentId]
  if ok == nil then
    local v = redis.call('HMGET', ctx.sources .. documentId, 'status', 'metadata')
    ok = v[1] == 'ready'
    if ok and ctx.metadata then
      local m = v[2] and cjson.decode(v[2]) or {}
      for key, want in pairs(ctx.metadata) do
        if m[key] ~= want then ok = false break end
      end
    end
    cache[documentId] = ok
  end
  return ok
end

local function searchBefore(a, c)
  return a.score > c.score or (a.score == c.score and a.id < c.id)
end

-- Puts a hit in `best` (sorted, at most k) when it ranks.
local function searchKeep(best, k, hit)
  local last = best[k]
  if last and not searchBefore(hit, last) then return end
  local at = #best + 1
  while at > 1 and searchBefore(hit, best[at - 1]) do
    best[at] = best[at - 1]
    at = at - 1
  end
  best[at] = hit
  if #best > k then best[#best] = nil end
end

-- A chunk's full score on every query term: each term's weight recovered from its stored one
-- (tf from the weight under avgRef) and computed again under today's average length.
local function searchScore(ctx, id, cache, from, weight)
  local raw = redis.call('HGET', ctx.docs, id)
  if not raw then return nil end
  local bl, hl, documentId, index = string.match(raw, '^(%d+) (%d+) (%S+) (%d+)\n')
  if not documentId or not searchAdmits(ctx, documentId, cache) then return nil end
  local k1, b = ctx.k1, ctx.b
  local len = tonumber(bl) + ctx.w * tonumber(hl)
  local normRef, norm = k1 * (1 - b + b * len / ctx.avgRef), k1 * (1 - b + b * len / ctx.avg)
  local score = 0
  for _, l in ipairs(ctx.lists) do
    local f = l == from and weight or redis.call('ZSCORE', l.key, id)
    if f then
      f = tonumber(f)
      local tf = f * normRef / (k1 + 1 - f)
      score = score + l.idf * tf * (k1 + 1) / (tf + norm)
    end
  end
  return {id = id, score = score, d = documentId, i = tonumber(index)}
end

-- The best ctx.k chunks, best first: {id, score, d (documentId), i (chunk index)}.
local function searchTopK(ctx)
  local k1, k, lists = ctx.k1, ctx.k, ctx.lists
  -- A chunk's weight grows by at most this factor when the average length has grown since it was scored.
  local grow = math.max(1, ctx.avg / ctx.avgRef)
  local best, seen, cache, block = {}, {}, {}, 16
  while true do
    local floor = #best >= k and best[k].score or -1
    -- A chunk not met yet scores at most the sum of each list's ceiling (the weight of its next unread entry).
    -- Lowest ceilings first: those a chunk cannot rank on alone need not be read further, the chunks in them
    -- that can rank are met in the other lists (MaxScore, Turtle and Flood, on the threshold algorithm).
    for _, l in ipairs(lists) do l.ceiling = l.done and 0 or l.idf * math.min(k1 + 1, l.last * grow) end
    table.sort(lists, function(x, y) return x.ceiling < y.ceiling end)
    local under, first = 0, #lists + 1
    for i, l in ipairs(lists) do
      if under + l.ceiling >= floor then
        first = i
        break
      end
      under = under + l.ceiling
    end
    local open = false
    for i = first, #lists do open = open or not lists[i].done end
    if not open then break end
    for i = first, #lists do
      local l = lists[i]
      if not l.done then
        local rows = redis.call('ZREVRANGE', l.key, l.pos, l.pos + block - 1, 'WITHSCORES')
        l.pos = l.pos + block
        if #rows < 2 * block then l.done = true end
        for j = 1, #rows, 2 do
          local weight = tonumber(rows[j + 1])
          l.last = weight
          if not seen[rows[j]] then
            seen[rows[j]] = true
            local hit = searchScore(ctx, rows[j], cache, l, weight)
            if hit then searchKeep(best, k, hit) end
          end
        end
      end
    end
    block = math.min(block * 2, 1024)
  end
  return best
end
