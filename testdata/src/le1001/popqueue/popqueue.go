// Package popqueue: periodic jobs that take queued notifications from a
// shared table through a pop connection and send them through a Notifier
// interface whose implementations (SMTP, a webhook) are in this package.
// A take that only reads the queued rows and marks them later claims
// nothing: two replicas read the same rows and both send.
package popqueue

import (
	"context"
	"net/http"
	"net/smtp"
	"os"
	"strings"
	"time"

	"github.com/gobuffalo/pop/v6"
)

type notification struct {
	ID        int64
	Recipient string
	Body      string
}

// Notifier delivers one notification.
type Notifier interface {
	Notify(ctx context.Context, n notification) error
}

type smtpNotifier struct{ addr, from string }

func (s *smtpNotifier) Notify(ctx context.Context, n notification) error {
	return smtp.SendMail(s.addr, nil, s.from, []string{n.Recipient}, []byte(n.Body))
}

type webhookNotifier struct{ url string }

func (w *webhookNotifier) Notify(ctx context.Context, n notification) error {
	res, err := http.Post(w.url, "text/plain", strings.NewReader(n.Body))
	if err != nil {
		return err
	}
	return res.Body.Close()
}

type outbox struct {
	db       *pop.Connection
	notifier Notifier
}

// Positive: the queued rows are read by a plain SELECT and marked as
// processing by a later UPDATE in the same transaction; nothing stops a
// second replica from reading them first, so both send.
func (o *outbox) takeQueued(ctx context.Context) ([]notification, error) {
	var taken []notification
	err := o.db.Transaction(func(tx *pop.Connection) error {
		if err := tx.RawQuery(`SELECT id, recipient, body FROM notifications WHERE status = 'queued' ORDER BY id LIMIT 10`).All(&taken); err != nil {
			return err
		}
		for _, n := range taken {
			if err := tx.RawQuery(`UPDATE notifications SET status = 'processing' WHERE id = ?`, n.ID).Exec(); err != nil {
				return err
			}
		}
		return nil
	})
	return taken, err
}

func (o *outbox) dispatchQueued(ctx context.Context) error {
	taken, err := o.takeQueued(ctx)
	if err != nil {
		return err
	}
	for _, n := range taken {
		if err := o.notifier.Notify(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

func (o *outbox) watch(ctx context.Context) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 5s: it updates table notifications.*sends \(via popqueue.\(\*smtpNotifier\).Notify\), sends \(via popqueue.\(\*webhookNotifier\).Notify\); guarded by nothing`
		if err := o.dispatchQueued(ctx); err != nil {
			return
		}
		time.Sleep(5 * time.Second)
	}
}

// Negative: SELECT ... FOR UPDATE SKIP LOCKED claims the rows, so each
// replica sends only what it locked. Its twin is takeQueued.
func (o *outbox) claimQueued(ctx context.Context) ([]notification, error) {
	var taken []notification
	err := o.db.Transaction(func(tx *pop.Connection) error {
		if err := tx.RawQuery(`SELECT id, recipient, body FROM notifications WHERE status = 'queued' ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED`).All(&taken); err != nil {
			return err
		}
		for _, n := range taken {
			if err := tx.RawQuery(`UPDATE notifications SET status = 'processing' WHERE id = ?`, n.ID).Exec(); err != nil {
				return err
			}
		}
		return nil
	})
	return taken, err
}

func (o *outbox) watchClaimed(ctx context.Context) {
	for {
		taken, err := o.claimQueued(ctx)
		if err != nil {
			return
		}
		for _, n := range taken {
			o.notifier.Notify(ctx, n)
		}
		time.Sleep(5 * time.Second)
	}
}

// Negative: each row is taken by an UPDATE conditional on its status,
// and only the replica whose UPDATE changed the row sends it.
func (o *outbox) watchConditional(ctx context.Context) {
	for {
		var queued []notification
		if err := o.db.RawQuery(`SELECT id, recipient, body FROM notifications WHERE status = 'queued' LIMIT 10`).All(&queued); err != nil {
			return
		}
		for _, n := range queued {
			won, err := o.db.RawQuery(`UPDATE notifications SET status = 'processing' WHERE id = ? AND status = 'queued'`, n.ID).ExecWithCount()
			if err != nil || won == 0 {
				continue
			}
			o.notifier.Notify(ctx, n)
		}
		time.Sleep(5 * time.Second)
	}
}

// Positive twin: the same conditional UPDATE whose count is dropped
// decides nothing; every replica sends every row it read.
func (o *outbox) watchConditionalUnread(ctx context.Context) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 5s: it updates table notifications.*sends \(via popqueue.\(\*smtpNotifier\).Notify\), sends \(via popqueue.\(\*webhookNotifier\).Notify\); guarded by nothing`
		var queued []notification
		if err := o.db.RawQuery(`SELECT id, recipient, body FROM notifications WHERE status = 'queued' LIMIT 10`).All(&queued); err != nil {
			return
		}
		for _, n := range queued {
			if _, err := o.db.RawQuery(`UPDATE notifications SET status = 'processing' WHERE id = ? AND status = 'queued'`, n.ID).ExecWithCount(); err != nil {
				continue
			}
			o.notifier.Notify(ctx, n)
		}
		time.Sleep(5 * time.Second)
	}
}

type workerOutbox struct {
	db       *pop.Connection
	notifier Notifier
	shard    string
}

// Negative: the queued rows are the ones assigned to this instance (its
// host name): each replica sends its own.
func (o *workerOutbox) watchOwn(ctx context.Context) {
	host, _ := os.Hostname()
	for {
		var own []notification
		if err := o.db.RawQuery(`SELECT id, recipient, body FROM notifications WHERE status = 'queued' AND worker = ?`, host).All(&own); err != nil {
			return
		}
		for _, n := range own {
			o.notifier.Notify(ctx, n)
		}
		time.Sleep(5 * time.Second)
	}
}

// Positive twin: a shard name set by whoever builds the outbox is no
// identity of the instance; every replica configured alike sends the same
// rows.
func (o *workerOutbox) watchShard(ctx context.Context) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 5s: it sends \(via popqueue.\(\*smtpNotifier\).Notify\), sends \(via popqueue.\(\*webhookNotifier\).Notify\); guarded by nothing`
		var own []notification
		if err := o.db.RawQuery(`SELECT id, recipient, body FROM notifications WHERE status = 'queued' AND worker = ?`, o.shard).All(&own); err != nil {
			return
		}
		for _, n := range own {
			o.notifier.Notify(ctx, n)
		}
		time.Sleep(5 * time.Second)
	}
}

// Positive twin: the instance reads its own rows but sends something else
// (a digest of the whole table), which every replica sends.
func (o *workerOutbox) watchOwnDigest(ctx context.Context, digest notification) {
	host, _ := os.Hostname()
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 5s: it sends \(via popqueue.\(\*smtpNotifier\).Notify\), sends \(via popqueue.\(\*webhookNotifier\).Notify\); guarded by nothing`
		var own []notification
		if err := o.db.RawQuery(`SELECT id, recipient, body FROM notifications WHERE status = 'queued' AND worker = ?`, host).All(&own); err != nil {
			return
		}
		o.notifier.Notify(ctx, digest)
		time.Sleep(5 * time.Second)
	}
}
