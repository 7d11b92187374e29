package azblobstore

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"

	"github.com/gatesift/gatesift-vet/elector"
)

// Azure's limits on a fixed-duration blob lease.
const (
	MinLeaseDuration = 15 * time.Second
	MaxLeaseDuration = 60 * time.Second
)

// Store is an elector.Store on Azure Blob leases. It is safe for concurrent
// use.
type Store struct {
	c *container.Client
}

// New returns a store keeping one blob per lease name in the container c,
// which must exist (see EnsureContainer).
func New(c *container.Client) *Store { return &Store{c: c} }

// EnsureContainer creates the store's container unless it exists.
func (s *Store) EnsureContainer(ctx context.Context) error {
	_, err := s.c.Create(ctx, nil)
	if err != nil && !hasStatus(err, http.StatusConflict) {
		return fmt.Errorf("azblobstore: create container: %w", err)
	}
	return nil
}

// LeaseBounds reports Azure's limits on a fixed lease, so elector.New
// rejects a Timing whose lease duration exceeds 60 s (the LeaseBounds method of elector.Store).
// Shorter leases are rounded up to 15 s; the store's own expiry in the
// blob's metadata still ends the term at the requested duration.
func (s *Store) LeaseBounds() (min, max time.Duration) {
	return MinLeaseDuration, MaxLeaseDuration
}

// LeaseID is the Azure lease ID a holder proposes: a UUID (version 5
// layout) derived from the holder identity, so the same holder restarted
// proposes the same ID and can reclaim its live lease at once.
func LeaseID(holder string) string {
	h := sha1.Sum([]byte("gatesift-elector-azblob\x00" + holder))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// leaseSeconds is the Azure lease duration for ttl: ttl rounded up to
// whole seconds and into Azure's [15 s, 60 s]. A store may round up, never
// down; a ttl above 60 s cannot be covered by a fixed lease at all.
func leaseSeconds(ttl time.Duration) (int32, error) {
	if ttl <= 0 {
		return 0, fmt.Errorf("azblobstore: ttl %v must be positive", ttl)
	}
	if ttl > MaxLeaseDuration {
		return 0, fmt.Errorf("azblobstore: ttl %v exceeds Azure's maximum fixed lease of %v: "+
			"configure the elector's Timing.LeaseDuration at most %v", ttl, MaxLeaseDuration, MaxLeaseDuration)
	}
	secs := int32((ttl + time.Second - 1) / time.Second)
	return max(secs, int32(MinLeaseDuration/time.Second)), nil
}

// Metadata keys on a lease blob.
const (
	metaToken  = "token"    // token of the current or most recent term
	metaHolder = "holder"   // its holder, base64url (metadata values are headers)
	metaExpiry = "expms"    // term expiry, server time, Unix milliseconds
	metaLease  = "leasems"  // lower bound of the Azure lease's end, Unix ms
	metaSecs   = "leasesec" // the Azure lease's duration in seconds
)

// state is what one GetProperties says about a lease blob.
type state struct {
	etag   azcore.ETag
	leased bool      // Azure lease state "leased" (active)
	now    time.Time // the service's Date header: its clock
	term   elector.Term
	expiry time.Time // store-side end of the term
	lease  time.Time // Azure lease ends no earlier than this
	meta   map[string]*string
}

// live reports whether the term is live by the service's clock: the Azure
// lease is active and the store-side expiry has not passed.
func (st *state) live() bool {
	return st.leased && st.term.Token != 0 && st.now.Before(st.expiry) && st.now.Before(st.lease)
}

func (st *state) remaining() time.Duration {
	end := st.expiry
	if st.lease.Before(end) {
		end = st.lease
	}
	return max(end.Sub(st.now), time.Microsecond)
}

func (s *Store) blob(name string) *blob.Client { return s.c.NewBlobClient(name) }

func (s *Store) leaseClient(name, holder string) (*lease.BlobClient, error) {
	id := LeaseID(holder)
	return lease.NewBlobClient(s.blob(name), &lease.BlobClientOptions{LeaseID: &id})
}

// load reads the lease blob; found is false when it does not exist.
func (s *Store) load(ctx context.Context, name string) (st state, found bool, err error) {
	p, err := s.blob(name).GetProperties(ctx, nil)
	if err != nil {
		if hasStatus(err, http.StatusNotFound) {
			return state{}, false, nil
		}
		return state{}, false, err
	}
	if p.ETag == nil || p.Date == nil {
		return state{}, false, errors.New("response without ETag or Date")
	}
	st = state{etag: *p.ETag, now: *p.Date, meta: p.Metadata}
	st.leased = p.LeaseState != nil && *p.LeaseState == lease.StateTypeLeased
	st.term.Name = name
	if v := metaValue(p.Metadata, metaToken); v != "" {
		if st.term.Token, err = strconv.ParseUint(v, 10, 64); err != nil {
			return state{}, false, fmt.Errorf("malformed token %q", v)
		}
	}
	if v := metaValue(p.Metadata, metaHolder); v != "" {
		h, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil {
			return state{}, false, fmt.Errorf("malformed holder %q", v)
		}
		st.term.Holder = string(h)
	}
	st.expiry = unixMs(metaValue(p.Metadata, metaExpiry))
	st.lease = unixMs(metaValue(p.Metadata, metaLease))
	return st, true, nil
}

// create makes the empty lease blob unless it exists; losing that race to
// another client is fine. A missing container is created: an emulator that
// lost its data (Azurite killed with -9 before it saved) or a container
// deleted by hand must not stop elections for good; the tokens' clock
// floor keeps them growing regardless.
func (s *Store) create(ctx context.Context, name string) error {
	anyETag := azcore.ETagAny
	upload := func() error {
		_, err := s.c.NewBlockBlobClient(name).Upload(ctx, streaming.NopCloser(bytes.NewReader(nil)), &blockblob.UploadOptions{
			AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &anyETag}},
		})
		return err
	}
	err := upload()
	if bloberror.HasCode(err, bloberror.ContainerNotFound) {
		if err = s.EnsureContainer(ctx); err == nil {
			err = upload()
		}
	}
	if err != nil && !hasStatus(err, http.StatusConflict, http.StatusPreconditionFailed) {
		return err
	}
	return nil
}

