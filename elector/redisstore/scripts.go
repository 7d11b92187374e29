package redisstore

import "github.com/redis/go-redis/v9"

// The scripts run atomically in Redis, judging expiry by Redis's own clock
// (the PX expiry of the lease key). Keys:
//
//	KEYS[1] lease key: "<token> <holder>", expires with the term
//	KEYS[2] term key:  hash {token, holder}, never expires; the token
//	                   counter and the most recent term
//
// Numbers pass in and out as strings: Redis converts Lua numbers with 14
// significant digits, which would corrupt tokens above 10^14.

// acquireScript grants the lease when it is free or held by the same
// holder. ARGV: holder, ttl ms, channel. Returns {token} when granted, or
// {false, holder, pttl} when another holder's term is live.
//
// The new token is max(last+1, Redis TIME in microseconds). The counter
// alone never goes back as long as Redis keeps its data; the clock floor
// also keeps tokens increasing when the counter was lost (a restart
// without persistence, a failover to a replica that missed it), as long as
// the server's clock did not step back past the lost tokens' time.
var acquireScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur then
	local sp = string.find(cur, ' ', 1, true)
	local holder = string.sub(cur, sp + 1)
	if holder ~= ARGV[1] then
		return {false, holder, redis.call('PTTL', KEYS[1])}
	end
end
local last = tonumber(redis.call('HGET', KEYS[2], 'token') or '0')
local now = redis.call('TIME')
local floor = tonumber(now[1]) * 1000000 + tonumber(now[2])
local token = last + 1
if floor > token then token = floor end
token = string.format('%.0f', token)
redis.call('HSET', KEYS[2], 'token', token, 'holder', ARGV[1])
redis.call('SET', KEYS[1], token .. ' ' .. ARGV[1], 'PX', ARGV[2])
redis.call('PUBLISH', ARGV[3], 'acquired')
return {token}
`)

// renewScript extends the term if it is still the live one. ARGV: the
// term's lease value, ttl ms. Returns 1 or 0.
var renewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
	return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`)

// releaseScript deletes the lease key if it still holds the term and
// wakes watchers. The term key, with the counter, stays. ARGV: the term's
// lease value, channel. Returns 1 or 0.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
	redis.call('DEL', KEYS[1])
	redis.call('PUBLISH', ARGV[2], 'released')
	return 1
end
return 0
`)

// readScript returns {1, value, pttl} while a term is live, else
// {0, token, holder} of the most recent term (false fields when never
// granted). GET and PTTL in one script see one instant.
var readScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur then
	return {1, cur, redis.call('PTTL', KEYS[1])}
end
local t = redis.call('HMGET', KEYS[2], 'token', 'holder')
return {0, t[1], t[2]}
`)

// fencedSetScript sets KEYS[2] only while the term is live. ARGV: the
// term's lease value, value, ttl ms (0: none). Returns 1 or 0.
var fencedSetScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
	return 0
end
if ARGV[3] ~= '0' then
	redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
else
	redis.call('SET', KEYS[2], ARGV[2])
end
return 1
`)

// fencedPushScript appends ARGV[2] to the list KEYS[2] only while the term
// is live. ARGV: the term's lease value, value. Returns the list length,
// or 0 when refused.
var fencedPushScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
	return 0
end
return redis.call('RPUSH', KEYS[2], ARGV[2])
`)

// tokenFencedSetScript sets KEYS[2] unless KEYS[1], the resource's highest
// token so far, is above ARGV[1]; it then raises KEYS[1] to ARGV[1]. ARGV:
// token, value, ttl ms (0: none). Returns {1, token} or {0, highest}.
var tokenFencedSetScript = redis.NewScript(`
local seen = redis.call('GET', KEYS[1])
if seen and tonumber(seen) > tonumber(ARGV[1]) then
	return {0, seen}
end
redis.call('SET', KEYS[1], ARGV[1])
if ARGV[3] ~= '0' then
	redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
else
	redis.call('SET', KEYS[2], ARGV[2])
end
return {1, ARGV[1]}
`)
