package redisstore

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// TestFailoverLosesLeaseButTokensGrow demonstrates what the package
// documentation warns about. Replication is asynchronous: a grant the
// primary acknowledged is not on the replica yet when the primary dies, so
// after the replica is promoted a second holder is granted the lease while
// the first still believes it holds it. Mutual exclusion is gone; what
// remains is the token: the promoted replica's clock floor makes the new
// token larger than the lost one, so a resource that fences by token still
// rejects the first holder's writes.
func TestFailoverLosesLeaseButTokensGrow(t *testing.T) {
	primary := testserver.NewRedis(t, testserver.RedisOptions{})
	// The replica reaches its primary through a proxy, so the test can cut
	// the replication link the way a network or a slow replica would.
	link := testserver.NewProxy(t, primary.Addr())
	replica := testserver.NewRedis(t, testserver.RedisOptions{ReplicaOf: link.Addr()})
	ctx := ctxT(t)
	onPrimary := mustNew(t, newClient(t, primary.Addr()))
	onReplica := mustNew(t, newClient(t, replica.Addr()))
	name := "failover"

	// A term that reaches the replica and ends: the replica knows the
	// counter and that the lease is free.
	first, err := onPrimary.Acquire(ctx, name, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := onPrimary.Release(ctx, first); err != nil {
		t.Fatal(err)
	}
	waitReplicated(t, onReplica, name, first.Token)

	// Cut replication, grant on the primary, kill the primary: the grant
	// exists only in a dead process, and holder b was told it leads.
	link.Cut()
	lost, err := onPrimary.Acquire(ctx, name, "b", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := primary.Kill(); err != nil {
		t.Fatal(err)
	}
	// Promote the replica, as Sentinel would.
	if err := onReplica.c.Do(ctx, "REPLICAOF", "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
	rec, err := onReplica.Read(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Held && rec.Term == lost {
		t.Fatalf("the replica has the unreplicated grant %+v; the test did not create the failover it means to", lost)
	}

	// b believes it leads until its deadline, and c is granted the same
	// lease now: two leaders.
	next, err := onReplica.Acquire(ctx, name, "c", time.Minute)
	if err != nil {
		t.Fatalf("Acquire after failover: %v; want success (the lease was lost with the primary)", err)
	}
	if next.Token <= lost.Token {
		t.Fatalf("token after failover %d; want > %d, the lost grant's, or fencing by token fails too", next.Token, lost.Token)
	}
	// The fence at the resource holds: b's term is not current.
	err = onReplica.SetFenced(ctx, lost, "failover:{"+name+"}:data", "from b", 0)
	if !errors.Is(err, elector.ErrLost) {
		t.Fatalf("fenced write with the lost term: %v; want ErrLost", err)
	}
}

// waitReplicated polls the replica until it has the term with token, no
// longer held.
func waitReplicated(t *testing.T, s *Store, name string, token uint64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec, err := s.Read(context.Background(), name)
		if err == nil && rec.Token == token && !rec.Held {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica never got token %s: %+v, %v", strconv.FormatUint(token, 10), rec, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
