// Package dispatch runs loops through a request wrapper that dispatches on
// the method argument: only the branches the argument selects run.
package dispatch

import (
	"net/http"
	"time"

	"le1001/dispatch/agent"
)

type poller struct {
	a      *agent.Agent
	r      agent.Requester
	method string
	url    string
}

// Negative: a constant GET selects the branch that reads.
func (p *poller) refresh() {
	for range time.Tick(time.Minute) {
		p.a.Do(http.MethodGet, p.url)
	}
}

// Positive twin: a constant POST selects the branch that posts, and only it.
func (p *poller) announce() {
	for range time.Tick(time.Minute) { // want `it sends HTTP POST \(via agent.\(\*Agent\).post\); guarded by nothing`
		p.a.Do(http.MethodPost, p.url)
	}
}

// Positive: a method from configuration may select any branch.
func (p *poller) configured() {
	for range time.Tick(time.Minute) { // want `it sends HTTP POST \(via agent.\(\*Agent\).post\), sends HTTP DELETE \(via agent.\(\*Agent\).remove\); guarded`
		p.a.Do(p.method, p.url)
	}
}

// Negative: a local variable that only ever holds GET.
func (p *poller) refreshLocal() {
	m := "GET"
	for range time.Tick(time.Minute) {
		p.a.Do(m, p.url)
	}
}

// Positive twin: a local variable that may hold POST.
func (p *poller) refreshOrWrite(write bool) {
	m := "GET"
	if write {
		m = "POST"
	}
	for range time.Tick(time.Minute) { // want `it sends HTTP POST`
		p.a.Do(m, p.url)
	}
}

// Negative: the wrapper upper-cases the method before it compares.
func (p *poller) refreshUpper() {
	for range time.Tick(time.Minute) {
		p.a.DoUpper("get", p.url)
	}
}

// Positive twin: "post" upper-cased selects the branch that posts.
func (p *poller) announceUpper() {
	for range time.Tick(time.Minute) { // want `it sends HTTP POST`
		p.a.DoUpper("post", p.url)
	}
}

// Negative: EqualFold matches "Get".
func (p *poller) refreshFold() {
	for range time.Tick(time.Minute) {
		p.a.DoFold("Get", p.url)
	}
}

// Positive twin: any other method takes the branch that puts.
func (p *poller) storeFold() {
	for range time.Tick(time.Minute) { // want `it sends HTTP PUT`
		p.a.DoFold("patch", p.url)
	}
}

// Negative: GET through a case with one value.
func (p *poller) refreshPair() {
	for range time.Tick(time.Minute) {
		p.a.DoPair(http.MethodGet, p.url)
	}
}

// Positive twin: PUT, the second value of a case with two, posts.
func (p *poller) storePair() {
	for range time.Tick(time.Minute) { // want `it sends HTTP POST`
		p.a.DoPair(http.MethodPut, p.url)
	}
}

// Positive: the second of two branches that reach the same post.
func (p *poller) appendTwice() {
	for range time.Tick(time.Minute) { // want `it sends HTTP POST`
		p.a.DoTwice("APPEND", p.url)
	}
}

// Negative: the method handed on through a helper's parameter.
func (p *poller) refreshForwarded() {
	for range time.Tick(time.Minute) {
		p.a.Call("/list", http.MethodGet)
	}
}

// Positive twin: DELETE handed on through the same helper.
func (p *poller) removeForwarded() {
	for range time.Tick(time.Minute) { // want `it sends HTTP DELETE \(via agent.\(\*Agent\).remove\); guarded`
		p.a.Call("/items", http.MethodDelete)
	}
}

// Positive twin: a helper that changes its method parameter before it
// hands it on posts whatever it was given.
func (p *poller) writeForwarded() {
	for range time.Tick(time.Minute) { // want `it sends HTTP POST`
		p.a.CallWrite("/write/items", http.MethodGet)
	}
}

// Negative: through the interface the wrapper implements.
func (p *poller) refreshIface() {
	for range time.Tick(time.Minute) {
		p.r.Do(http.MethodGet, p.url)
	}
}

// Positive twin: POST through the interface.
func (p *poller) announceIface() {
	for range time.Tick(time.Minute) { // want `it sends HTTP POST \(via agent.\(\*Agent\).post\); guarded`
		p.r.Do(http.MethodPost, p.url)
	}
}

// Negative: the operation code that reads.
func (p *poller) refreshOp() {
	for range time.Tick(time.Minute) {
		p.a.DoOp(agent.OpRead, p.url)
	}
}

// Positive twin: the operation code that writes, past a != test.
func (p *poller) writeOp() {
	for range time.Tick(time.Minute) { // want `it sends HTTP POST`
		p.a.DoOp(agent.OpWrite, p.url)
	}
}

// Negative: an untyped constant that is no known operation: DoOp returns
// before the write.
func (p *poller) unknownOp() {
	for range time.Tick(time.Minute) {
		p.a.DoOp(7, p.url)
	}
}

// Negative: HEAD is no value of the case that posts (and no case at all).
func (p *poller) headPair() {
	for range time.Tick(time.Minute) {
		p.a.DoPair(http.MethodHead, p.url)
	}
}

// Positive twin: GET, but forced, posts.
func (p *poller) forcedGet() {
	for range time.Tick(time.Minute) { // want `it sends HTTP POST`
		p.a.DoForced(http.MethodGet, p.url, true)
	}
}

// Positive twin: GET of the bulk kind posts.
func (p *poller) bulkGet() {
	for range time.Tick(time.Minute) { // want `it sends HTTP POST`
		p.a.DoKind(http.MethodGet, "bulk", p.url)
	}
}

// Positive, a limit: GET, not forced, through the same helper stays
// reported: force is compared with no constant, so the branch keeps no
// test.
func (p *poller) unforcedGet() {
	for range time.Tick(time.Minute) { // want `it sends HTTP POST`
		p.a.DoForced(http.MethodGet, p.url, false)
	}
}
