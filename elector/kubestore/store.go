package kubestore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	coordclient "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// Annotations the store keeps on its Lease objects. client-go and kubectl
// ignore them; they carry what the Lease spec has no field for.
const (
	// TokenAnnotation on the election Lease is the fencing token of the
	// current or most recent term.
	TokenAnnotation = "elector.gatesift.dev/token"
	// HolderAnnotation on the election Lease is the holder of that term; it
	// stays after Release, which clears spec.holderIdentity as client-go does.
	HolderAnnotation = "elector.gatesift.dev/holder"
	// FenceAnnotation on the fence Lease is the highest token ever reserved
	// for the name.
	FenceAnnotation = "elector.gatesift.dev/fence"
)

// FenceSuffix names the second, durable Lease of each election: name +
// FenceSuffix. It never has a holder; it only keeps the token counter, so
// that deleting the election Lease cannot send tokens back (see the package
// documentation).
const FenceSuffix = ".fence"

// maxAttempts bounds the retries after a resourceVersion conflict. A
// conflict means someone else wrote in between; after a fresh read the
// outcome is usually decided (ErrHeld, ErrLost) without another write.
const maxAttempts = 3

// Store is an elector.Store and elector.Watcher on coordination.k8s.io/v1
// Lease objects in one namespace. It is safe for concurrent use; candidates
// in one process may share it, and should, since it remembers when it first
// saw each version of a Lease (see the package documentation on expiry).
type Store struct {
	leases coordclient.LeaseInterface
	now    func() time.Time

	mu sync.Mutex
	// seen is, per lease name, the resourceVersion last observed and the
	// local monotonic time this Store first observed it.
	seen map[string]sighting
	// own holds the terms this Store granted or renewed: the local time
	// just before the last successful write was sent, and its duration.
	own map[elector.Term]ownTerm
}

type sighting struct {
	rv string
	at time.Time
}

type ownTerm struct {
	sent time.Time
	dur  time.Duration
}

// New returns a store for Leases in namespace, through c, which is usually
// clientset.CoordinationV1(). The rest.Config behind c should not
// rate-limit renewals: set QPS and Burst well above what the candidates
// need (client-go's default of 5 QPS would queue a renew behind others).
func New(c coordclient.LeasesGetter, namespace string) *Store {
	return &Store{
		leases: c.Leases(namespace),
		now:    time.Now,
		seen:   map[string]sighting{},
		own:    map[elector.Term]ownTerm{},
	}
}

var (
	_ elector.Store   = (*Store)(nil)
	_ elector.Watcher = (*Store)(nil)
)

// seconds rounds ttl up to whole seconds, as leaseDurationSeconds holds
// them: the contract lets a store round up, never down.
func seconds(ttl time.Duration) (int32, error) {
	if ttl <= 0 {
		return 0, fmt.Errorf("kubestore: ttl %v must be positive", ttl)
	}
	s := (ttl + time.Second - 1) / time.Second
	if s > 1<<31-1 {
		return 0, fmt.Errorf("kubestore: ttl %v too long", ttl)
	}
	return int32(s), nil
}

// get reads name, returning nil and no error when it does not exist.
func (s *Store) get(ctx context.Context, name string) (*coordinationv1.Lease, error) {
	l, err := s.leases.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return l, err
}

func holderOf(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// tokenOf is the token annotation of l; 0 when absent. A malformed value
// is an error rather than 0, because treating it as 0 could let the next
// token go back.
func tokenOf(l *coordinationv1.Lease, key string) (uint64, error) {
	v, ok := l.Annotations[key]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("kubestore: Lease %s annotation %s=%q is not a token; fix or remove it by hand", l.Name, key, v)
	}
	return n, nil
}

// termOf is the current or most recent term recorded on l. A holder
// without our annotations (a client-go elector) gets token 0.
func termOf(l *coordinationv1.Lease) elector.Term {
	t := elector.Term{Name: l.Name, Holder: l.Annotations[HolderAnnotation]}
	if h := holderOf(l); h != "" && h != t.Holder {
		return elector.Term{Name: l.Name, Holder: h}
	}
	t.Token, _ = tokenOf(l, TokenAnnotation)
	return t
}

