package unbounded

import (
	"context"
	"log"
	"time"

	"github.com/hashicorp/consul/api"
)

// watchedHolder arms a timer at the current expiry that cancels the work
// and re-arms it after each renewal: silent (twin: untimedHolder).
type watchedHolder struct {
	client  *api.Client
	session string
}

func newWatchedHolder() *watchedHolder {
	c, _ := api.NewClient(api.DefaultConfig())
	return &watchedHolder{client: c}
}

func (h *watchedHolder) hold(cancel context.CancelFunc) {
	defer cancel()
	watchdog := time.AfterFunc(10*time.Second, cancel)
	for {
		time.Sleep(5 * time.Second)
		if _, _, err := h.client.Session().Renew(h.session, nil); err != nil {
			return
		}
		watchdog.Reset(10 * time.Second)
	}
}

// onceHolder renews once, outside any loop: silent (twin: holder).
type onceHolder struct {
	client  *api.Client
	session string
}

func newOnceHolder() *onceHolder {
	c, _ := api.NewClient(api.DefaultConfig())
	return &onceHolder{client: c}
}

func (h *onceHolder) touch(cancel context.CancelFunc) error {
	defer cancel()
	time.Sleep(time.Second)
	if _, _, err := h.client.Session().Renew(h.session, nil); err != nil {
		return err
	}
	return nil
}

// stubbornHolder logs a failed renewal and goes on: its failure does not
// end the work, so a hung renewal changes nothing (another check's
// matter): silent. Twin: untimedHolder, which returns.
type stubbornHolder struct {
	client  *api.Client
	session string
}

func newStubbornHolder() *stubbornHolder {
	c, _ := api.NewClient(api.DefaultConfig())
	return &stubbornHolder{client: c}
}

func (h *stubbornHolder) hold(ctx context.Context, cancel context.CancelFunc) {
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Second):
			if _, _, err := h.client.Session().Renew(h.session, nil); err != nil {
				log.Printf("renew: %v", err)
			}
		}
	}
}

// idleHolder stops nothing when its loop is left: silent (twin: holder).
type idleHolder struct {
	client  *api.Client
	session string
}

func newIdleHolder() *idleHolder {
	c, _ := api.NewClient(api.DefaultConfig())
	return &idleHolder{client: c}
}

func (h *idleHolder) hold() error {
	for {
		time.Sleep(5 * time.Second)
		if _, _, err := h.client.Session().Renew(h.session, nil); err != nil {
			return err
		}
	}
}