// Acquire implements elector.Store.
func (s *Store) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	fail := func(err error) (elector.Term, error) {
		return elector.Term{}, fmt.Errorf("azblobstore: acquire %q: %w", name, err)
	}
	if name == "" || holder == "" {
		return fail(errors.New("empty lease name or holder"))
	}
	secs, err := leaseSeconds(ttl)
	if err != nil {
		return elector.Term{}, err
	}
	st, found, err := s.load(ctx, name)
	if err == nil && !found {
		if err = s.create(ctx, name); err == nil {
			st, found, err = s.load(ctx, name)
			if err == nil && !found {
				err = errors.New("lease blob vanished after creation")
			}
		}
	}
	if err != nil {
		return fail(err)
	}
	if st.live() && st.term.Holder != holder {
		return fail(fmt.Errorf("%w (by %q)", elector.ErrHeld, st.term.Holder))
	}
	// Every condition below is If-Match on the ETag just read: lease
	// operations leave the ETag alone, every term's metadata write changes
	// it, so a condition fails exactly when a term began or was renewed
	// since this read.
	match := &blob.ModifiedAccessConditions{IfMatch: &st.etag}
	lc, err := s.leaseClient(name, holder)
	if err != nil {
		return fail(err)
	}
	// A term that ended by the store's clock may still hold its Azure lease
	// (at least 15 s). Unless it is this holder's own lease, break it at
	// once; the same holder's ID is accepted by AcquireLease as it is.
	if st.leased && st.term.Holder != holder {
		zero := int32(0)
		if _, err := lc.BreakLease(ctx, &lease.BlobBreakOptions{BreakPeriod: &zero, ModifiedAccessConditions: match}); err != nil {
			return fail(contention(err, elector.ErrHeld))
		}
	}
	ar, err := lc.AcquireLease(ctx, secs, &lease.BlobAcquireOptions{ModifiedAccessConditions: match})
	if err != nil {
		return fail(contention(err, elector.ErrHeld))
	}
	term := elector.Term{Name: name, Holder: holder, Token: nextToken(st.term.Token, dateOf(ar.Date))}
	if err := s.writeTerm(ctx, lc, st, term, dateOf(ar.Date), ttl, secs); err != nil {
		return fail(contention(err, elector.ErrHeld))
	}
	return term, nil
}