// carries reports whether l shows t as its current term.
func carries(l *coordinationv1.Lease, t elector.Term) bool {
	return l != nil && holderOf(l) == t.Holder && termOf(l) == t
}

func duration(l *coordinationv1.Lease) time.Duration {
	if l.Spec.LeaseDurationSeconds == nil {
		return 0
	}
	return time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
}

// observe records that l was seen at now (taken after the response that
// carried l arrived) and returns when this Store first saw l's version.
func (s *Store) observe(l *coordinationv1.Lease, now time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sg, ok := s.seen[l.Name]; ok && sg.rv == l.ResourceVersion {
		return sg.at
	}
	s.seen[l.Name] = sighting{rv: l.ResourceVersion, at: now}
	return now
}

// remaining is how long l's holder stays live by this Store's clock: the
// lease duration from when this Store first saw the current version, and
// for a term this Store wrote itself, from the send time of that write if
// that is shorter. Zero when there is no holder.
func (s *Store) remaining(l *coordinationv1.Lease, now time.Time) time.Duration {
	if holderOf(l) == "" {
		return 0
	}
	rem := s.observe(l, now).Add(duration(l)).Sub(now)
	s.mu.Lock()
	if o, ok := s.own[termOf(l)]; ok {
		rem = min(rem, o.sent.Add(o.dur).Sub(now))
	}
	s.mu.Unlock()
	return max(rem, 0)
}

// ownExpired reports whether t is a term this Store wrote whose duration
// has passed since the last successful write was sent; such a term may
// already have a successor in another process, so it is lost.
func (s *Store) ownExpired(t elector.Term, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.own[t]
	if ok && !now.Before(o.sent.Add(o.dur)) {
		delete(s.own, t)
		return true
	}
	return false
}

func (s *Store) remember(t elector.Term, sent time.Time, dur time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Earlier terms of the name have ended; drop them so the map does not
	// grow with terms that ended without a Renew or Release telling us.
	for old := range s.own {
		if old.Name == t.Name && old != t {
			delete(s.own, old)
		}
	}
	s.own[t] = ownTerm{sent: sent, dur: dur}
}

func (s *Store) forget(t elector.Term) {
	s.mu.Lock()
	delete(s.own, t)
	s.mu.Unlock()
}

// errRetry means a write lost a resourceVersion race; the caller reads
// again and decides afresh.
var errRetry = errors.New("kubestore: conflict")

func conflict(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || apierrors.IsNotFound(err)
}

// Acquire grants name to holder when the Lease is absent, released
// (holderIdentity empty), expired by this Store's observation, or held by
// the same holder (a reclaim, which starts a new term with a new token).
func (s *Store) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	secs, err := seconds(ttl)
	if err != nil {
		return elector.Term{}, err
	}
	if holder == "" {
		return elector.Term{}, errors.New("kubestore: empty holder")
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		t, err := s.tryAcquire(ctx, name, holder, secs)
		if !errors.Is(err, errRetry) {
			return t, err
		}
	}
	return elector.Term{}, fmt.Errorf("%w: %q changed hands during acquire", elector.ErrHeld, name)
}

