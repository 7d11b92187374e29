package elector_test

import (
	"bytes"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/memstore"
)

func TestDefaultIdentity(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	id := elector.DefaultIdentity()
	nonce, ok := strings.CutPrefix(id, host+"-")
	if !ok || len(nonce) != 12 {
		t.Fatalf("DefaultIdentity() = %q; want %q plus a 12-hex-digit nonce", id, host+"-")
	}
	if again := elector.DefaultIdentity(); again != id {
		t.Errorf("identity changed within one process: %q then %q", id, again)
	}
	c, err := elector.New(nopStore{}, "x")
	if err != nil || c.Identity() != id || c.Name() != "x" || c.Timing() != elector.DefaultTiming() {
		t.Errorf("New defaults: identity %q, name %q, timing %v, %v", c.Identity(), c.Name(), c.Timing(), err)
	}
	if _, err := elector.New(nopStore{}, "x", elector.WithIdentity("")); err == nil {
		t.Error("New accepted an empty identity")
	}
}

func TestSlowAcquireNeverStartsWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The grant arrives after the deadline it would give: the
		// candidate must not start work on it, and gives the term back.
		fs := &faultStore{Store: memstore.New(), acquireDelay: testTiming.SafeWindow(), appliesLate: true}
		var ev events
		var logs bytes.Buffer
		c := newCandidate(t, pollOnly{fs}, "a", &ev, elector.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		rec := newRecorder()
		stop := runBg(t, c, rec.work)
		defer stop()
		time.Sleep(testTiming.SafeWindow() + time.Second)
		if n := len(rec.all()); n != 0 {
			t.Fatalf("work started %d times on a grant that arrived at its deadline", n)
		}
		lost := ev.of(elector.Lost)
		if len(lost) != 1 || !strings.Contains(lost[0].Reason, "after the deadline") {
			t.Fatalf("lost events %+v", lost)
		}
		if r, _ := fs.Read(t.Context(), "lease"); r.Held {
			t.Errorf("the late grant was not given back: %+v", r)
		}
		// With a fast store again, it leads, and the log says so.
		fs.mu.Lock()
		fs.acquireDelay = 0
		fs.mu.Unlock()
		l := <-rec.start
		stop()
		out := logs.String()
		for _, want := range []string{"level=WARN msg=\"elector: lost\"", "level=INFO msg=\"elector: acquired\"",
			"token=" + strconv.FormatUint(l.Token(), 10), "identity=a", "lease=lease"} {
			if !strings.Contains(out, want) {
				t.Errorf("log lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "elector: renewed") {
			t.Errorf("renewals logged at info level:\n%s", out)
		}
	})
}