// nextToken is one more than the last token, but at least the service's
// clock in microseconds (its Date has whole seconds). The floor matters
// only for a store that lost acknowledged metadata (Azurite killed with
// -9 forgets up to 5 s of writes; Azure Storage itself does not): its next
// tokens exceed the lost ones when they are granted in a later second of
// the service's clock than the last lost grant (a grant in the same second
// can repeat the lost token), unless that clock stepped back or more than
// a million grants happened in the lost second.
func nextToken(last uint64, now time.Time) uint64 {
	floor := uint64(max(now.Unix(), 0)) * 1_000_000
	return max(last+1, floor)
}

// writeTerm records term in the blob's metadata while holding the Azure
// lease (so only the lease holder can write) and only if the blob is
// unchanged since st was read. granted is the Date of the lease call that
// began or renewed the Azure lease: the service received that request no
// later than then plus one second (Date truncates), and the holder sent it
// earlier, so an expiry of granted+1s+ttl never ends a term before the
// holder's own deadline.
func (s *Store) writeTerm(ctx context.Context, lc *lease.BlobClient, st state, term elector.Term, granted time.Time, ttl time.Duration, secs int32) error {
	meta := map[string]*string{}
	set := func(k, v string) { meta[k] = &v }
	set(metaToken, strconv.FormatUint(term.Token, 10))
	set(metaHolder, base64.RawURLEncoding.EncodeToString([]byte(term.Holder)))
	set(metaExpiry, strconv.FormatInt(granted.Add(time.Second+ttl).UnixMilli(), 10))
	set(metaSecs, strconv.Itoa(int(secs)))
	set(metaLease, strconv.FormatInt(granted.Add(time.Duration(secs)*time.Second).UnixMilli(), 10))
	_, err := s.blob(term.Name).SetMetadata(ctx, meta, &blob.SetMetadataOptions{AccessConditions: &blob.AccessConditions{
		LeaseAccessConditions:    &blob.LeaseAccessConditions{LeaseID: lc.LeaseID()},
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &st.etag},
	}})
	return err
}

// current loads the lease and checks that t is its live term.
func (s *Store) current(ctx context.Context, t elector.Term) (state, error) {
	st, found, err := s.load(ctx, t.Name)
	if err != nil {
		return state{}, err
	}
	if !found || st.term != t || !st.live() {
		return state{}, elector.ErrLost
	}
	return st, nil
}