func (s *Store) tryAcquire(ctx context.Context, name, holder string, secs int32) (elector.Term, error) {
	cur, err := s.get(ctx, name)
	if err != nil {
		return elector.Term{}, err
	}
	var floor uint64
	if cur != nil {
		if floor, err = tokenOf(cur, TokenAnnotation); err != nil {
			return elector.Term{}, err
		}
		if h := holderOf(cur); h != "" && h != holder {
			if rem := s.remaining(cur, s.now()); rem > 0 {
				return elector.Term{}, fmt.Errorf("%w: %q holds %q with token %d for %v more", elector.ErrHeld, h, name, termOf(cur).Token, rem.Round(time.Millisecond))
			}
		}
	}
	token, err := s.reserve(ctx, name, floor)
	if err != nil {
		return elector.Term{}, err
	}
	sent := s.now()
	next := grant(cur, name, holder, token, secs, sent)
	var got *coordinationv1.Lease
	if cur == nil {
		got, err = s.leases.Create(ctx, next, metav1.CreateOptions{})
	} else {
		got, err = s.leases.Update(ctx, next, metav1.UpdateOptions{})
	}
	if conflict(err) {
		return elector.Term{}, errRetry
	}
	if err != nil {
		// The outcome is unknown. If the write happened, the term lapses
		// after secs: the caller saw an error and will not renew it.
		return elector.Term{}, err
	}
	t := elector.Term{Name: name, Holder: holder, Token: token}
	s.remember(t, sent, time.Duration(secs)*time.Second)
	s.observe(got, s.now())
	return t, nil
}

// grant builds the Lease of a new term from cur (nil: create), with the
// field semantics of client-go's LeaseLock: acquireTime and renewTime are
// now, leaseTransitions counts acquisitions after the first.
func grant(cur *coordinationv1.Lease, name, holder string, token uint64, secs int32, now time.Time) *coordinationv1.Lease {
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name}}
	transitions := int32(0)
	if cur != nil {
		l = cur.DeepCopy()
		if cur.Spec.LeaseTransitions != nil {
			transitions = *cur.Spec.LeaseTransitions + 1
		}
	}
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[TokenAnnotation] = strconv.FormatUint(token, 10)
	l.Annotations[HolderAnnotation] = holder
	mt := metav1.NewMicroTime(now)
	l.Spec = coordinationv1.LeaseSpec{
		HolderIdentity:       &holder,
		LeaseDurationSeconds: &secs,
		AcquireTime:          &mt,
		RenewTime:            &mt,
		LeaseTransitions:     &transitions,
	}
	return l
}

// reserve raises the counter on the fence Lease above both its own value
// and floor (the token on the election Lease as read) and returns the new
// value. The write is guarded by the fence's resourceVersion, so two
// reservations never return the same value; a reservation whose election
// write then fails is simply skipped, which leaves a gap, never a repeat.
func (s *Store) reserve(ctx context.Context, name string, floor uint64) (uint64, error) {
	f, err := s.get(ctx, name+FenceSuffix)
	if err != nil {
		return 0, err
	}
	var last uint64
	if f != nil {
		if last, err = tokenOf(f, FenceAnnotation); err != nil {
			return 0, err
		}
	}
	next := max(last, floor) + 1
	if f == nil {
		f = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{
			Name: name + FenceSuffix,
			Annotations: map[string]string{
				"elector.gatesift.dev/fence-of": name,
			},
		}}
	}
	if f.Annotations == nil {
		f.Annotations = map[string]string{}
	}
	f.Annotations[FenceAnnotation] = strconv.FormatUint(next, 10)
	if f.ResourceVersion == "" {
		_, err = s.leases.Create(ctx, f, metav1.CreateOptions{})
	} else {
		_, err = s.leases.Update(ctx, f, metav1.UpdateOptions{})
	}
	if conflict(err) {
		return 0, errRetry
	}
	return next, err
}

// Renew extends live term t to ttl from now: renewTime and
// leaseDurationSeconds, guarded by the resourceVersion of the read that
// found t current.
func (s *Store) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	secs, err := seconds(ttl)
	if err != nil {
		return err
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		err := s.write(ctx, t, func(l *coordinationv1.Lease, now time.Time) {
			mt := metav1.NewMicroTime(now)
			l.Spec.RenewTime = &mt
			l.Spec.LeaseDurationSeconds = &secs
		})
		if errors.Is(err, errRetry) {
			continue
		}
		return err
	}
	return fmt.Errorf("kubestore: renew of %q token %d kept conflicting", t.Name, t.Token)
}

