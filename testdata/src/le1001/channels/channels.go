// Package channels: a courier that sends queued messages through channel
// implementations of this package, an SMTP one and a webhook whose HTTP
// method comes from configuration.
package channels

import (
	"context"
	"time"

	"github.com/gobuffalo/pop/v6"
	"github.com/hashicorp/go-retryablehttp"
	"gopkg.in/gomail.v2"
)

type message struct {
	ID        int64
	Channel   string
	Recipient string
	Body      string
	Status    string
}

// Channel delivers a message.
type Channel interface {
	Dispatch(ctx context.Context, m message) error
}

type smtpChannel struct{ dialer *gomail.Dialer }

func (c *smtpChannel) Dispatch(ctx context.Context, m message) error {
	g := gomail.NewMessage()
	g.SetHeader("To", m.Recipient)
	return c.dialer.DialAndSend(g)
}

type webhookChannel struct {
	method, url string
	client      *retryablehttp.Client
}

func (c *webhookChannel) Dispatch(ctx context.Context, m message) error {
	req, err := retryablehttp.NewRequest(c.method, c.url, m.Body)
	if err != nil {
		return err
	}
	res, err := c.client.Do(req)
	if err != nil {
		return err
	}
	return res.Body.Close()
}

type courier struct {
	db       *pop.Connection
	channels map[string]Channel
}

// dispatchQueued reads the queued messages (a plain SELECT claims none),
// sends each through its channel and records the new status (a model
// write the analysis does not see).
func (c *courier) dispatchQueued(ctx context.Context) error {
	var queued []message
	if err := c.db.RawQuery(`SELECT id, channel, recipient, body FROM messages WHERE status = 'queued' LIMIT 10`).All(&queued); err != nil {
		return err
	}
	for _, m := range queued {
		ch, ok := c.channels[m.Channel]
		if !ok {
			continue
		}
		if err := ch.Dispatch(ctx, m); err != nil {
			return err
		}
		m.Status = "sent"
		if err := c.db.UpdateColumns(&m, "status"); err != nil {
			return err
		}
	}
	return nil
}

// Positive: every channel reaches a server (the webhook's unknown method
// included), and the SMTP channel sends: on every replica.
func (c *courier) watch(ctx context.Context) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 1s: it sends \(via channels.\(\*smtpChannel\).Dispatch\); guarded by nothing`
		if err := c.dispatchQueued(ctx); err != nil {
			return
		}
		time.Sleep(time.Second)
	}
}

// Hook is implemented only by a webhook whose method is configuration.
type Hook interface {
	Fire(ctx context.Context, m message) error
}

type configuredHook struct{ webhookChannel }

func (h *configuredHook) Fire(ctx context.Context, m message) error { return h.Dispatch(ctx, m) }

// Negative: a request whose method the analysis cannot read is unknown,
// never evidence alone. Its twin is watch, where SMTP sends.
func watchHooks(ctx context.Context, h Hook, m message) {
	for {
		h.Fire(ctx, m)
		time.Sleep(time.Second)
	}
}

// Mailer is implemented by SMTP and by an in-memory outbox.
type Mailer interface {
	Mail(ctx context.Context, m message) error
}

type smtpMailer struct{ smtpChannel }

func (s *smtpMailer) Mail(ctx context.Context, m message) error { return s.Dispatch(ctx, m) }

type memoryMailer struct{ sent []message }

func (s *memoryMailer) Mail(ctx context.Context, m message) error {
	s.sent = append(s.sent, m)
	return nil
}

// Negative: one implementation keeps the mail in memory, so which one
// runs decides, and the analysis cannot see that. Its twin is watch, whose
// other implementation reaches a server.
func watchMail(ctx context.Context, mailer Mailer, m message) {
	for {
		mailer.Mail(ctx, m)
		time.Sleep(time.Second)
	}
}
