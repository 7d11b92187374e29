// Package ownrefresh: timers that renew the client's own access token (a
// login built from its configuration whose answer it keeps in its own
// fields: per-replica by design), and twins whose POST carries shared
// data, ignores its answer or keeps it nowhere.
package ownrefresh

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"le1001/ownrefresh/agent"
)

// Config is what the client is built with.
type Config struct {
	Server   string
	User     string
	Password string
}

// Client logs in to a server and keeps its token.
type Client struct {
	user, password string
	servers        []string
	agent          *agent.Agent
	token          *atomic.Value
	ttl            int64
}

// NewClient builds the client from its configuration.
func NewClient(cfg Config, a *agent.Agent) *Client {
	return &Client{user: cfg.User, password: cfg.Password, servers: []string{cfg.Server}, agent: a, token: &atomic.Value{}}
}

// SetServers replaces the server list (the caller's configuration).
func (c *Client) SetServers(list []string) { c.servers = list }

// Token is what the client's requests carry.
func (c *Client) Token() string {
	v, _ := c.token.Load().(string)
	return v
}

func (c *Client) login(server string) error {
	header := http.Header{"Content-Type": []string{"application/x-www-form-urlencoded"}}
	resp, err := c.agent.Post(server+"/v1/login", header, map[string]string{"username": c.user, "password": c.password})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var answer map[string]any
	if err := json.Unmarshal(body, &answer); err != nil {
		return err
	}
	if tok, ok := answer["accessToken"]; ok {
		c.token.Store(tok)
		c.ttl = int64(answer["ttl"].(float64))
	}
	return nil
}

// Login tries each configured server.
func (c *Client) Login() error {
	var last error
	for i := 0; i < len(c.servers); i++ {
		if last = c.login(c.servers[i]); last == nil {
			return nil
		}
	}
	return last
}

// Negative: the timer renews the client's own token: the login carries
// only configuration and the token lands in the client's fields.
func (c *Client) AutoRefresh(ctx context.Context) {
	go func() {
		timer := time.NewTimer(5 * time.Second)
		defer timer.Stop()
		for {
			select {
			case <-timer.C:
				if c.Login() != nil {
					timer.Reset(5 * time.Second)
				} else {
					timer.Reset(time.Duration(c.ttl) * time.Second)
				}
			case <-ctx.Done():
				return
			}
		}
	}()
}

// Pinger posts a login whose answer it does not read.
type Pinger struct {
	server, user string
	agent        *agent.Agent
}

// NewPinger builds the pinger from its configuration.
func NewPinger(cfg Config, a *agent.Agent) *Pinger {
	return &Pinger{server: cfg.Server, user: cfg.User, agent: a}
}

