// The sliding-window rate limit in Redis (docs/design.md decisions table "rate limit window"),
// shared by every gateway: the same counting as the in-process limiter, as Lua functions that the
// key verdicts' batch script (access/verdict-batch.ts) calls, so that looking the keys up, reading
// and moving their windows and counting are one atomic step and one round trip for every request
// a gateway gathered in one turn.
//
// A bucket is one Redis hash: a field per second holding that second's accepted requests, and
// `latest` (the latest second seen, so a clock that steps back counts into it), `total` and
// `oldest` (the oldest second still holding requests). Most calls are three commands: one HMGET,
// one HSET and the expiry; only when the oldest second leaves the window are the fields scanned
// and the expired ones dropped, at most once per elapsed second. The hash expires a window after
// its last use, so idle buckets cost nothing. The RateLimiter contract runs against it through the
// verdicts (test/integration/contracts/redis-rate-limiter.test.ts).

/**
 * Lua functions for a script to call: `count(bucket, limit, window, nowMs, n)` counts `n` requests
 * of one instant, as `n` calls one after the other would → {how many of them were allowed (the
 * first ones), remaining after them all, resetSeconds, second counted in}; `giveBack(bucket,
 * second)` → 1 when a slot of that second was given back. Scripts pass numbers as ARGV strings;
 * tonumber() them first.
 */
export const SLIDING_WINDOW_LUA = `
local function oldestOf(fields)
  local oldest = -1
  for i = 1, #fields, 2 do
    local s = tonumber(fields[i])
    if s ~= nil and (oldest == -1 or s < oldest) then oldest = s end
  end
  return oldest
end

local function count(bucket, limit, window, nowMs, n)
  local now = math.floor(nowMs / 1000)
  local meta = redis.call('HMGET', bucket, 'latest', 'total', 'oldest', now)
  local latest = tonumber(meta[1])
  local total = tonumber(meta[2]) or 0
  local oldest = tonumber(meta[3]) or -1
  local second = now
  local here = tonumber(meta[4]) or 0
  if latest ~= nil and now < latest then
    second = latest
    here = tonumber(redis.call('HGET', bucket, second)) or 0
  end
  local horizon = second - window
  if total > 0 and oldest <= horizon then
    if latest == nil or latest <= horizon then
      redis.call('DEL', bucket)
      total = 0
      oldest = -1
    else
      local fields = redis.call('HGETALL', bucket)
      local gone = {}
      total = 0
      oldest = -1
      for i = 1, #fields, 2 do
        local s = tonumber(fields[i])
        if s ~= nil then
          if s <= horizon then
            gone[#gone + 1] = fields[i]
          else
            total = total + tonumber(fields[i + 1])
            if oldest == -1 or s < oldest then oldest = s end
          end
        end
      end
      if #gone > 0 then redis.call('HDEL', bucket, unpack(gone)) end
    end
  end
  -- The first of the n moves the window; the others find it moved, so only the total decides them.
  local allowed = math.max(0, math.min(n, limit - total))
  if allowed > 0 then
    total = total + allowed
    if oldest == -1 then oldest = second end
    redis.call('HSET', bucket, second, here + allowed, 'latest', second, 'total', total, 'oldest', oldest)
  else
    redis.call('HSET', bucket, 'latest', second, 'total', total, 'oldest', oldest)
  end
  redis.call('PEXPIRE', bucket, (window + 1) * 1000)
  local reset = 0
  if oldest ~= -1 then
    reset = math.max(1, math.ceil(((oldest + window) * 1000 - nowMs) / 1000))
  end
  return {allowed, limit - total, reset, second}
end

local function giveBack(bucket, second)
  local counted = tonumber(redis.call('HGET', bucket, second))
  if counted == nil or counted < 1 then return 0 end
  local total = math.max(0, (tonumber(redis.call('HGET', bucket, 'total')) or 1) - 1)
  if counted > 1 then
    redis.call('HINCRBY', bucket, second, -1)
    redis.call('HSET', bucket, 'total', total)
    return 1
  end
  redis.call('HDEL', bucket, second)
  redis.call('HSET', bucket, 'total', total, 'oldest', oldestOf(redis.call('HGETALL', bucket)))
  return 1
end
`;
