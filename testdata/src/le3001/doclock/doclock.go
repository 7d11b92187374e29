// Package doclock: locks kept as MongoDB documents on a unique key,
// inserted to take the lock and deleted by the key to release it.
package doclock

import (
	"context"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

type lockDoc struct {
	Name      string    `bson:"lock_name"`
	Holder    int       `bson:"pid"`
	CreatedAt time.Time `bson:"created_at"` // stored, never compared: no expiry
}

type byName struct {
	Name string `bson:"lock_name"`
}

// DocLocker: a unique index on lock_name makes the second insert fail.
type DocLocker struct {
	db   *mongo.Database
	coll string
}

func (l *DocLocker) ensureIndex(ctx context.Context) error {
	_, err := l.db.Collection(l.coll).Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    byName{Name: "x"},
		Options: options.Index().SetUnique(true).SetName("lock_name_unique"),
	})
	return err
}

func (l *DocLocker) Lock(ctx context.Context, name string) error {
	doc := lockDoc{Name: name, Holder: os.Getpid(), CreatedAt: time.Now()}
	_, err := l.db.Collection(l.coll).InsertOne(ctx, doc) // want `InsertOne takes the lock in \(DocLocker\).Lock by inserting a document of collection l.coll on a unique key \(lock_name\), and \(DocLocker\).Unlock releases it by deleting the document: nothing gives the document an end`
	return err
}

func (l *DocLocker) Unlock(ctx context.Context, name string) error {
	filter := byName{Name: name}
	_, err := l.db.Collection(l.coll).DeleteMany(ctx, filter)
	return err
}

// IDLocker: the document's _id is the lock's name, unique by itself.
type IDLocker struct{ locks *mongo.Collection }

func (l *IDLocker) TryLock(ctx context.Context, name, owner string) bool {
	_, err := l.locks.InsertOne(ctx, bson.M{"_id": name, "owner": owner}) // want `InsertOne takes the lock in \(IDLocker\).TryLock by inserting a document of collection l.locks on a unique key \(_id\)`
	return err == nil
}

func (l *IDLocker) Unlock(ctx context.Context, name, owner string) error {
	_, err := l.locks.DeleteOne(ctx, bson.D{{Key: "_id", Value: name}, {Key: "owner", Value: owner}})
	return err
}

// Negative: the document carries its expiry (twin: IDLocker).
type ExpiringLocker struct{ locks *mongo.Collection }

func (l *ExpiringLocker) TryLock(ctx context.Context, name string) bool {
	_, err := l.locks.InsertOne(ctx, bson.M{"_id": name, "expiresAt": time.Now().Add(time.Minute)})
	return err == nil
}

func (l *ExpiringLocker) Unlock(ctx context.Context, name string) error {
	_, err := l.locks.DeleteOne(ctx, bson.M{"_id": name})
	return err
}

// Negative: no unique key: a generated _id never collides, so the insert
// takes nothing (twin: IDLocker).
type objectID [12]byte

type event struct {
	ID   objectID `bson:"_id"`
	Name string   `bson:"name"`
}

type LogLocker struct{ events *mongo.Collection }

func (l *LogLocker) Lock(ctx context.Context, name string) error {
	_, err := l.events.InsertOne(ctx, event{Name: name})
	return err
}

func (l *LogLocker) Unlock(ctx context.Context, name string) error {
	_, err := l.events.DeleteOne(ctx, bson.M{"_id": name})
	return err
}

// Negative: the release does not select the lock by its key (twin:
// IDLocker).
type OwnerSweep struct{ locks *mongo.Collection }

func (l *OwnerSweep) TryLock(ctx context.Context, name, owner string) bool {
	_, err := l.locks.InsertOne(ctx, bson.M{"_id": name, "owner": owner})
	return err == nil
}

func (l *OwnerSweep) Unlock(ctx context.Context, owner string) error {
	_, err := l.locks.DeleteMany(ctx, bson.M{"owner": owner})
	return err
}

// Negative: a document the code cannot see (an interface value) is unknown
// (twin: IDLocker).
type OpaqueLocker struct{ locks *mongo.Collection }

func (l *OpaqueLocker) TryLock(ctx context.Context, doc interface{}) bool {
	_, err := l.locks.InsertOne(ctx, doc)
	return err == nil
}

func (l *OpaqueLocker) Unlock(ctx context.Context, name string) error {
	_, err := l.locks.DeleteOne(ctx, bson.M{"_id": name})
	return err
}

// Negative: the index on the field is not unique, so a second insert
// succeeds and takes nothing (twin: DocLocker).
type jobDoc struct {
	Job string `bson:"job"`
}

type QueueLocker struct{ jobs *mongo.Collection }

func (l *QueueLocker) ensureIndex(ctx context.Context) error {
	_, err := l.jobs.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: jobDoc{}, Options: options.Index().SetName("by_job")})
	return err
}

func (l *QueueLocker) Lock(ctx context.Context, job string) error {
	_, err := l.jobs.InsertOne(ctx, jobDoc{Job: job})
	return err
}

func (l *QueueLocker) Unlock(ctx context.Context, job string) error {
	_, err := l.jobs.DeleteOne(ctx, jobDoc{Job: job})
	return err
}