// Release ends live term t at once the way client-go does: holderIdentity
// empty, leaseDurationSeconds 1. The token and holder annotations stay, so
// Read still reports the most recent term and the next grant a larger
// token.
func (s *Store) Release(ctx context.Context, t elector.Term) error {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		err := s.write(ctx, t, func(l *coordinationv1.Lease, now time.Time) {
			mt := metav1.NewMicroTime(now)
			empty, one := "", int32(1)
			l.Spec.HolderIdentity = &empty
			l.Spec.LeaseDurationSeconds = &one
			l.Spec.AcquireTime = &mt
			l.Spec.RenewTime = &mt
		})
		if errors.Is(err, errRetry) {
			continue
		}
		if err == nil || errors.Is(err, elector.ErrLost) {
			s.forget(t)
		}
		return err
	}
	return fmt.Errorf("kubestore: release of %q token %d kept conflicting", t.Name, t.Token)
}

// write applies edit to the Lease if t is still its live term, with a
// write guarded by the resourceVersion read. For Renew, the send time of a
// successful write is the term's new start.
func (s *Store) write(ctx context.Context, t elector.Term, edit func(*coordinationv1.Lease, time.Time)) error {
	if t.Token == 0 {
		return fmt.Errorf("%w: zero term", elector.ErrLost)
	}
	if s.ownExpired(t, s.now()) {
		return fmt.Errorf("%w: token %d expired", elector.ErrLost, t.Token)
	}
	cur, err := s.get(ctx, t.Name)
	if err != nil {
		return err
	}
	if !carries(cur, t) {
		s.forget(t)
		return fmt.Errorf("%w: token %d is no longer current", elector.ErrLost, t.Token)
	}
	sent := s.now()
	if s.remaining(cur, sent) <= 0 {
		s.forget(t)
		return fmt.Errorf("%w: token %d expired", elector.ErrLost, t.Token)
	}
	next := cur.DeepCopy()
	edit(next, sent)
	got, err := s.leases.Update(ctx, next, metav1.UpdateOptions{})
	if conflict(err) {
		return errRetry
	}
	if err != nil {
		return err
	}
	if holderOf(got) != "" {
		s.remember(t, sent, duration(got))
	}
	s.observe(got, s.now())
	return nil
}

// Read reports the current term, or the most recent one when the Lease is
// free. Held and Remaining follow this Store's observation (see the
// package documentation): a Store that has just started reports a held
// Lease as live for its whole duration.
func (s *Store) Read(ctx context.Context, name string) (elector.Record, error) {
	cur, err := s.get(ctx, name)
	if err != nil || cur == nil {
		return elector.Record{}, err
	}
	rec := elector.Record{Term: termOf(cur)}
	if rec.Holder == "" {
		return elector.Record{}, nil
	}
	if rem := s.remaining(cur, s.now()); rem > 0 {
		rec.Held, rec.Remaining = true, rem
	}
	return rec, nil
}

// Watch wakes the caller after any change of name's Lease. It starts from
// the resourceVersion of a read, so no change after Watch returns is
// missed; when the Lease does not exist yet it starts from "now", and the
// Lease's creation arrives as an event. Every event is also an
// observation, so a watching standby starts its expiry clock as soon as a
// renewal stops arriving, not at its next read.
func (s *Store) Watch(ctx context.Context, name string) (<-chan struct{}, error) {
	cur, err := s.get(ctx, name)
	if err != nil {
		return nil, err
	}
	opts := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()}
	if cur != nil {
		opts.ResourceVersion = cur.ResourceVersion
		s.observe(cur, s.now())
	}
	w, err := s.leases.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok || ev.Type == watch.Error {
					// The server ended the watch (timeout, restart, a
					// too-old resourceVersion): the caller polls and
					// opens a new one.
					return
				}
				if ev.Type == watch.Bookmark {
					continue
				}
				if l, ok := ev.Object.(*coordinationv1.Lease); ok && ev.Type != watch.Deleted {
					s.observe(l, s.now())
				}
				select {
				case out <- struct{}{}:
				default: // a wakeup is already pending; hints coalesce
				}
			}
		}
	}()
	return out, nil
}
