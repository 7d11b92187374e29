// Command flagged is a small billing service written the way many services
// start: fine on one replica, wrong on three. gatesift-vet reports every
// marked line (the markers name the rule; examples_test.go checks them).
//
//	go run ./cmd/gatesift-vet ./examples/flagged/
package main

import (
	"context"
	"database/sql"
	"log"
	"net/smtp"
	"os"
	"os/signal"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})

	go chargeDueInvoices(ctx, db)
	go closeOverdue(ctx, db)
	if os.Getenv("RUN_SCHEDULER") == "true" {
		go sendDigests(db)
	}
	go reconcile(ctx, rdb, db)
	<-ctx.Done()
}

// chargeDueInvoices bills due invoices every hour, on every replica.
func chargeDueInvoices(ctx context.Context, db *sql.DB) {
	t := time.NewTicker(time.Hour) // LE1001
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := db.ExecContext(ctx, `INSERT INTO charges (invoice_id, amount)
				SELECT id, amount FROM invoices WHERE state = 'due'`); err != nil {
				log.Print(err)
			}
			db.ExecContext(ctx, `UPDATE invoices SET state = 'charged' WHERE state = 'due'`)
		}
	}
}

// closeOverdue writes the invoices table on its own schedule too.
func closeOverdue(ctx context.Context, db *sql.DB) {
	for range time.Tick(10 * time.Minute) { // LE1001 LE2001
		db.ExecContext(ctx, `UPDATE invoices SET state = 'overdue' WHERE state = 'due' AND due_at < now()`)
		db.ExecContext(ctx, `INSERT INTO invoices (account_id, state) SELECT id, 'due' FROM accounts WHERE billing_day = extract(day from now())`)
	}
}

// sendDigests runs only where RUN_SCHEDULER=true: nobody takes over when
// that replica dies.
func sendDigests(db *sql.DB) {
	for { // LE1002
		rows, err := db.Query(`SELECT email FROM users WHERE digest`)
		if err == nil {
			rows.Close()
		}
		smtp.SendMail("mail:25", nil, "billing@example.com", []string{"finance@example.com"}, []byte("digest"))
		time.Sleep(24 * time.Hour)
	}
}
