// Package gomail is a small stand-in for gopkg.in/gomail.v2: the
// signatures the knowledge base names, no SMTP server behind them.
package gomail

// Message is an email.
type Message struct{ header map[string][]string }

// NewMessage returns an empty email.
func NewMessage() *Message { return &Message{header: map[string][]string{}} }

// SetHeader sets a header of the email.
func (m *Message) SetHeader(field string, value ...string) { m.header[field] = value }

// Dialer dials an SMTP server.
type Dialer struct {
	Host string
	Port int
}

// DialAndSend opens a connection and sends the emails.
func (d *Dialer) DialAndSend(m ...*Message) error { return nil }
