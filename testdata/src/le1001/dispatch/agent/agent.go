// Package agent is a request wrapper that dispatches on the method it is
// given: each branch reaches a different HTTP request.
package agent

import (
	"errors"
	"net/http"
	"strings"
)

// Agent sends requests to one server.
type Agent struct {
	client *http.Client
}

func (a *Agent) do(req *http.Request, err error) error {
	if err != nil {
		return err
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New("status")
	}
	return nil
}

func (a *Agent) get(url string) error {
	return a.do(http.NewRequest(http.MethodGet, url, nil))
}

func (a *Agent) post(url string) error {
	return a.do(http.NewRequest(http.MethodPost, url, nil))
}

func (a *Agent) put(url string) error {
	return a.do(http.NewRequest(http.MethodPut, url, nil))
}

func (a *Agent) remove(url string) error {
	return a.do(http.NewRequest(http.MethodDelete, url, nil))
}

// Do selects its request by a switch on the method.
func (a *Agent) Do(method, url string) error {
	switch method {
	case http.MethodGet:
		return a.get(url)
	case http.MethodPost:
		return a.post(url)
	case http.MethodDelete:
		return a.remove(url)
	}
	return errors.New("method not available")
}

// DoUpper selects by an if chain over the upper-cased method.
func (a *Agent) DoUpper(method, url string) error {
	m := strings.ToUpper(method)
	if m == "GET" {
		return a.get(url)
	}
	if m == "POST" {
		return a.post(url)
	}
	return errors.New("method not available")
}

// DoFold reads when asked to get, in any case, and writes otherwise.
func (a *Agent) DoFold(method, url string) error {
	if strings.EqualFold(method, "get") {
		return a.get(url)
	}
	return a.put(url)
}

// DoPair posts for two methods: the branch is entered from two
// comparisons.
func (a *Agent) DoPair(method, url string) error {
	switch method {
	case http.MethodGet:
		return a.get(url)
	case http.MethodPost, http.MethodPut:
		return a.post(url)
	}
	return nil
}

// DoTwice posts from two branches.
func (a *Agent) DoTwice(method, url string) error {
	switch method {
	case http.MethodGet:
		return a.get(url)
	case "CREATE":
		return a.post(url)
	case "APPEND":
		return a.post(url)
	}
	return nil
}

// Call hands its method on unchanged to Do.
func (a *Agent) Call(path, method string) error {
	return a.Do(method, "http://server"+path)
}

// CallWrite hands on a method it may have changed: a write path always
// posts.
func (a *Agent) CallWrite(path, method string) error {
	if strings.HasPrefix(path, "/write") {
		method = http.MethodPost
	}
	return a.Do(method, "http://server"+path)
}

// Requester is what the jobs hold.
type Requester interface {
	Do(method, url string) error
}

// Op names an operation.
type Op int

// The operations DoOp knows.
const (
	OpRead Op = iota + 1
	OpWrite
)

// DoOp selects by an integer operation code.
func (a *Agent) DoOp(op Op, url string) error {
	if op == OpRead {
		return a.get(url)
	}
	if op != OpWrite {
		return nil
	}
	return a.post(url)
}

// DoForced posts for POST, or for any method when forced: the branch is
// entered from a comparison of the method and from a test of something
// else.
func (a *Agent) DoForced(method, url string, force bool) error {
	if method == http.MethodPost || force {
		return a.post(url)
	}
	return nil
}

// DoKind posts for POST or for a bulk kind, whatever the method.
func (a *Agent) DoKind(method, kind, url string) error {
	if method == http.MethodPost || kind == "bulk" {
		return a.post(url)
	}
	return nil
}
