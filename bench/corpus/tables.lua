-- tables.lua N — table-heavy Lua: binary trees of small tables built and
-- dropped, a word-count table keyed by fresh strings, arrays of records sorted
-- and joined with table.concat. N rounds; prints a checksum.
local n = tonumber(arg[1]) or 20

local function tree(depth)
  if depth == 0 then return {} end
  return { tree(depth - 1), tree(depth - 1) }
end

local function check(t)
  if t[1] == nil then return 1 end
  return 1 + check(t[1]) + check(t[2])
end

local total = 0
local seed = 1
local function rand(m)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % m
end

for r = 1, n do
  local keep = tree(12)
  for i = 1, 6 do total = total + check(tree(10)) end
  local counts = {}
  for i = 1, 30000 do
    local w = "w" .. rand(3000) .. "_" .. (i % 7)
    counts[w] = (counts[w] or 0) + 1
  end
  local recs = {}
  for k, v in pairs(counts) do recs[#recs + 1] = { name = k, count = v, tag = k .. ":" .. v } end
  table.sort(recs, function(a, b) if a.count ~= b.count then return a.count > b.count end return a.name < b.name end)
  local parts = {}
  for i = 1, #recs do parts[i] = recs[i].tag end
  total = total + #table.concat(parts, ",") + check(keep)
end
print(total)
