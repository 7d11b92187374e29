// Package unbounded holds Consul sessions renewed by hand in paced loops
// whose exit stops the work. A renewal whose request has no deadline, on a
// client built here with no HTTP timeout, is reported at the renewal; each
// silence has a twin that breaks its guard.
package unbounded

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/hashicorp/consul/api"
)

var errLost = errors.New("session lost")

// holder renews with nil options on a default client: reported.
type holder struct {
	client  *api.Client
	session string
}

func (h *holder) open() error {
	var err error
	h.client, err = api.NewClient(api.DefaultConfig())
	return err
}

func (h *holder) hold(ctx context.Context, work func(context.Context)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go work(ctx)
	for {
		select {
		case <-time.After(5 * time.Second):
			entry, _, err := h.client.Session().Renew(h.session, nil) // want `this renewal has no deadline`
			if err != nil {
				return err
			}
			if entry == nil {
				return errLost
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// helperHolder renews through a helper of its own, called in the loop:
// reported at the renewal in the helper.
type helperHolder struct {
	client  *api.Client
	session string
	stopped chan struct{}
}

func newHelperHolder() (*helperHolder, error) {
	cfg := api.DefaultConfig()
	cfg.HttpClient = http.DefaultClient
	c, err := api.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return &helperHolder{client: c, stopped: make(chan struct{})}, nil
}

func (h *helperHolder) renew() error {
	_, _, err := h.client.Session().Renew(h.session, (&api.WriteOptions{}).WithContext(context.Background())) // want `this renewal has no deadline`
	return err
}

func (h *helperHolder) hold() {
	defer close(h.stopped)
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for range t.C {
		if err := h.renew(); err != nil {
			return
		}
	}
}

// timedHolder's client has an http.Client with a Timeout: silent.
// Twin: untimedHolder, the same client without the Timeout.
type timedHolder struct {
	client  *api.Client
	session string
}

func newTimedHolder() *timedHolder {
	cfg := api.DefaultConfig()
	cfg.HttpClient = &http.Client{Timeout: 3 * time.Second}
	c, _ := api.NewClient(cfg)
	return &timedHolder{client: c}
}

func (h *timedHolder) hold(cancel context.CancelFunc) {
	defer cancel()
	for {
		time.Sleep(5 * time.Second)
		if _, _, err := h.client.Session().Renew(h.session, nil); err != nil {
			return
		}
	}
}

type untimedHolder struct {
	client  *api.Client
	session string
}

func newUntimedHolder() *untimedHolder {
	cfg := api.DefaultConfig()
	cfg.HttpClient = &http.Client{}
	c, _ := api.NewClient(cfg)
	return &untimedHolder{client: c}
}

func (h *untimedHolder) hold(cancel context.CancelFunc) {
	defer cancel()
	for {
		time.Sleep(5 * time.Second)
		if _, _, err := h.client.Session().Renew(h.session, nil); err != nil { // want `this renewal has no deadline`
			return
		}
	}
}

// waitingHolder sets the config's WaitTime: silent (twin: holder).
type waitingHolder struct {
	client  *api.Client
	session string
}

func newWaitingHolder() *waitingHolder {
	cfg := api.DefaultConfig()
	cfg.WaitTime = 3 * time.Second
	c, _ := api.NewClient(cfg)
	return &waitingHolder{client: c}
}

func (h *waitingHolder) hold(cancel context.CancelFunc) {
	defer cancel()
	for {
		time.Sleep(5 * time.Second)
		if _, _, err := h.client.Session().Renew(h.session, nil); err != nil {
			return
		}
	}
}

// boundedHolder gives each renewal a context with a timeout: silent.
// Twin: helperHolder's renew, given context.Background().
type boundedHolder struct {
	client  *api.Client
	session string
}

func newBoundedHolder() *boundedHolder {
	c, _ := api.NewClient(api.DefaultConfig())
	return &boundedHolder{client: c}
}

func (h *boundedHolder) hold(cancel context.CancelFunc) {
	defer cancel()
	for {
		time.Sleep(5 * time.Second)
		rctx, done := context.WithTimeout(context.Background(), 2*time.Second)
		_, _, err := h.client.Session().Renew(h.session, (&api.WriteOptions{}).WithContext(rctx))
		done()
		if err != nil {
			return
		}
	}
}

// givenHolder's client is built here by one constructor and by its caller,
// out of sight, by another: silent. Twin: holder, whose only client is
// built here.
type givenHolder struct {
	client  *api.Client
	session string
}

func newGivenHolder(c *api.Client) *givenHolder { return &givenHolder{client: c} }

func newDefaultGivenHolder() *givenHolder {
	c, _ := api.NewClient(api.DefaultConfig())
	return &givenHolder{client: c}
}

func (h *givenHolder) hold(cancel context.CancelFunc) {
	defer cancel()
	for {
		time.Sleep(5 * time.Second)
		if _, _, err := h.client.Session().Renew(h.session, nil); err != nil {
			return
		}
	}
}
