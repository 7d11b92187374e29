package sim

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// check returns every violation of the elector's guarantees in r:
//
//  1. the store's grants carry strictly increasing tokens;
//  2. one holder per token: no two terms (or processes) share a token;
//  3. terms start in token order;
//  4. no two leaders' terms overlap in global time, except by as much as the
//     older one's process was paused during its term (a pause is the one
//     hazard no lease can bound; fencing covers it);
//  5. the fenced resource accepted writes in token order;
//  6. no identity conflict is reported, since every live process has its own
//     identity;
//  7. a term lost at its deadline (not paused since its acquire was sent,
//     not crashed) sent at least
//     Timing.RenewAttempts renews after its last success: the attempts the
//     timing promises happen even when requests hang.
func check(r *Report) []string {
	var v []string
	bad := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }

	for i := 1; i < len(r.Grants); i++ {
		if r.Grants[i].Token <= r.Grants[i-1].Token {
			bad("grant %d token %d after token %d", i, r.Grants[i].Token, r.Grants[i-1].Token)
		}
	}
	holder := map[uint64]elector.Term{}
	for _, g := range r.Grants {
		holder[g.Token] = g
	}

	terms := append([]Term(nil), r.Terms...)
	sort.Slice(terms, func(i, j int) bool { return terms[i].Start.Before(terms[j].Start) })
	seen := map[uint64]Term{}
	for i, t := range terms {
		if prev, dup := seen[t.Token]; dup {
			bad("token %d held twice: process %d life %d and process %d life %d", t.Token, prev.Process, prev.Life, t.Process, t.Life)
		}
		seen[t.Token] = t
		if g, ok := holder[t.Token]; !ok || g.Holder != t.Identity {
			bad("term with token %d by %q was not granted to it (grant %+v)", t.Token, t.Identity, g)
		}
		if i > 0 && t.Token <= terms[i-1].Token {
			bad("term with token %d started after term with token %d", t.Token, terms[i-1].Token)
		}
	}
	for i, a := range terms {
		for _, b := range terms[i+1:] {
			if !b.Start.Before(a.End) {
				continue
			}
			older := a
			if b.Token < a.Token {
				older = b
			}
			over := minTime(a.End, b.End).Sub(b.Start)
			if over > older.Paused {
				bad("terms %d (process %d, %v..%v) and %d (process %d, %v..%v) overlap by %v; older was paused %v",
					a.Token, a.Process, a.Start.Sub(r.Start), a.End.Sub(r.Start),
					b.Token, b.Process, b.Start.Sub(r.Start), b.End.Sub(r.Start), over, older.Paused)
			}
		}
	}

	var latest uint64
	for _, w := range r.Writes {
		if !w.Accepted {
			continue
		}
		if w.Token < latest {
			bad("resource accepted token %d after token %d", w.Token, latest)
		}
		latest = w.Token
	}
	v = append(v, checkRenewAttempts(r)...)
	if n := r.Events[elector.IdentityConflict]; n > 0 {
		bad("%d identity conflicts reported though no two live processes share an identity", n)
	}
	return v
}

