package le4001

import (
	"context"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

func compact(ctx context.Context) {}

// The leader loop never looks at the session: a lost lease goes unnoticed.
func campaignBlind(ctx context.Context, cli *clientv3.Client) error {
	sess, err := concurrency.NewSession(cli, concurrency.WithTTL(10))
	if err != nil {
		return err
	}
	defer sess.Close()
	e := concurrency.NewElection(sess, "/compactor/leader")
	if err := e.Campaign(ctx, "node-1"); err != nil {
		return err
	}
	for { // want `leader work after etcd Campaign never observes the session's end \(sess.Done\(\) or sess.Ctx\(\)\)`
		compact(ctx)
		time.Sleep(time.Minute)
	}
}

// Correct: the leader loop selects on session.Done().
func campaignWatched(ctx context.Context, cli *clientv3.Client) error {
	sess, err := concurrency.NewSession(cli, concurrency.WithTTL(10))
	if err != nil {
		return err
	}
	defer sess.Close()
	e := concurrency.NewElection(sess, "/compactor/leader")
	if err := e.Campaign(ctx, "node-1"); err != nil {
		return err
	}
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-sess.Done():
			log.Print("session lost, stepping down")
			return nil
		case <-t.C:
			compact(ctx)
		}
	}
}

// Correct: the work runs on the session's context.
func campaignSessionCtx(ctx context.Context, cli *clientv3.Client, r *reconciler) error {
	sess, err := concurrency.NewSession(cli)
	if err != nil {
		return err
	}
	e := concurrency.NewElection(sess, "/reconciler/leader")
	if err := e.Campaign(ctx, "node-1"); err != nil {
		return err
	}
	r.Run(sess.Ctx(), 4)
	return nil
}

// Unknown: the session is handed to a helper that may watch it.
func campaignHelper(ctx context.Context, cli *clientv3.Client, watch func(*concurrency.Session)) error {
	sess, err := concurrency.NewSession(cli)
	if err != nil {
		return err
	}
	go watch(sess)
	e := concurrency.NewElection(sess, "/reconciler/leader")
	if err := e.Campaign(ctx, "node-1"); err != nil {
		return err
	}
	for {
		compact(ctx)
		time.Sleep(time.Minute)
	}
}

type leader struct {
	client *clientv3.Client
	id     string
}

func (l *leader) reconcileAll(ctx context.Context) error { return nil }

// Leader work through an ordinary method taking the context.
func (l *leader) Run(ctx context.Context) error {
	session, err := concurrency.NewSession(l.client, concurrency.WithTTL(15))
	if err != nil {
		return err
	}
	defer session.Close()
	election := concurrency.NewElection(session, "/operator/leader")
	if err := election.Campaign(ctx, l.id); err != nil {
		return err
	}
	log.Printf("%s is the leader", l.id)
	defer election.Resign(context.Background())
	return l.reconcileAll(ctx) // want `leader work after etcd Campaign never observes the session's end \(session.Done\(\) or session.Ctx\(\)\)`
}
