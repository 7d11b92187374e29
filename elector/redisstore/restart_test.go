package redisstore

import (
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// TestCounterSurvivesKillWithAOF: with appendonly yes and appendfsync
// always, the token counter itself survives SIGKILL of redis-server, so the
// next token is exactly one more, not just larger thanks to the clock floor.
func TestCounterSurvivesKillWithAOF(t *testing.T) {
	srv := testserver.NewRedis(t, testserver.RedisOptions{AOF: true})
	s := mustNew(t, newClient(t, srv.Addr()))
	name := "aof"
	// Push the counter far above the clock floor, so the floor cannot
	// produce the next token: only the persisted counter can.
	far := uint64(time.Now().Add(24*time.Hour).UnixMicro()) + 1000
	if err := s.c.HSet(ctxT(t), s.keys(name)[1], "token", far).Err(); err != nil {
		t.Fatal(err)
	}
	before, err := s.Acquire(ctxT(t), name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if before.Token != far+1 {
		t.Fatalf("token %d; want %d", before.Token, far+1)
	}
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	srv.Resume(t)
	// The live term survived too: the same holder reclaims, others wait.
	rec, err := s.Read(ctxT(t), name)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Held || rec.Term != before {
		t.Fatalf("after kill and restart Read = %+v; want held by %+v", rec, before)
	}
	after, err := s.Acquire(ctxT(t), name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if after.Token != before.Token+1 {
		t.Fatalf("token after kill -9 and restart %d; want %d (the counter was not persisted)", after.Token, before.Token+1)
	}
}

// TestNoPersistenceFallsBackToClock: without persistence a restart loses
// the counter and the lease; the clock floor still keeps tokens growing, as
// long as the server's clock did not step back.
func TestNoPersistenceFallsBackToClock(t *testing.T) {
	srv := testserver.NewRedis(t, testserver.RedisOptions{})
	s := mustNew(t, newClient(t, srv.Addr()))
	before, err := s.Acquire(ctxT(t), "mem", "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	srv.Restart(t)
	rec, err := s.Read(ctxT(t), "mem")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Token != 0 || rec.Held {
		t.Fatalf("Read after a restart without persistence = %+v; want nothing (was the data persisted after all?)", rec)
	}
	after, err := s.Acquire(ctxT(t), "mem", "b", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if after.Token <= before.Token {
		t.Fatalf("token after losing the counter %d; want > %d", after.Token, before.Token)
	}
}