// Renew implements elector.Store: it checks the term, renews the Azure
// lease (or re-acquires it with the same ID when ttl needs a longer
// duration), then moves the term's expiry, all conditional on the ETag it
// checked. A refused condition makes it check again, a couple of times: a
// concurrent renewal of the same term changes the ETag too, while a new
// term or a broken lease fails the check and is reported as ErrLost.
func (s *Store) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	fail := func(err error) error {
		return fmt.Errorf("azblobstore: renew %q token %d: %w", t.Name, t.Token, err)
	}
	secs, err := leaseSeconds(ttl)
	if err != nil {
		return err
	}
	lc, err := s.leaseClient(t.Name, t.Holder)
	if err != nil {
		return fail(err)
	}
	for attempt := 0; ; attempt++ {
		st, err := s.current(ctx, t)
		if err != nil {
			return fail(err)
		}
		match := &blob.ModifiedAccessConditions{IfMatch: &st.etag}
		// RenewLease keeps the duration the lease was taken with; a
		// longer one needs AcquireLease with the same ID, which Azure
		// accepts on an active lease to change its duration.
		var granted *time.Time
		eff := leaseSecondsOf(st)
		if eff < secs {
			eff = secs
			r, e := lc.AcquireLease(ctx, secs, &lease.BlobAcquireOptions{ModifiedAccessConditions: match})
			granted, err = r.Date, e
		} else {
			r, e := lc.RenewLease(ctx, &lease.BlobRenewOptions{ModifiedAccessConditions: match})
			granted, err = r.Date, e
		}
		if err == nil {
			err = s.writeTerm(ctx, lc, st, t, dateOf(granted), ttl, eff)
		}
		if err == nil {
			return nil
		}
		if !hasStatus(err, http.StatusPreconditionFailed, http.StatusConflict) || attempt >= 2 {
			return fail(contention(err, elector.ErrLost))
		}
	}
}

// leaseSecondsOf is the duration the term's Azure lease was taken with,
// from the metadata the last grant or renewal wrote.
func leaseSecondsOf(st state) int32 {
	v := metaValue(st.meta, metaSecs)
	n, _ := strconv.Atoi(v)
	return int32(n)
}

// Release implements elector.Store: it releases the Azure lease only if t
// is still the live term, conditional on the ETag it checked.
func (s *Store) Release(ctx context.Context, t elector.Term) error {
	fail := func(err error) error {
		return fmt.Errorf("azblobstore: release %q token %d: %w", t.Name, t.Token, err)
	}
	lc, err := s.leaseClient(t.Name, t.Holder)
	if err != nil {
		return fail(err)
	}
	for attempt := 0; ; attempt++ {
		st, err := s.current(ctx, t)
		if err != nil {
			return fail(err)
		}
		_, err = lc.ReleaseLease(ctx, &lease.BlobReleaseOptions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &st.etag}})
		if err == nil {
			return nil
		}
		if !hasStatus(err, http.StatusPreconditionFailed, http.StatusConflict) || attempt >= 2 {
			return fail(contention(err, elector.ErrLost))
		}
	}
}

// Read implements elector.Store. After a release or expiry it reports the
// most recent term with Held false.
func (s *Store) Read(ctx context.Context, name string) (elector.Record, error) {
	st, found, err := s.load(ctx, name)
	if err != nil {
		return elector.Record{}, fmt.Errorf("azblobstore: read %q: %w", name, err)
	}
	if !found || st.term.Token == 0 {
		return elector.Record{}, nil
	}
	rec := elector.Record{Term: st.term}
	if st.live() {
		rec.Held, rec.Remaining = true, st.remaining()
	}
	return rec, nil
}

// contention maps the service's refusals that mean "someone else's term"
// (409 lease conflicts, 412 failed conditions) to sentinel.
func contention(err, sentinel error) error {
	if errors.Is(err, elector.ErrLost) || errors.Is(err, elector.ErrHeld) {
		return err
	}
	if hasStatus(err, http.StatusConflict, http.StatusPreconditionFailed) {
		return fmt.Errorf("%w: %v", sentinel, err)
	}
	return err
}

func hasStatus(err error, codes ...int) bool {
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return false
	}
	for _, c := range codes {
		if re.StatusCode == c {
			return true
		}
	}
	return false
}

// metaValue looks a metadata key up ignoring case: services return the
// keys' case as they like.
func metaValue(m map[string]*string, key string) string {
	for k, v := range m {
		if strings.EqualFold(k, key) && v != nil {
			return *v
		}
	}
	return ""
}

func unixMs(v string) time.Time {
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// dateOf is a response's Date. Azure and Azurite always send one; should a
// response lack it, the local clock stands in (the only other clock there
// is).
func dateOf(d *time.Time) time.Time {
	if d == nil {
		return time.Now()
	}
	return *d
}

var _ elector.Store = (*Store)(nil)
