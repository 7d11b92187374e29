// Package doclockttl: a lock document whose collection has a TTL index
// (twin: doclock.DocLocker, the same without it).
package doclockttl

import (
	"context"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

type lockDoc struct {
	Name      string    `bson:"lock_name"`
	Holder    int       `bson:"pid"`
	CreatedAt time.Time `bson:"created_at"`
}

type byName struct {
	Name string `bson:"lock_name"`
}

type byCreated struct {
	CreatedAt int `bson:"created_at"`
}

type DocLocker struct {
	db   *mongo.Database
	coll string
}

func (l *DocLocker) ensureIndexes(ctx context.Context) error {
	_, err := l.db.Collection(l.coll).Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: byName{}, Options: options.Index().SetUnique(true)},
		{Keys: byCreated{CreatedAt: 1}, Options: options.Index().SetExpireAfterSeconds(60)},
	})
	return err
}

func (l *DocLocker) Lock(ctx context.Context, name string) error {
	doc := lockDoc{Name: name, Holder: os.Getpid(), CreatedAt: time.Now()}
	_, err := l.db.Collection(l.coll).InsertOne(ctx, doc)
	return err
}

func (l *DocLocker) Unlock(ctx context.Context, name string) error {
	filter := byName{Name: name}
	_, err := l.db.Collection(l.coll).DeleteMany(ctx, filter)
	return err
}
