package le3001

import (
	"github.com/gomodule/redigo/redis"
)

// redigoLock takes a SETNX lock through a pooled redigo connection.
func redigoLock(pool *redis.Pool, job, owner string) (bool, error) {
	conn := pool.Get()
	defer conn.Close()
	return redis.Bool(conn.Do("SETNX", "job-lock:"+job, owner)) // want `Do\("SETNX"\) takes the lock key "job-lock:" \+ job with no expiry \(SETNX has no TTL argument\)`
}

func redigoSetNX(conn redis.Conn, owner string) bool {
	reply, err := redis.String(conn.Do("SET", "mailer:lock", owner, "NX")) // want `Do\("SET"\) takes the lock key "mailer:lock" with no expiry`
	return err == nil && reply == "OK"
}

// --- negatives ---

func redigoEX(conn redis.Conn, owner string) bool {
	reply, err := redis.String(conn.Do("SET", "mailer:lock", owner, "NX", "EX", 30))
	return err == nil && reply == "OK"
}

func redigoTTLVar(conn redis.Conn, owner string, ms int) bool {
	reply, err := redis.String(conn.Do("SET", "mailer:lock", owner, "NX", "PX", ms))
	return err == nil && reply == "OK"
}

func redigoGet(conn redis.Conn) (string, error) {
	return redis.String(conn.Do("GET", "mailer:lock"))
}