// checkRenewAttempts is rule 7 of check: after the last success (the grant,
// or the last renew the candidate was told succeeded) the first attempt is
// sent RenewInterval later (or when that success was answered, if later),
// and from then until the deadline no gap between attempts exceeds the
// jittered RetryInterval, all on the slowest clock the run allows. That is
// what Timing.RenewAttempts counts on; a renewer that waits for a hung
// request breaks it.
func checkRenewAttempts(r *Report) []string {
	var v []string
	tm := r.Config.Timing
	slow := func(d time.Duration) time.Duration {
		return time.Duration(float64(d)/(1-r.Config.MaxDriftRate)) + time.Millisecond
	}
	maxGap := slow(maxJitterOf(tm.RetryInterval))
	byToken := map[uint64][]RenewCall{}
	for _, c := range r.Renews {
		byToken[c.Token] = append(byToken[c.Token], c)
	}
	for _, t := range r.Terms {
		if t.Crashed || t.PausedSinceRequest > 0 || !errors.Is(t.Cause, elector.ErrDeadlinePassed) {
			continue
		}
		anchor, answered := t.Requested, t.Start
		for _, c := range byToken[t.Token] {
			if c.OK && c.Answered.Before(t.Cancelled) && c.Sent.After(anchor) {
				anchor, answered = c.Sent, c.Answered
			}
		}
		var sent []time.Time
		for _, c := range byToken[t.Token] {
			if c.Sent.After(anchor) && c.Sent.Before(t.Cancelled) {
				sent = append(sent, c.Sent)
			}
		}
		sort.Slice(sent, func(i, j int) bool { return sent[i].Before(sent[j]) })
		due := anchor.Add(slow(tm.RenewInterval))
		if answered.After(due) {
			due = answered.Add(time.Millisecond)
		}
		prev, what, limit := due, "the first was due", time.Duration(0)
		for _, at := range append(sent, t.Cancelled) {
			if gap := at.Sub(prev); at.After(prev) && gap > limit {
				v = append(v, fmt.Sprintf("term %d (process %d) lost at its deadline %v after its last success with %d renew attempt(s) sent: "+
					"%v without an attempt after %s; the timing promises the first when due and one every %v after",
					t.Token, t.Process, t.Cancelled.Sub(anchor), len(sent), gap, what, maxGap))
				break
			}
			prev, what, limit = at, "an attempt", maxGap
			if at.Before(due) {
				prev = due
			}
		}
	}
	return v
}

func maxJitterOf(d time.Duration) time.Duration { return d + d/5 }

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Failover checks the timing model's liveness promises in a run without
// network faults, pauses or store restarts: whenever a term ends while some
// other process is standing by (running, and not in the pause after giving
// up a term of its own), the next term starts within Timing.CrashFailover
// after a crash, and within Timing.GracefulHandover (with a watch) after a
// graceful end. Waits run on the candidates' clocks, so the bounds allow for
// the slowest clock rate; slack covers the simulated round trips (under 2 ms
// each).
// It returns how many handovers it checked, how many of those followed a
// crash, and the violations.
func Failover(r *Report, slack time.Duration) (checked, afterCrash int, violations []string) {
	tm := r.Config.Timing
	slow := func(d time.Duration) time.Duration { return time.Duration(float64(d) / (1 - r.Config.MaxDriftRate)) }
	crash := tm.LeaseDuration + slow(maxPoll(tm)) + slack
	graceful := tm.GracefulHandover(true) + slack
	// A candidate that gave up a term waits two retry intervals before
	// competing again (see Candidate.Resign); it is not standing by then.
	rest := slow(2*tm.RetryInterval) + slack

	terms := append([]Term(nil), r.Terms...)
	sort.Slice(terms, func(i, j int) bool { return terms[i].Start.Before(terms[j].Start) })
	standingBy := func(at time.Time, leader Term) bool {
		for _, l := range r.Lives {
			if l.Born.After(at) || !l.Died.After(at) || (l.Process == leader.Process && l.Life == leader.Life) {
				continue
			}
			resting := false
			for _, t := range terms {
				if t.Process == l.Process && t.Life == l.Life && !t.End.After(at) && at.Sub(t.End) < rest {
					resting = true
				}
			}
			if !resting {
				return true
			}
		}
		return false
	}
	end := r.Start.Add(r.Config.Duration)
	for i := 1; i < len(terms); i++ {
		prev, next := terms[i-1], terms[i]
		if !prev.End.Before(end) || !standingBy(prev.End, prev) {
			continue
		}
		checked++
		gap, limit := next.Start.Sub(prev.End), graceful
		if prev.Crashed {
			limit = crash
			afterCrash++
		}
		if gap > limit {
			violations = append(violations, fmt.Sprintf("token %d took over %v after token %d ended (crashed %v) with a standby running; the model promises <= %v",
				next.Token, gap, prev.Token, prev.Crashed, limit))
		}
	}
	return checked, afterCrash, violations
}

// maxPoll is the longest jittered poll interval (RetryInterval + 20%).
func maxPoll(tm elector.Timing) time.Duration {
	return tm.GracefulHandover(false) - tm.GracefulHandover(true)
}
