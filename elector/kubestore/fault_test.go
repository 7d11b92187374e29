package kubestore

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordclient "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// faultTiming is a short consistent timing: a 2 s lease renewed every
// 500 ms, so a fault test runs for seconds.
func faultTiming() elector.Timing {
	return elector.Timing{
		LeaseDuration: 2 * time.Second,
		RenewInterval: 500 * time.Millisecond,
		RetryInterval: 200 * time.Millisecond,
		DriftBound:    200 * time.Millisecond,
		StopBudget:    200 * time.Millisecond,
	}
}

// leaderTerm is one term as the work saw it.
type leaderTerm struct {
	lease elector.Lease
	start time.Time
	end   time.Time // when the leader context ended; zero while running
	cause error
}

// terms records every term a candidate's work ran, in order.
type terms struct {
	mu      sync.Mutex
	all     []*leaderTerm
	changed chan struct{} // receives after every start and end
}

func newTerms() *terms { return &terms{changed: make(chan struct{}, 1)} }

func (r *terms) notify() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// work holds the term until its context ends.
func (r *terms) work(ctx context.Context, l elector.Lease) error {
	lt := &leaderTerm{lease: l, start: time.Now()}
	r.mu.Lock()
	r.all = append(r.all, lt)
	r.mu.Unlock()
	r.notify()
	<-ctx.Done()
	r.mu.Lock()
	lt.end, lt.cause = time.Now(), context.Cause(ctx)
	r.mu.Unlock()
	r.notify()
	return nil
}

// wait polls cond, under the lock, until it holds or ctx ends.
func (r *terms) wait(t *testing.T, ctx context.Context, what string, cond func(all []*leaderTerm) bool) {
	t.Helper()
	for {
		r.mu.Lock()
		ok := cond(r.all)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.changed:
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

func (r *terms) snapshot() []leaderTerm {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]leaderTerm, len(r.all))
	for i, lt := range r.all {
		out[i] = *lt
	}
	return out
}

// runCandidate runs an elector candidate on s until the test ends.
func runCandidate(t *testing.T, s elector.Store, name, id string) *terms {
	t.Helper()
	rec := newTerms()
	c, err := elector.New(s, name, elector.WithIdentity(id), elector.WithTiming(faultTiming()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Run(ctx, rec.work)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("candidate %s did not stop", id)
		}
	})
	return rec
}

// Resource annotations of the fenced resource the process tests write: a
// Lease object standing in for any Kubernetes object a leader updates.
const (
	resourceToken  = "test.gatesift.dev/token"
	resourceWriter = "test.gatesift.dev/writer"
)

// fencedWrite is how a leader fences a write to a Kubernetes object by its
// token: read the object, refuse when it already carries a newer token
// (elector.CheckToken), else write token and data guarded by the
// resourceVersion read, so a newer leader's write in between makes this one
// conflict and check again. It returns the resourceVersion written.
func fencedWrite(ctx context.Context, leases coordclient.LeaseInterface, name string, token uint64, writer string) (string, error) {
	for {
		cur, err := leases.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			cur = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name}}
		} else if err != nil {
			return "", err
		}
		var latest uint64
		if v := cur.Annotations[resourceToken]; v != "" {
			if latest, err = strconv.ParseUint(v, 10, 64); err != nil {
				return "", err
			}
		}
		if err := elector.CheckToken(latest, token); err != nil {
			return "", err
		}
		if cur.Annotations == nil {
			cur.Annotations = map[string]string{}
		}
		cur.Annotations[resourceToken] = strconv.FormatUint(token, 10)
		cur.Annotations[resourceWriter] = fmt.Sprintf("%s %d", writer, token)
		var got *coordinationv1.Lease
		if cur.ResourceVersion == "" {
			got, err = leases.Create(ctx, cur, metav1.CreateOptions{})
		} else {
			got, err = leases.Update(ctx, cur, metav1.UpdateOptions{})
		}
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			continue
		}
		if err != nil {
			return "", err
		}
		return got.ResourceVersion, nil
	}
}