func (p *Pinger) touch() error {
	resp, err := p.agent.Post(p.server+"/v1/touch", nil, map[string]string{"username": p.user})
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Positive twin (the answer is kept in the client's fields): the answer is
// ignored, so the POST is what the timer is for, on every replica.
func (p *Pinger) Run(ctx context.Context) {
	timer := time.NewTimer(time.Minute) // want `time.NewTimer runs loop body on every replica every 1m0s: it sends HTTP POST`
	for {
		select {
		case <-timer.C:
			p.touch()
			timer.Reset(time.Minute)
		case <-ctx.Done():
			return
		}
	}
}

// Trigger posts a run request and only checks that it was accepted.
type Trigger struct {
	server string
	agent  *agent.Agent
	runs   int64
}

// NewTrigger builds the trigger from its configuration.
func NewTrigger(cfg Config, a *agent.Agent) *Trigger {
	return &Trigger{server: cfg.Server, agent: a}
}

func (t *Trigger) fire() error {
	resp, err := t.agent.Post(t.server+"/v1/jobs/run", nil, map[string]string{"job": "compact"})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var answer struct{ Accepted bool }
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return err
	}
	if answer.Accepted {
		t.runs++
	}
	return nil
}

// Positive twin (what the answer's body yields is stored in a field): the
// answer only decides a branch; every replica triggers the shared job.
func (t *Trigger) Run(ctx context.Context) {
	timer := time.NewTimer(time.Minute) // want `time.NewTimer runs loop body on every replica every 1m0s: it sends HTTP POST`
	for {
		select {
		case <-timer.C:
			t.fire()
			timer.Reset(time.Minute)
		case <-ctx.Done():
			return
		}
	}
}

// Syncer logs in with a cursor it read from a shared table.
type Syncer struct {
	server string
	db     *sql.DB
	cursor string
	agent  *agent.Agent
	token  string
}

// NewSyncer builds the syncer from its configuration.
func NewSyncer(cfg Config, db *sql.DB, a *agent.Agent) *Syncer {
	return &Syncer{server: cfg.Server, db: db, agent: a}
}

func (s *Syncer) load(ctx context.Context) {
	var cur string
	if s.db.QueryRowContext(ctx, "SELECT cursor FROM sync_state").Scan(&cur) == nil {
		s.cursor = cur
	}
}

func (s *Syncer) push() error {
	resp, err := s.agent.Post(s.server+"/v1/sync", nil, map[string]string{"cursor": s.cursor})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	s.token = string(body)
	return nil
}

// Positive twin (the request carries only configuration): the cursor
// field is filled from a shared table, so every replica posts the shared
// state.
func (s *Syncer) Run(ctx context.Context) {
	timer := time.NewTimer(time.Minute) // want `time.NewTimer runs loop body on every replica every 1m0s: it sends HTTP POST`
	for {
		select {
		case <-timer.C:
			s.push()
			timer.Reset(time.Minute)
		case <-ctx.Done():
			return
		}
	}
}

// Reporter renews its token and then reports a value handed to its
// refresh, in a form literal the helper also fills.
type Reporter struct {
	server, user string
	agent        *agent.Agent
	token        string
}

// NewReporter builds the reporter from its configuration.
func NewReporter(cfg Config, a *agent.Agent) *Reporter {
	return &Reporter{server: cfg.Server, user: cfg.User, agent: a}
}

func stamp(form map[string]string, db *sql.DB) {
	var v string
	db.QueryRow("SELECT v FROM counters").Scan(&v)
	form["counter"] = v
}

func (r *Reporter) renew(db *sql.DB) error {
	form := map[string]string{"username": r.user}
	stamp(form, db)
	resp, err := r.agent.Post(r.server+"/v1/login", nil, form)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	r.token = string(body)
	return nil
}

// Positive twin (the form literal goes only to the request): a helper
// fills the form with a shared counter before the POST.
func (r *Reporter) Run(ctx context.Context, db *sql.DB) {
	timer := time.NewTimer(time.Minute) // want `time.NewTimer runs loop body on every replica every 1m0s: it sends HTTP POST`
	for {
		select {
		case <-timer.C:
			r.renew(db)
			timer.Reset(time.Minute)
		case <-ctx.Done():
			return
		}
	}
}

// Notifier posts through an agent method that returns no response.
type Notifier struct {
	server string
	agent  *agent.Agent
}

// NewNotifier builds the notifier from its configuration.
func NewNotifier(cfg Config, a *agent.Agent) *Notifier {
	return &Notifier{server: cfg.Server, agent: a}
}

func (n *Notifier) notify() error {
	return n.agent.Notify(n.server+"/v1/notify", map[string]string{"event": "tick"})
}

// Positive twin (at least one request whose answer is kept): the calls
// below the job hold none returning a response, so nothing is kept.
func (n *Notifier) Run(ctx context.Context) {
	timer := time.NewTimer(time.Minute) // want `time.NewTimer runs loop body on every replica every 1m0s: it sends HTTP POST`
	for {
		select {
		case <-timer.C:
			n.notify()
			timer.Reset(time.Minute)
		case <-ctx.Done():
			return
		}
	}
}

// Mirror renews its token and then notifies a row of a shared table.
type Mirror struct {
	server, user string
	db           *sql.DB
	agent        *agent.Agent
	token        string
}

// NewMirror builds the mirror from its configuration.
func NewMirror(cfg Config, db *sql.DB, a *agent.Agent) *Mirror {
	return &Mirror{server: cfg.Server, user: cfg.User, db: db, agent: a}
}

func (m *Mirror) renew(ctx context.Context) error {
	resp, err := m.agent.Post(m.server+"/v1/login", nil, map[string]string{"username": m.user})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	m.token = string(body)
	var row string
	m.db.QueryRowContext(ctx, "SELECT body FROM outbox LIMIT 1").Scan(&row)
	return m.agent.Notify(m.server+"/v1/mirror", map[string]string{"row": row})
}

// Positive twin (every other call stays in the process): beside the
// login, a second request carries a shared table's row.
func (m *Mirror) Run(ctx context.Context) {
	timer := time.NewTimer(time.Minute) // want `time.NewTimer runs loop body on every replica every 1m0s: it sends HTTP POST`
	for {
		select {
		case <-timer.C:
			m.renew(ctx)
			timer.Reset(time.Minute)
		case <-ctx.Done():
			return
		}
	}
}
